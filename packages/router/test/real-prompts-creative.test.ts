import { describe, expect, it } from "vitest";
import { beginsInEnglish, CREATIVE_LABEL_STEP, CREATIVE_LABELS, creativePrompts, filesOfSections, sampleFlowGptSections } from "../scripts/real-prompts-creative.mjs";
import { FILE_NAMES, FLOWGPT, FLOWGPT_LABELS } from "../scripts/real-prompts-structural.mjs";

const file = (title: string, prompt: string) => `\n\n# ${title} | [Start Chat](https://example.org)\nA description\n\n# Prompt\n\n\`\`\`\n${prompt}\n\`\`\`\n`;
const PAGE = ["## Creative Prompts", "", "* [story](#story)", "## story", "", "- [A](./gpts/a-story.md) x", "- [B](./gpts/b-lesson-plan.md) x", "- [C](./gpts/c-poem.md) x", "## art", "- [D](./gpts/d-image.md) x", "## story", "- [A again](./gpts/a-story.md) x"].join("\n");

/** A fake mirror: the page above; every file holds a prompt naming it, c-poem's prompt is in Chinese. */
function fakeShow(repo: string, path: string, commit: string): string {
  expect(repo).toBe(FLOWGPT.repo);
  expect(commit).toBe(FLOWGPT.commit);
  if (path.endsWith("Creative.md")) return PAGE;
  const name = path.replace(/^gpts\/|\.md$/g, "");
  return file(`Title of ${name}`, name === "c-poem" ? "写一首关于秋天的诗，要求押韵。" : `Please write a story for ${name} &amp; me.`);
}

describe("filesOfSections", () => {
  it("lists the files of the wanted sections in page order, each once", () => {
    expect(filesOfSections(() => PAGE, { Creative: ["story"] })).toEqual(["a-story", "b-lesson-plan", "c-poem"]);
    expect(filesOfSections(() => PAGE, { Creative: ["art"] })).toEqual(["d-image"]);
  });
});

describe("beginsInEnglish", () => {
  it("accepts English prompts and refuses others", () => {
    expect(beginsInEnglish("Write a short poem about the sea for my grandmother.")).toBe(true);
    expect(beginsInEnglish("写一首关于秋天的诗，要求押韵。")).toBe(false);
    expect(beginsInEnglish("Escribe un poema corto sobre el mar para mi abuela.")).toBe(false);
  });
});

describe("sampleFlowGptSections", () => {
  it("leaves out files the fifth round read, and prompts not in English, then takes every step-th", () => {
    expect("b-lesson-plan").toMatch(FILE_NAMES);
    expect(sampleFlowGptSections(fakeShow, { Creative: ["story"] }, 1)).toEqual(["a-story"]);
    expect(sampleFlowGptSections(fakeShow, { Creative: ["story", "art"] }, 2)).toEqual(["a-story"]);
  });
});

describe("creativePrompts", () => {
  const everything = Object.values(CREATIVE_LABELS).flat();

  it("lists each file once, none read in the fifth round", () => {
    expect(new Set(everything).size).toBe(everything.length);
    const fifth = new Set(Object.values(FLOWGPT_LABELS).flat());
    for (const name of everything) {
      expect(name).not.toMatch(FILE_NAMES);
      expect(fifth.has(name)).toBe(false);
    }
  });

  it("keeps every CREATIVE_LABEL_STEP-th creative label and every label of the other intents, entities decoded", () => {
    const items = creativePrompts(fakeShow, []);
    const creative = CREATIVE_LABELS["creative-orientation"] ?? [];
    expect(items.filter((it) => it.intent === "creative-orientation").map((it) => it.id)).toEqual(creative.filter((_, i) => i % CREATIVE_LABEL_STEP === 0).map((n) => `flowgpt-${n}`));
    expect(items.length).toBe(everything.length - creative.length + Math.ceil(creative.length / CREATIVE_LABEL_STEP));
    expect(items[0]?.question).toBe(`Please write a story for ${creative[0]} & me.`);
  });

  it("fails on a file outside the sample, a repeated prompt or a file without a prompt block", () => {
    expect(() => creativePrompts(fakeShow, [], ["a-story"])).toThrow(/not among the sampled files/);
    expect(() => creativePrompts(fakeShow, [{ question: `please write a story for  ${CREATIVE_LABELS["creative-orientation"]?.[0]} & me.` }])).toThrow(/repeats a prompt/);
    expect(() => creativePrompts(() => "# Title\n", [])).toThrow(/no prompt block/);
  });
});
