import { afterAll, describe, expect, it } from "vitest";
import { AfwError } from "@afw/contracts";
import { createUseEmbedder } from "./index.js";
import { dot } from "./normalize.js";

describe("createUseEmbedder({ thread: 'worker' }) (real model on a worker thread)", () => {
  const worker = createUseEmbedder({ thread: "worker" });
  afterAll(() => worker.close());

  it("gives the main thread's vectors and keeps the event loop free while it embeds", async () => {
    const texts = ["my program crashes with a null pointer exception", "", "Write me a short poem about autumn leaves"];
    const [fromWorker, fromMain] = await Promise.all([worker.embed(texts), createUseEmbedder().embed(texts)]);
    texts.forEach((_, i) => expect(dot(fromWorker[i]!, fromMain[i]!)).toBeGreaterThanOrEqual(0.9999));
    await worker.warmUp();
    // Timers fire while a batch is embedded on the worker: the event loop was not blocked for it.
    let ticks = 0;
    const interval = setInterval(() => ticks++, 0);
    await worker.embed(Array.from({ length: 64 }, (_, i) => `sentence number ${i} about routing questions to the right flow`));
    clearInterval(interval);
    expect(ticks).toBeGreaterThan(1);
    expect(await worker.embed([])).toEqual([]);
  });

  it("rejects at once when its queue is full, and aborts a waiting request", async () => {
    const small = createUseEmbedder({ thread: "worker", maxQueue: 1 });
    const first = small.embed(["one sentence that takes the only slot"]);
    await expect(small.embed(["a second one"])).rejects.toMatchObject({ code: "RATE_LIMITED" });
    await first;
    const controller = new AbortController();
    const waiting = small.embed(["aborted while waiting"], controller.signal);
    controller.abort();
    const error = await waiting.catch((e: unknown) => e);
    expect(AfwError.isInstance(error) && error.code).toBe("ABORTED");
  });

  it("close() stops the worker; requests still waiting reject and the next embed starts a new one", async () => {
    const pending = worker.embed(["waiting while the worker stops"]).catch((e: unknown) => e);
    await worker.close();
    const error = await pending;
    expect(AfwError.isInstance(error) && error.code).toBe("ABORTED");
    const [vector] = await worker.embed(["after a restart"]);
    expect(vector!.length).toBe(512);
  });
});
