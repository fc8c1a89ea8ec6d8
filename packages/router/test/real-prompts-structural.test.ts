import { describe, expect, it } from "vitest";
import { FILE_NAMES, FLOWGPT, FLOWGPT_LABELS, parseFlowGptFile, STRUCTURAL_STEP, structuralPrompts } from "../scripts/real-prompts-structural.mjs";

const file = (title: string, prompt: string) => `\n\n# ${title} | [Start Chat](https://example.org)\nA description\n\n# Prompt\n\n\`\`\`\n${prompt}\n\`\`\`\n\n## Conversation\n\n**ASSISTANT**: Sure.\n`;

/** A fake mirror: every listed file holds a prompt naming its file. */
function fakeShow(repo: string, path: string, commit: string): string {
  expect(repo).toBe(FLOWGPT.repo);
  expect(commit).toBe(FLOWGPT.commit);
  const name = path.replace(/^gpts\/|\.md$/g, "");
  return file(`Title of ${name}`, `Please make a plan for ${name} &amp; more.`);
}

describe("parseFlowGptFile", () => {
  it("reads the title and the fenced prompt block, HTML entities decoded", () => {
    expect(parseFlowGptFile(file("Lesson Plan Generator", "Design a lesson plan on &quot;fractions&quot; &lt;grade 5&gt;."))).toEqual({
      title: "Lesson Plan Generator",
      prompt: 'Design a lesson plan on "fractions" <grade 5>.',
    });
  });

  it("returns undefined for a file without a prompt block", () => {
    expect(parseFlowGptFile("# Title\n\nNo prompt here.\n")).toBeUndefined();
  });
});

describe("structuralPrompts", () => {
  const items = structuralPrompts(fakeShow, []);
  const structural = FLOWGPT_LABELS["structural-thinking"] ?? [];

  it("lists only file names that match the pattern of the files read, each once", () => {
    const names = Object.values(FLOWGPT_LABELS).flat();
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(FILE_NAMES);
  });

  it("keeps every STRUCTURAL_STEP-th structural label and every label of the other intents", () => {
    const others = Object.entries(FLOWGPT_LABELS).filter(([intent]) => intent !== "structural-thinking").flatMap(([, names]) => names);
    expect(items.filter((it) => it.intent === "structural-thinking").map((it) => it.id)).toEqual(structural.filter((_, i) => i % STRUCTURAL_STEP === 0).map((n) => `flowgpt-${n}`));
    expect(items.filter((it) => it.intent !== "structural-thinking")).toHaveLength(others.length);
    expect(items[0]?.question).toBe(`Please make a plan for ${structural[0]} & more.`);
  });

  it("fails when a prompt is already in the training file", () => {
    expect(() => structuralPrompts(fakeShow, [{ question: `please make a plan for  ${structural[0]} & more.` }])).toThrow(/repeats a prompt/);
  });

  it("fails when a listed file has no prompt block", () => {
    expect(() => structuralPrompts(() => "# Title\n", [])).toThrow(/no prompt block/);
  });
});
