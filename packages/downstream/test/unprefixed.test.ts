// `namespace: false`: a server's tools keep their own names; the first server wins a shared name;
// namespaced names of such a server are not resolved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DownstreamManager } from "../src/index.js";
import { createManagerTracker, firstText, rejectionOf, stdioFixture } from "./helpers.js";

const { create, stopAll } = createManagerTracker();

describe("servers with namespace: false", () => {
  let manager: DownstreamManager;

  beforeAll(async () => {
    manager = create({
      servers: [
        stdioFixture("plain", { namespace: false, allow: ["echo", "add"] }),
        stdioFixture("shadowed", { namespace: false, allow: ["echo", "pid"] }),
        stdioFixture("spaced", { allow: ["echo"] }),
      ],
    });
    await manager.start();
  });
  afterAll(stopAll);

  it("lists their tools under their own names, once each, beside namespaced ones", () => {
    const names = manager.listTools().map((tool) => `${tool.server}:${tool.namespacedName}`);
    expect(names.sort()).toEqual(["plain:add", "plain:echo", "shadowed:pid", "spaced:spaced__echo"]);
  });

  it("calls a tool by its own name on the first server that lists it", async () => {
    expect(firstText(await manager.callTool("echo", { text: "hi" }))).toBe("plain: hi");
    expect(manager.getTool("pid")?.server).toBe("shadowed");
    expect(firstText(await manager.callTool("spaced__echo", { text: "hi" }))).toBe("spaced: hi");
  });

  it("does not resolve a namespaced name of an unprefixed server", async () => {
    expect(manager.getTool("plain__echo")).toBeUndefined();
    expect((await rejectionOf(manager.callTool("plain__echo", { text: "hi" }))).code).toBe("TOOL_NOT_FOUND");
    expect((await rejectionOf(manager.callTool("nothing_like_it", {}))).code).toBe("TOOL_NOT_FOUND");
  });
});
