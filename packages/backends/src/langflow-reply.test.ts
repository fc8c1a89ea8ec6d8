import { describe, expect, it } from "vitest";
import { extractLangflowAnswer, LangflowRunResponseSchema } from "./langflow-reply.js";

const wrap = (result: unknown, extra: unknown[] = []) => LangflowRunResponseSchema.parse({ session_id: "s", outputs: [{ inputs: { input_value: "q" }, outputs: [...extra, result] }] });

describe("extractLangflowAnswer", () => {
  it("reads results.message.text with the message id", () => {
    const reply = wrap({
      results: { message: { text_key: "text", data: { text: "Hello", id: "m-data" }, text: "Hello", sender: "Machine", id: "m-1" } },
      artifacts: { message: "Hello" },
      outputs: { message: { message: "Hello", type: "text" } },
      messages: [{ message: "Hello", component_id: "ChatOutput-1" }],
      component_id: "ChatOutput-1",
    });
    expect(extractLangflowAnswer(reply)).toEqual({ text: "Hello", messageId: "m-1" });
  });

  it("reads results.message.data.text when the message has no top-level text", () => {
    expect(extractLangflowAnswer(wrap({ results: { message: { data: { text: "From data", id: "d1" } } } }))?.text).toBe("From data");
  });

  it("reads outputs.message.message", () => {
    expect(extractLangflowAnswer(wrap({ results: {}, outputs: { message: { message: "From outputs", type: "text" } } }))?.text).toBe("From outputs");
  });

  it("reads messages[].message", () => {
    expect(extractLangflowAnswer(wrap({ messages: [{ message: "older" }, { message: "From messages", id: "x" }] }))).toMatchObject({ text: "From messages", messageId: "x" });
  });

  it("reads artifacts.message", () => {
    expect(extractLangflowAnswer(wrap({ results: {}, artifacts: { message: "From artifacts" }, messages: [] }))?.text).toBe("From artifacts");
  });

  it("reads a text output of a non-chat component", () => {
    expect(extractLangflowAnswer(wrap({ results: { text: { text: "Text output" } }, component_id: "TextOutput-1" }))?.text).toBe("Text output");
  });

  it("prefers the Chat Output component over other outputs", () => {
    const reply = wrap({ results: { message: { text: "chat answer" } }, component_id: "ChatOutput-9" }, [{ results: { text: { text: "debug text" } }, component_id: "TextOutput-1" }]);
    expect(extractLangflowAnswer(reply)?.text).toBe("chat answer");
  });

  it("skips null outputs and returns undefined when nothing carries text", () => {
    expect(extractLangflowAnswer(LangflowRunResponseSchema.parse({ session_id: "s", outputs: [{ inputs: {}, outputs: [null] }] }))).toBeUndefined();
    expect(extractLangflowAnswer(LangflowRunResponseSchema.parse({ outputs: [] }))).toBeUndefined();
  });

  it("rejects a reply whose outputs are not a list", () => {
    expect(LangflowRunResponseSchema.safeParse({ session_id: "s", outputs: "none" }).success).toBe(false);
  });
});
