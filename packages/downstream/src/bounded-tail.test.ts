import { describe, expect, it } from "vitest";
import { BoundedTail } from "./bounded-tail.js";

describe("BoundedTail", () => {
  it("keeps only the last maxBytes and counts everything", () => {
    const tail = new BoundedTail(10);
    tail.append("hello ");
    tail.append("world, ");
    tail.append("again");
    expect(tail.text()).toBe("rld, again");
    expect(tail.totalBytes).toBe(18);
  });

  it("handles a single chunk larger than the bound", () => {
    const tail = new BoundedTail(4);
    tail.append(Buffer.from("0123456789"));
    expect(tail.text()).toBe("6789");
    tail.append("ab");
    expect(tail.text()).toBe("89ab");
  });

  it("returns the last non-empty lines", () => {
    const tail = new BoundedTail(1000);
    tail.append("one\ntwo\n\nthree\n");
    expect(tail.lastLines(2)).toEqual(["two", "three"]);
  });

  it("keeps nothing with a zero bound", () => {
    const tail = new BoundedTail(0);
    tail.append("abc");
    expect(tail.text()).toBe("");
    expect(tail.totalBytes).toBe(3);
  });

  it("stays bounded under a flood", () => {
    const tail = new BoundedTail(1024);
    for (let i = 0; i < 10_000; i++) tail.append(`line ${i}\n`);
    expect(Buffer.byteLength(tail.text())).toBeLessThanOrEqual(1024);
    expect(tail.lastLines(1)).toEqual(["line 9999"]);
  });
});
