import { describe, expect, it } from "vitest";
import { REDACTED } from "./redact.js";
import { createRedactor, redactSecrets } from "./index.js";

const KEY = "lf-Zx9/Qm+4kT7pW2sR8vY1";
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

describe("createRedactor", () => {
  const redactor = createRedactor([KEY, "short"]);

  it.each([
    ["raw", `key ${KEY} refused`],
    ["URL-encoded", `GET /x?k=${encodeURIComponent(KEY)}`],
    ["JSON-escaped", JSON.stringify({ k: `${KEY}"` }).replace(/"}$/, "")],
    ["base64", `echo: ${b64(KEY)}`],
    ["base64url", `echo: ${b64url(KEY)}`],
    ["base64 of Bearer <key>", `sent ${b64(`Bearer ${KEY}`)}`],
    ["base64 of user:<key>", `Authorization: Basic ${b64(`user:${KEY}`)}`],
    ["base64url of x-<key> (offset 2)", `t=${b64url(`xy${KEY}`)}`],
    ["base64 inside JSON", JSON.stringify({ error: `bad token ${b64(`{"apiKey":"${KEY}"}`)}` })],
  ])("removes the %s form", (_form, text) => {
    const out = redactor.redact(text, { generic: false });
    expect(out).toContain(REDACTED);
    for (const leak of [KEY, encodeURIComponent(KEY), b64(KEY).slice(0, 24), b64url(KEY).slice(0, 24)]) expect(out).not.toContain(leak);
  });

  it("catches base64 of the key at each of the three byte offsets", () => {
    for (const prefix of ["", "a", "ab", "abc", "Bearer ", "user:"]) {
      for (const encode of [b64, b64url]) {
        const encoded = encode(`${prefix}${KEY}`);
        const out = redactor.redact(encoded, { generic: false });
        expect(out, `${prefix} ${encoded}`).toContain(REDACTED);
        // Only a few characters around the secret's bytes stay (they also depend on the neighbours).
        expect(out.replace(REDACTED, "").length).toBeLessThanOrEqual(Math.ceil(((prefix.length + 1) * 8) / 6) + 4);
      }
    }
  });

  it("ignores short secrets, leaves ordinary text alone, and redacts added secrets and values", () => {
    expect(redactor.size).toBe(1);
    const text = "process exited with code 1 (stderr: cannot open /tmp/data.json)";
    expect(redactor.redact(text)).toBe(text);
    redactor.addSecrets("added-later-secret");
    expect(redactor.redactValue({ a: [b64("added-later-secret")], n: 1, e: new Error("x added-later-secret") })).toEqual({
      a: [expect.stringContaining(REDACTED)],
      n: 1,
      e: { name: "Error", message: `x ${REDACTED}` },
    });
  });
});

describe("redactSecrets (generic shapes)", () => {
  it.each([
    ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc", `Authorization: Bearer ${REDACTED}`],
    ["GET /x?api_key=12345678&q=1", `GET /x?api_key=${REDACTED}&q=1`],
    ['{"password": "hunter22"}', `{"password": "${REDACTED}"}`],
    ['"apiKey": "zzzzzzzzzz"', `"apiKey": "${REDACTED}"`],
    ["GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123", `GITHUB_TOKEN=${REDACTED}`],
    ["key sk-abcdefghijklmnopqrstuv", `key ${REDACTED}`],
    ["connect to redis://user:hunter2@host:6379 failed", `connect to redis://user:${REDACTED}@host:6379 failed`],
    ["AUTH default s3cretpass", `AUTH ${REDACTED}`],
  ])("%s", (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it("is linear on long hostile input", () => {
    const hostile = `${"token=".repeat(20_000)}${"a".repeat(20_000)}`;
    expect(redactSecrets(hostile, [KEY]).length).toBeGreaterThan(0);
  });
});
