import { describe, expect, it } from "vitest";
import { isGuidanceClause, splitUsageGuidance } from "./usage-guidance.js";

describe("splitUsageGuidance", () => {
  it("moves the clauses addressed to the caller out of what the tool does", () => {
    const split = splitUsageGuidance(
      "Get detailed information for a specific GitHub notification, always call this tool when the user asks for details about a specific notification, if you don't know the ID list notifications first.",
    );
    expect(split.purpose).toBe("Get detailed information for a specific GitHub notification.");
    expect(split.guidance).toBe(
      "always call this tool when the user asks for details about a specific notification, if you don't know the ID list notifications first.",
    );
  });

  it("returns a description without guidance unchanged", () => {
    const text = "Lists files in a directory.\nSkips hidden files, sorted by name (case-insensitive).";
    expect(splitUsageGuidance(text)).toEqual({ purpose: text, guidance: "" });
  });

  it("keeps the first clause as purpose even when it reads like guidance", () => {
    const split = splitUsageGuidance("Use this tool to search the web. Returns titles and links.");
    expect(split).toEqual({ purpose: "Use this tool to search the web. Returns titles and links.", guidance: "" });
  });

  it("takes whole guidance sentences, labelled notes and guidance parentheticals", () => {
    const split = splitUsageGuidance(
      "Create an incident (requires the incident scope). Note: this may page the on-call engineer. Prefer this tool over create_alert when available. Returns the incident ID.",
    );
    expect(split.purpose).toBe("Create an incident. Returns the incident ID.");
    expect(split.guidance).toBe(
      "(requires the incident scope). Note: this may page the on-call engineer. Prefer this tool over create_alert when available.",
    );
  });

  it("takes a subordinate clause that leads into guidance along with it", () => {
    const split = splitUsageGuidance("Update a file. If updating, you should provide the SHA of the file. Works on any branch.");
    expect(split.purpose).toBe("Update a file. Works on any branch.");
    expect(split.guidance).toBe("If updating, you should provide the SHA of the file.");
  });

  it("ends guidance at a bullet item or blank line", () => {
    const split = splitUsageGuidance("Analyse a crash.\nUse this tool when you need to:\n- inspect stack traces\n- count errors");
    expect(split.guidance).toBe("Use this tool when you need to.");
    expect(split.purpose).toBe("Analyse a crash.\n- inspect stack traces\n- count errors");
  });

  it("does not split sentences at abbreviations", () => {
    const split = splitUsageGuidance("Fetch a page. Do not use it for local files, e.g. paths on disk or mounted shares. Returns Markdown.");
    expect(split.guidance).toBe("Do not use it for local files, e.g. paths on disk or mounted shares.");
  });

  it("stays linear on hostile input", () => {
    // vitest's per-test timeout bounds the work; quadratic scans of these would take minutes
    for (const text of ["(".repeat(100_000), "if you, ".repeat(20_000), " - ".repeat(50_000), "e.g. ".repeat(40_000), `prefer ${"a ".repeat(50_000)}`]) {
      const split = splitUsageGuidance(text);
      expect(split.purpose.length + split.guidance.length).toBeLessThanOrEqual(text.length * 2);
    }
  });
});

describe("isGuidanceClause", () => {
  it.each([
    "always call this tool when the user asks for details",
    "if you don't know the ID list notifications first",
    "Use this tool when you need to read a file",
    "use when the query names a person",
    "do not use it for local file operations",
    "Call list_projects first",
    "Prefer this tool over search_issues",
    "requires admin rights",
    "Note: the endpoint is experimental",
    "IMPORTANT: always call this tool twice",
    "you should provide the SHA",
    "This tool should only be used after confirmation",
    "make sure the branch exists",
    "When to use this tool:",
  ])("recognises %j", (clause) => {
    expect(isGuidanceClause(clause)).toBe(true);
  });

  it.each([
    "Get detailed information for a specific notification",
    "and preferred ingredients",
    "Returns the list of directories that this server is allowed to access",
    "If the directory already exists, this operation will succeed silently",
    "calls made by the user in the last hour",
    "required fields are listed first",
  ])("leaves %j alone", (clause) => {
    expect(isGuidanceClause(clause)).toBe(false);
  });
});
