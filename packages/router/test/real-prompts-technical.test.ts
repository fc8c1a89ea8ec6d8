import { describe, expect, it } from "vitest";
import { technicalPrompts } from "../scripts/real-prompts-technical.mjs";

const question = (i: number, tag = "python", text = `How do I fix error ${i} in my code?`) =>
  JSON.stringify({ questionId: `q${i}`, question: `${text}\n\n\n\n\`\`\`\nx = ${i}\n\`\`\``, questionMetadata: { tag, type: "debugging" } });
const task = (i: number) => JSON.stringify({ task_id: i + 1, text: `Write a python function to do task ${i}.`, test_list: [`assert f(${i}) == ${i} `, "assert f(0) == 0"] });
const words = (i: number) => `Find all files named "log${i}" under the current directory tree and print their sizes in bytes`;

/** A fake mirror: 30 StackEval questions (two of them data questions), 41 MBPP tasks, 401 NL2Bash lines. */
function fakeShow(repo: string): string {
  if (repo.includes("stack-eval")) {
    return [question(0), question(1, "sql"), question(2, "python", "Why is my pandas merge slow?"), ...Array.from({ length: 27 }, (_, i) => question(i + 3))].join("\n");
  }
  if (repo.includes("ASE")) return Array.from({ length: 41 }, (_, i) => task(i)).join("\n");
  return [...Array.from({ length: 400 }, (_, i) => words(i)), "Print the date"].join("\n");
}

describe("technicalPrompts", () => {
  const items = technicalPrompts(fakeShow, []);

  it("samples every 14th StackEval question after leaving out data tags and data tools, blank runs collapsed", () => {
    const stack = items.filter((it) => it.id.startsWith("stackeval-"));
    expect(stack.map((it) => it.id)).toEqual(["stackeval-q0", "stackeval-q16"]);
    expect(stack[0]?.question).toBe("How do I fix error 0 in my code?\n\n```\nx = 0\n```");
  });

  it("samples every 20th MBPP task and pastes the tests of every second one", () => {
    const mbpp = items.filter((it) => it.id.startsWith("mbpp-"));
    expect(mbpp.map((it) => it.id)).toEqual(["mbpp-1", "mbpp-21", "mbpp-41"]);
    expect(mbpp[0]?.question).toBe("Write a python function to do task 0.");
    expect(mbpp[1]?.question).toBe("Write a python function to do task 20.\n\nassert f(20) == 20\nassert f(0) == 0");
  });

  it("keeps NL2Bash descriptions of at least 12 words, every 200th", () => {
    expect(items.filter((it) => it.id.startsWith("nl2bash-")).map((it) => it.question)).toEqual([words(0), words(200)]);
  });

  it("labels every item technical-analysis and drops texts already in the training file", () => {
    expect(new Set(items.map((it) => it.intent))).toEqual(new Set(["technical-analysis"]));
    const again = technicalPrompts(fakeShow, [{ question: "write a python  function to do task 0." }]);
    expect(again.map((it) => it.id)).not.toContain("mbpp-1");
    expect(again).toHaveLength(items.length - 1);
  });
});
