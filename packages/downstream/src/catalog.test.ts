import { describe, expect, it } from "vitest";
import { exposePromptResult, namespaceResourceUri, parseNamespacedResourceUri } from "./catalog.js";

describe("namespaced resource URIs", () => {
  it.each(["file:///tmp/a b.txt", "demo://resource/dynamic/text/{resourceId}", "https://example.test/x?y=1#z", "urn:isbn:0451450523"])("round-trips %s", (uri) => {
    const namespaced = namespaceResourceUri("files", uri);
    expect(namespaced.startsWith("downstream://files/")).toBe(true);
    expect(parseNamespacedResourceUri(namespaced)).toEqual({ server: "files", uri });
  });

  it.each(["file:///tmp/a", "downstream://", "downstream://files", "downstream://files/", "downstream:///x"])("refuses %s", (uri) => {
    expect(parseNamespacedResourceUri(uri)).toBeUndefined();
  });

  it("namespaces embedded resources and resource links of a prompt", () => {
    const result = exposePromptResult({ name: "srv", namespace: true }, {
      messages: [
        { role: "user", content: { type: "resource", resource: { uri: "demo://a", text: "A" } } },
        { role: "user", content: { type: "resource_link", uri: "demo://b", name: "b" } },
        { role: "user", content: { type: "text", text: "plain" } },
      ],
    });
    expect(result.messages.map((message) => JSON.stringify(message.content))).toEqual([
      JSON.stringify({ type: "resource", resource: { uri: "downstream://srv/demo://a", text: "A" } }),
      JSON.stringify({ type: "resource_link", uri: "downstream://srv/demo://b", name: "b" }),
      JSON.stringify({ type: "text", text: "plain" }),
    ]);
  });
});
