import { describe, expect, it } from "vitest";
import { NAMESPACE_SEPARATOR, namespaceToolName, parseNamespacedToolName } from "./namespacing.js";

describe("namespaced tool names", () => {
  it("joins server and tool with the separator", () => {
    expect(NAMESPACE_SEPARATOR).toBe("__");
    expect(namespaceToolName("github", "merge_pull_request")).toBe("github__merge_pull_request");
  });

  it("splits at the first separator, so tool names may contain it", () => {
    expect(parseNamespacedToolName("files__read__text")).toEqual({ server: "files", tool: "read__text" });
    expect(parseNamespacedToolName(namespaceToolName("a-b", "c_d"))).toEqual({ server: "a-b", tool: "c_d" });
  });

  it("rejects names without a server or a tool part", () => {
    expect(parseNamespacedToolName("read_file")).toBeUndefined();
    expect(parseNamespacedToolName("__tool")).toBeUndefined();
    expect(parseNamespacedToolName("server__")).toBeUndefined();
    expect(parseNamespacedToolName("")).toBeUndefined();
  });
});

describe("namespaced tool names longer than 64 characters", () => {
  const longTool = "create_or_update_a_repository_ruleset_for_the_organisation_with_bypass_actors";

  it("are shortened to 64 characters with a stable hash suffix", () => {
    const name = namespaceToolName("github", longTool);
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^github__create_or_update_a_repository_ruleset_for_t_[0-9a-f]{12}$/);
    // same input, same name (no state, no randomness): stable across restarts
    expect(namespaceToolName("github", longTool)).toBe(name);
  });

  it("differ for tools (or servers) that share the kept prefix", () => {
    const a = namespaceToolName("github", `${longTool}_a`);
    const b = namespaceToolName("github", `${longTool}_b`);
    expect(a).not.toBe(b);
    expect(a.slice(0, 51)).toBe(b.slice(0, 51));
    // the hash covers the split too: "ab" + "__c…" vs "a" + "b__c…" style collisions are told apart
    expect(namespaceToolName("x".repeat(60), "tool")).not.toBe(namespaceToolName("x".repeat(59), "x__tool"));
  });

  it("leave names of 64 characters or fewer unchanged", () => {
    const tool = "t".repeat(64 - "srv__".length);
    expect(namespaceToolName("srv", tool)).toBe(`srv__${tool}`);
  });
});
