import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AfwError, cosineSimilarity } from "@afw/contracts";
import { createUseEmbedder } from "./index.js";

// Loading the model is seconds of CPU, far more on a loaded machine: it happens once, in beforeAll, under a
// generous bound (a hang still fails), so the tests' own time bounds cover only the embedding they test.
const MODEL_LOAD_MS = 240_000;

describe("createUseEmbedder({ thread: 'worker' }) (real model on a worker thread)", { timeout: 120_000 }, () => {
  const worker = createUseEmbedder({ thread: "worker" });
  const main = createUseEmbedder();
  beforeAll(() => Promise.all([worker.warmUp(), main.warmUp()]), MODEL_LOAD_MS);
  afterAll(() => worker.close());

  it("gives the main thread's vectors and keeps the event loop free while it embeds", async () => {
    const texts = ["my program crashes with a null pointer exception", "", "Write me a short poem about autumn leaves"];
    const [fromWorker, fromMain] = await Promise.all([worker.embed(texts), main.embed(texts)]);
    texts.forEach((_, i) => expect(cosineSimilarity(fromWorker[i]!, fromMain[i]!)).toBeGreaterThanOrEqual(0.9999));
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
    // The worker and its queue are shared by the process: wait until what earlier tests asked is answered (FIFO).
    await worker.embed(["the queue is empty once this is answered"]);
    const full = Array.from({ length: 64 }, (_, i) => worker.embed([`sentence ${i} that takes one of the 64 slots`]));
    await expect(worker.embed(["one too many"])).rejects.toMatchObject({ code: "RATE_LIMITED" });
    await Promise.all(full);
    const controller = new AbortController();
    const waiting = worker.embed(["aborted while waiting"], controller.signal);
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
  }, MODEL_LOAD_MS); // the restarted worker loads the model again
});
