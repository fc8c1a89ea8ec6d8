import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AfwError } from "@afw/contracts";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { CONFIG_ENV_VARIABLES, loadGatewayConfig, MAX_CONFIG_FILE_BYTES, parseGatewayConfig } from "./config-loader.js";

// Property-based fuzzing of the configuration loader: any YAML text and any environment either
// load or fail with a typed CONFIG_INVALID whose message never quotes a secret; never another
// exception, an unhandled rejection or a hang.

const RUNS = Number(process.env["AFW_FUZZ_RUNS"] ?? 150);
const SECRET = "afw-test-secret-config-fuzz-0001";
const dir = mkdtempSync(join(tmpdir(), "afw-config-fuzz-"));
let fileCounter = 0;
const unexpected: unknown[] = [];
const onUnexpected = (error: unknown) => unexpected.push(error);
beforeAll(() => {
  process.on("unhandledRejection", onUnexpected);
  process.on("uncaughtException", onUnexpected);
});
afterAll(() => {
  process.off("unhandledRejection", onUnexpected);
  process.off("uncaughtException", onUnexpected);
  rmSync(dir, { recursive: true, force: true });
  expect(unexpected).toEqual([]);
});

function write(text: string): string {
  const file = join(dir, `config-${++fileCounter}.yaml`);
  writeFileSync(file, text);
  return file;
}

/** Loads and checks the outcome: a config, or CONFIG_INVALID without the secret in it. */
async function loadChecked(text: string, env: Record<string, string | undefined> = {}): Promise<"ok" | "invalid"> {
  try {
    await loadGatewayConfig(write(text), env);
    return "ok";
  } catch (error) {
    expect(AfwError.isInstance(error), `not an AfwError: ${String(error)}`).toBe(true);
    expect((error as AfwError).code).toBe("CONFIG_INVALID");
    expect((error as AfwError).message).not.toContain(SECRET);
    expect(JSON.stringify((error as AfwError).details ?? {})).not.toContain(SECRET);
    return "invalid";
  }
}

const scalar = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(SECRET, "${FLOWISE_API_KEY}", "${UNSET_VARIABLE}", "${X:-fallback}", "http://127.0.0.1:3000", "redis://127.0.0.1:6379", "0.0.0.0", "*", "~", "null", "yes"),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const CONFIG_KEYS = ["server", "backends", "backendConnect", "http", "routing", "cache", "sessions", "logging", "metrics", "redis", "chroma", "tools", "workflows", "downstream", "dashboard", "analytics", "__proto__", "constructor"];
const SUB_KEYS: string[] = ["id", "kind", "baseURL", "apiKey", "host", "port", "authTokens", "allowedHosts", "enabled", "url", "level", "ttlSeconds", "servers", "transport", "command", "token", "tenant", "origins"];
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...SUB_KEYS), fc.string({ maxLength: 8 })), tie("v"), { maxKeys: 4 }),
  ),
})).v;
const configObject = fc.dictionary(fc.constantFrom(...CONFIG_KEYS), value, { maxKeys: 5 });

/** A valid configuration to mutate. */
const VALID = {
  backends: [{ id: "flowise", kind: "flowise", baseURL: "http://127.0.0.1:3000", apiKey: SECRET }],
  http: { port: 0, authTokens: [{ token: SECRET, name: "ci", tenant: "acme" }] },
  backendConnect: { allowedHosts: ["*.flows.internal"] },
};

