import { describe, expect, it } from "vitest";
import { REDACTED, collectSecrets, redactSecrets } from "./redact.js";

describe("redactSecrets", () => {
  it("replaces configured literal secrets everywhere", () => {
    expect(redactSecrets("token abc123xyz failed; again abc123xyz", ["abc123xyz"])).toBe(`token ${REDACTED} failed; again ${REDACTED}`);
  });

  it("ignores literals too short to be secrets", () => {
    expect(redactSecrets("prod is down", ["prod"])).toBe("prod is down");
  });

  it("redacts common secret shapes without configuration", () => {
    expect(redactSecrets("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc")).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactSecrets("GET /x?api_key=12345678&q=1")).toBe(`GET /x?api_key=${REDACTED}&q=1`);
    expect(redactSecrets('{"password": "hunter22"}')).toBe(`{"password": "${REDACTED}"}`);
    expect(redactSecrets("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123")).toBe(`GITHUB_TOKEN=${REDACTED}`);
    expect(redactSecrets("key sk-abcdefghijklmnopqrstuv")).toBe(`key ${REDACTED}`);
    expect(redactSecrets("https://user:s3cr3tpass@example.com/mcp")).toBe(`https://user:${REDACTED}@example.com/mcp`);
  });

  it("leaves ordinary text alone", () => {
    const text = "process exited with code 1 (stderr: cannot open /tmp/data.json)";
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("collectSecrets", () => {
  it("collects env and header values, bearer tokens and URL credentials", () => {
    const secrets = collectSecrets({
      env: { GITHUB_TOKEN: "ghp_secretvalue", SHORT: "abc" },
      headers: { Authorization: "Bearer tokentoken123" },
      url: "https://me:p%40ssword@example.com/mcp?key=querysecret",
    });
    expect(secrets).toEqual(expect.arrayContaining(["ghp_secretvalue", "Bearer tokentoken123", "tokentoken123", "p@ssword", "querysecret"]));
    expect(secrets).not.toContain("abc");
  });
});
