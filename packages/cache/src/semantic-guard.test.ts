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

  it("keeps apart near-miss pairs in any case (lower-case names, numbers, negations) and keeps lower-case paraphrases", () => {
    const nearMisses = [
      ["what does bob like", "what does alice like"],
      ["how old is tom", "how old is anna"],
      ["flights to rome on may 5", "flights to oslo on may 5"],
      ["is the shop open on sunday", "is the shop open on monday"],
      ["what does the error enoent mean", "what does the error eacces mean"],
      ["latest news about the lakers team", "latest news about the celtics team"],
      ["oslo weather tomorrow", "rome weather tomorrow"],
      ["how many seats does row twelve have", "how many seats does row twenty have"],
      ["does the job retry on failure", "does the job never retry on failure"],
      ["WHAT DOES CAROL THINK OF THE PLAN", "WHAT DOES DAVE THINK OF THE PLAN"],
    ];
    expect(nearMisses.filter(([a, b]) => questionsAgree(a!, b!) || questionsAgree(b!, a!))).toEqual([]);
    const paraphrases = [
      ["how do i speed up my laptop", "how can i speed up my laptop"],
      ["what are the pros of remote work", "what are the advantages of remote work"],
      ["show me the latest release notes", "show the latest release notes"],
      ...PARAPHRASE_PAIRS.map(([a, b]) => [a.toLowerCase(), b.toLowerCase()]),
    ];
    expect(paraphrases.filter(([a, b]) => !questionsAgree(a!, b!))).toEqual([]);
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
