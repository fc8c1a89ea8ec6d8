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
