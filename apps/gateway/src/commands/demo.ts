import type { CommandIo } from "./io.js";

/** `afw demo`: not available until the gateway server lands (issue: @afw/server and apps/gateway). */
export async function demoCommand(_options: unknown, io?: CommandIo): Promise<number> {
  const out = io ?? (_options as CommandIo);
  return out.fail("'demo' is not available yet: the gateway server is being built");
}
