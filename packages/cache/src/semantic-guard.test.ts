import { describe, expect, it } from "vitest";
import { NEAR_MISS_PAIRS, PARAPHRASE_PAIRS } from "@afw/testing";
import { questionSpecifics, questionsAgree } from "./semantic-guard.js";

describe("semantic cache guard", () => {
  it("keeps apart every near-miss pair (a number, a name or a negation differs)", () => {
    const agreeing = NEAR_MISS_PAIRS.filter(([a, b]) => questionsAgree(a, b) || questionsAgree(b, a));
    expect(agreeing).toEqual([]);
  });

  it("lets paraphrases with the same specifics share an answer", () => {
    const rejected = PARAPHRASE_PAIRS.filter(([a, b]) => !questionsAgree(a, b));
    expect(rejected).toEqual([]);
  });

  it("extracts numbers, names, identifiers and negation", () => {
    expect(questionSpecifics("Why doesn't build 5521 of payments-api run on Windows with two CPUs?")).toEqual({
      numbers: ["5521", "#two2"],
      names: ["cpus", "payments-api", "windows"],
      negated: true,
    });
    expect(questionSpecifics("What's the plan? Paris or 'blue team'").names).toEqual(["blue team", "paris"]);
    expect(questionSpecifics("it is not not true").negated).toBe(false);
  });
});
