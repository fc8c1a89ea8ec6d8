import { ToolDescriptorSchema } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { createTextAnalyzer } from "./text-analysis.js";
import { buildToolDocument } from "./tool-document.js";

const analyzer = createTextAnalyzer();
const describeTool = (name: string, description: string) =>
  buildToolDocument(ToolDescriptorSchema.parse({ server: "s", name, description, inputSchema: { type: "object" } }), analyzer);

describe("buildToolDocument and usage guidance", () => {
  it("indexes a guidance clause's words in the guidance field, not in the summary", () => {
    const document = describeTool(
      "get_notification_details",
      "Get detailed information for a specific notification, always call this tool when the user asks for details, if you don't know the ID list notifications first.",
    );
    expect(document.fields.summary).toEqual(analyzer.terms("Get detailed information for a specific notification"));
    expect(document.fields.guidance).toContain(analyzer.stem("know"));
    expect(document.fields.summary).not.toContain(analyzer.stem("know"));
    expect(document.fields.description).not.toContain(analyzer.stem("know"));
    // the embedded views are the description as written
    expect(document.views[0]).toContain("if you don't know the ID");
  });

  it("leaves a description without guidance as it was", () => {
    const document = describeTool("read_file", "Read a file. Handles any text encoding.");
    expect(document.fields.summary).toEqual(analyzer.terms("Read a file."));
    expect(document.fields.description).toEqual(analyzer.terms("Handles any text encoding."));
    expect(document.fields.guidance).toEqual([]);
  });
});
