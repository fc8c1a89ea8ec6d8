import { describe, expect, it } from "vitest";
import { takeOldest } from "./oldest-entry.js";

/** The reference: a fresh iterator's first entry. */
function reference<K, V>(map: Map<K, V>): [K, V] | undefined {
  const first = map.entries().next();
  if (first.done) return undefined;
  map.delete(first.value[0]);
  return first.value;
}

describe("takeOldest", () => {
  it("takes entries in insertion order and nothing from an empty map", () => {
    const map = new Map([["a", 1], ["b", 2]]);
    expect(takeOldest(map)).toEqual(["a", 1]);
    expect(takeOldest(map)).toEqual(["b", 2]);
    expect(takeOldest(map)).toBeUndefined();
    map.set("c", 3);
    expect(takeOldest(map)).toEqual(["c", 3]);
    expect(map.size).toBe(0);
  });

  it("follows re-inserts (LRU touches), deletes elsewhere and clear() like a fresh iterator", () => {
    const ours = new Map<number, number>();
    const theirs = new Map<number, number>();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let step = 0; step < 20_000; step++) {
      const op = random(100);
      const key = random(300);
      for (const map of [ours, theirs]) {
        if (op < 50) {
          map.delete(key);
          map.set(key, step);
        } else if (op < 60) map.delete(key);
        else if (op === 60 && step % 7 === 0) map.clear();
      }
      if (op >= 61 || ours.size > 200) expect(takeOldest(ours)).toEqual(reference(theirs));
      expect([...ours]).toEqual([...theirs]);
    }
  });
});
