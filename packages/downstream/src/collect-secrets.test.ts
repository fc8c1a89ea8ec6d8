import { describe, expect, it } from "vitest";
import { collectSecrets } from "./collect-secrets.js";

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
