import { describe, expect, it } from "vitest";
import { fuseStepRankings } from "./step-fusion.js";

const list = (...ids: string[]) => ids.map((id) => ({ id }));

describe("fuseStepRankings", () => {
  it("gives a step's unique first tool a slot before a second tool that several lists agree on", () => {
    const whole = list("a", "shared", "w3");
    const stepOne = list("a", "shared");
    const stepTwo = list("unique", "x", "shared");
    const fused = fuseStepRankings([whole, stepOne, stepTwo], 20, 10).map((entry) => entry.item.id);
    // "shared" is second in two lists and third in one: more fused score than "unique", but a later round
    expect(fused.slice(0, 3)).toEqual(["a", "unique", "shared"]);
  });

  it("leads with the whole task's first tool and orders a round by agreement between lists", () => {
    const fused = fuseStepRankings([list("w", "b", "c"), list("c", "b"), list("d", "b")], 20, 10);
    expect(fused.map((entry) => entry.item.id)).toEqual(["w", "c", "d", "b"]);
    // each tool is tagged with the list that ranks it best, and that rank
    expect(fused.find((entry) => entry.item.id === "c")).toMatchObject({ list: 1, rank: 0 });
    expect(fused.find((entry) => entry.item.id === "b")).toMatchObject({ rank: 1 });
  });

  it("reads only the leading tools of each list and returns at most the limit", () => {
    expect(fuseStepRankings([list("a", "b", "c"), list("d", "e")], 1, 10).map((entry) => entry.item.id)).toEqual(["a", "d"]);
    expect(fuseStepRankings([list("a", "b", "c"), list("d", "e")], 20, 3)).toHaveLength(3);
  });
});
