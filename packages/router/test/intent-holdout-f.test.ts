import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { INTENTS } from "@afw/contracts";
import { exemplarTexts, findOverlaps, foldQuestion, overlapSources, wordJaccard } from "../scripts/check-overlap-f.mjs";

// Set F (data/HELDOUT-SETS-2026-11-30.md) is checked here by string comparison only: no classifier runs on it.
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const setF = JSON.parse(readFileSync(join(packageRoot, "eval", "intent-holdout-f.json"), "utf8")) as Record<string, unknown>[];

describe("overlap check helpers (scripts/check-overlap-f.mjs)", () => {
  it("folds case, accents, punctuation and spacing", () => {
    expect(foldQuestion("  ¿Qué   DICE el acta?! ")).toBe("que dice el acta");
    expect(foldQuestion("Café, s'il-vous-plaît")).toBe("cafe s il vous plait");
  });
  it("measures word Jaccard on the folded word sets", () => {
    expect(wordJaccard("Write a poem", "write a POEM!")).toBe(1);
    expect(wordJaccard("a b c d", "a b x y")).toBeCloseTo(2 / 6);
    expect(wordJaccard("", "")).toBe(0);
  });
  it("reports exact and near repeats by the candidate's id and the source's name, never the source's text", () => {
    const sources = [{ name: "S", texts: ["Tell me a joke about cats.", "Summarise the attached report"] }];
    const candidates = [
      { id: "x1", question: "tell me a JOKE about cats" },
      { id: "x2", question: "Summarise the attached annual report" },
      { id: "x3", question: "Convert this HTML table into Markdown." },
    ];
    expect(findOverlaps(candidates, sources)).toEqual([
      { id: "x1", kind: "exact", score: 1, source: "S" },
      { id: "x2", kind: "jaccard", score: 0.8, source: "S" },
    ]);
  });
  it("reads every question of the exemplar file", () => {
    expect(exemplarTexts("conversation:\n  - Hello there\n  - How are you?\ndata-processing:\n  - Sum this column\n")).toEqual(["Hello there", "How are you?", "Sum this column"]);
  });
});

describe("held-out set F (eval/intent-holdout-f.json)", () => {
  it("has the dev set's format: 300 items, 50 per intent, 15 easy / 20 medium / 15 hard each, unique ids and questions", () => {
    expect(setF).toHaveLength(300);
    for (const item of setF) expect(Object.keys(item).sort()).toEqual(["difficulty", "id", "intent", "question"]);
    expect(new Set(setF.map((i) => i["id"])).size).toBe(300);
    expect(new Set(setF.map((i) => foldQuestion(String(i["question"])))).size).toBe(300);
    for (const intent of INTENTS) {
      const items = setF.filter((i) => i["intent"] === intent);
      expect(items.map((i) => i["difficulty"]).sort()).toEqual([...Array(15).fill("easy"), ...Array(15).fill("hard"), ...Array(20).fill("medium")]);
    }
  });
  it("repeats or resembles (word Jaccard >= 0.5) no exemplar, dev item, tuning item (A-E) or real training prompt", () => {
    const { sources, missing } = overlapSources(packageRoot);
    // The exemplars and sets A-E are in git; the dev set and the real prompts are compared when their folders hold them.
    expect(sources.map((s) => s.name)).toEqual(expect.arrayContaining(["data/intent-exemplars.yaml", "eval/intent-holdout.json", "eval/intent-holdout-e.json"]));
    if (missing.length > 0) console.warn(`[@afw/router] set F not compared with: ${missing.join(", ")} (set AFW_SHARED_DATA; data/HELDOUT-SETS-2026-11-30.md)`);
    expect(findOverlaps(setF as { id: string; question: string }[], sources)).toEqual([]);
  });
});