describe("fuzzing the configuration loader", () => {
  it("loads the valid base configuration", async () => {
    expect(await loadChecked(stringify(VALID))).toBe("ok");
  });

  it("any YAML object built from config-like keys: a config or CONFIG_INVALID", { timeout: 300_000 }, async () => {
    const outcomes = { ok: 0, invalid: 0 };
    await fc.assert(
      fc.asyncProperty(configObject, async (config) => {
        outcomes[await loadChecked(stringify(config))]++;
      }),
      { numRuns: RUNS, seed: 11 },
    );
    expect(outcomes.invalid).toBeGreaterThan(0);
  });

  it("mutations of a valid configuration: a config or CONFIG_INVALID", { timeout: 300_000 }, async () => {
    const outcomes = { ok: 0, invalid: 0 };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("backends", "http", "backendConnect", "logging", "downstream"), fc.constantFrom(...SUB_KEYS), value, async (section, key, replacement) => {
        const config = structuredClone(VALID) as Record<string, unknown>;
        const target = config[section];
        if (Array.isArray(target)) (target[0] as Record<string, unknown>)[key] = replacement;
        else config[section] = { ...(target as Record<string, unknown> | undefined), [key]: replacement };
        outcomes[await loadChecked(stringify(config))]++;
      }),
      { numRuns: RUNS, seed: 12 },
    );
    expect(outcomes.invalid).toBeGreaterThan(0);
  });

  it("arbitrary text (not necessarily YAML): a config or CONFIG_INVALID", { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: "binary", maxLength: 200 }), fc.constantFrom("{", "- - -", ": :", "&a [*a]", "!!js/function 'x'", "%YAML 9.9\n---\n", "key: [unclosed")), async (text) => {
        await loadChecked(`${text}\n# ${SECRET}`);
      }),
      { numRuns: RUNS, seed: 13 },
    );
  });

  it("environment overrides with any values: a config or CONFIG_INVALID, secrets never quoted", { timeout: 300_000 }, async () => {
    const names = Object.keys(CONFIG_ENV_VARIABLES);
    const base = write(stringify({ backends: [{ id: "flowise", kind: "flowise", baseURL: "${FLOWISE_BASE_URL:-http://127.0.0.1:3000}" }] }));
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...names), fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(SECRET, `${SECRET},short`, "http://[::1", "65536", "-1", "redis://x:y@127.0.0.1", " ", "")), { maxKeys: names.length }),
        async (env) => {
          try {
            await loadGatewayConfig(base, env);
          } catch (error) {
            expect(AfwError.isInstance(error)).toBe(true);
            expect((error as AfwError).code).toBe("CONFIG_INVALID");
            expect((error as AfwError).message).not.toContain(SECRET);
          }
        },
      ),
      { numRuns: RUNS, seed: 14 },
    );
  });

  it("hostile documents: huge, alias bombs, deep nesting, __proto__ keys", { timeout: 120_000 }, async () => {
    const huge = write(`server:\n  name: "${"x".repeat(MAX_CONFIG_FILE_BYTES)}"\n`);
    await expect(loadGatewayConfig(huge, {})).rejects.toMatchObject({ code: "CONFIG_INVALID", message: expect.stringContaining("larger than") });

    const laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++) laughs.push(`${"b".repeat(i)}: &${"a".repeat(i + 1)} [${Array(10).fill(`*${"a".repeat(i)}`).join(", ")}]`);
    expect(await loadChecked(laughs.join("\n"))).toBe("invalid");

    expect(await loadChecked(`server: ${"[".repeat(10_000)}${"]".repeat(10_000)}`)).toBe("invalid");
    expect(await loadChecked(`server:${"\n".padEnd(2, " ")}${Array.from({ length: 200 }, (_, i) => `${" ".repeat(i * 2)}k${i}:`).join("\n")} 1`)).toBe("invalid");

    // A __proto__ key is refused, not turned into a prototype that smuggles settings in.
    const smuggled = await loadGatewayConfig(write("__proto__:\n  http:\n    host: 0.0.0.0\n"), {}).then(
      (config) => config.http.host,
      (error: unknown) => (error as AfwError).code,
    );
    expect(smuggled).toBe("CONFIG_INVALID");
    expect(() => parseGatewayConfig(JSON.parse('{"__proto__":{"http":{"host":"0.0.0.0"}}}'), { env: {} })).toThrow(/__proto__|Unrecognized/);
    expect(unexpected).toEqual([]);
  });
});
