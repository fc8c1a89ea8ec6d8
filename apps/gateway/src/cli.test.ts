import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The built binary, as `npx @afw/gateway` would run it.
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const afw = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 30_000 });
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string; bin: Record<string, string> };

describe("afw usage, help and version", () => {
  it("prints the usage and exits 0 with no arguments, listing every command", () => {
    const run = afw();
    expect(run.status).toBe(0);
    for (const command of ["serve", "classify", "tools search", "route", "demo", "help"]) expect(run.stdout).toContain(`afw ${command}`);
  });

  it("prints the package version for --version and -v", () => {
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ["--version", "-v"]) {
      const run = afw(flag);
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toBe(manifest.version);
    }
  });

  it.each(["serve", "classify", "tools search", "tools", "route", "demo", "help"])("afw %s answers --help and -h with its usage, exit 0", (name) => {
    for (const flag of ["--help", "-h"]) {
      const run = afw(...name.split(" "), flag);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: afw ${name === "tools" ? "tools search" : name}`));
      expect(run.stdout).toContain("--help");
    }
  });

  it("answers `afw help <command>` like `afw <command> --help`", () => {
    expect(afw("help", "route").stdout).toBe(afw("route", "--help").stdout);
    expect(afw("help", "tools").stdout).toBe(afw("tools", "search", "-h").stdout);
  });

  it("exits 2 with one clear line for unknown commands, subcommands, options and stray arguments", () => {
    for (const args of [["frobnicate"], ["tools", "find"], ["serve", "--frob"], ["serve", "extra"], ["demo", "now"], ["help", "frob"], ["__proto__"]]) {
      const run = afw(...args);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/^afw: /);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(afw("frobnicate").stderr).toMatch(/unknown command 'frobnicate'.*afw help/);
  });

  it("is publishable: public, with bin afw pointing at the built file, engines, files, licence and repository", () => {
    const pkg = manifest as unknown as Record<string, unknown>;
    expect(pkg["private"]).toBeUndefined();
    expect(manifest.bin).toEqual({ afw: "./dist/cli.js" });
    expect(readFileSync(cli, "utf8").startsWith("#!/usr/bin/env node")).toBe(true);
    expect(pkg).toMatchObject({ license: "MIT", publishConfig: { access: "public" }, engines: { node: expect.any(String) }, files: expect.arrayContaining(["README.md"]) });
    expect(pkg["repository"]).toMatchObject({ directory: "apps/gateway" });
  });
});
