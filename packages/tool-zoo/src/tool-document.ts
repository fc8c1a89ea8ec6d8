import { createHash } from "node:crypto";
import { toolId, type ToolDescriptor } from "@afw/contracts";
import { firstSentence, splitIdentifier, stripMarkdown, type TextAnalyzer } from "./text-analysis.js";
import { splitUsageGuidance } from "./usage-guidance.js";

/**
 * The BM25F fields of a tool document. `summary` and `description` hold what the tool does (first sentence and the
 * rest); `guidance` holds the description's usage guidance to the caller (see `splitUsageGuidance`).
 */
export type ToolField = "name" | "server" | "summary" | "description" | "guidance" | "parameters" | "parameterDescriptions" | "tags";

/** A parameter of a tool, read from its input JSON schema. */
export interface ToolParameter {
  /** Property name. */
  name: string;
  /** Whether the schema lists it as required. */
  required: boolean;
  /** Its description, if any. */
  description: string;
  /** Allowed values (`enum`), if any, as strings. */
  values: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function enumValues(schema: Record<string, unknown>): string[] {
  const own = Array.isArray(schema["enum"]) ? schema["enum"] : [];
  const items = isRecord(schema["items"]) && Array.isArray(schema["items"]["enum"]) ? schema["items"]["enum"] : [];
  return [...own, ...items].filter((v) => typeof v === "string" || typeof v === "number").map(String);
}

/** The top-level parameters of a tool's input schema, required ones first (in schema order). */
export function toolParameters(tool: Pick<ToolDescriptor, "inputSchema">): ToolParameter[] {
  const schema = tool.inputSchema;
  const properties = isRecord(schema["properties"]) ? schema["properties"] : {};
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].filter((r) => typeof r === "string") : []);
  const parameters = Object.entries(properties).map(([name, value]) => ({
    name,
    required: required.has(name),
    description: isRecord(value) && typeof value["description"] === "string" ? value["description"] : "",
    values: isRecord(value) ? enumValues(value) : [],
  }));
  return [...parameters.filter((p) => p.required), ...parameters.filter((p) => !p.required)];
}

/** The words of a tool's name, e.g. `list pull requests` for `list_pull_requests`. */
export function toolNameWords(tool: Pick<ToolDescriptor, "name" | "title">): string {
  const words = splitIdentifier(tool.name).filter((w) => w !== "api");
  return tool.title ? `${words.join(" ")} ${tool.title}` : words.join(" ");
}

function outputSummary(tool: ToolDescriptor): string {
  const output = tool.outputSchema;
  if (output && isRecord(output["properties"])) {
    const keys = Object.keys(output["properties"]);
    if (keys.length) return `object with ${keys.slice(0, 6).join(", ")}${keys.length > 6 ? ", …" : ""}`;
  }
  const plain = stripMarkdown(tool.description).replace(/\s+/g, " ");
  const returns = /\b(Returns?|Outputs?|Responds with|Provides)\b[^.]{3,140}\./.exec(plain);
  if (returns) return returns[0].replace(/\.$/, "");
  return "text content";
}

/**
 * A one-line summary of a tool for exposure to an LLM:
 * `Use when: <first sentence> | Inputs: <required*>, <optional> | Output: <what it returns>`.
 *
 * @example
 * ```ts
 * affordanceSummary({ server: "git", name: "git_add", description: "Adds file contents to the staging area",
 *   inputSchema: { properties: { repo_path: {}, files: {} }, required: ["repo_path", "files"] }, tags: [] })
 * // "Use when: Adds file contents to the staging area | Inputs: repo_path*, files | Output: text content"
 * ```
 */
export function affordanceSummary(tool: ToolDescriptor): string {
  const purpose = firstSentence(tool.description || toolNameWords(tool), 160).replace(/\.$/, "");
  const parameters = toolParameters(tool);
  const inputs = parameters.length
    ? parameters
        .slice(0, 8)
        .map((p) => (p.required ? `${p.name}*` : p.name))
        .join(", ") + (parameters.length > 8 ? ", …" : "")
    : "none";
  return `Use when: ${purpose || toolNameWords(tool)} | Inputs: ${inputs} | Output: ${outputSummary(tool)}`;
}

/** The analysed form of a tool: BM25F field terms and the texts embedded for it. */
export interface ToolDocument {
  /** `server/name`. */
  id: string;
  /** The descriptor. */
  tool: ToolDescriptor;
  /** Terms per BM25F field. */
  fields: Record<ToolField, string[]>;
  /** Texts embedded for the tool ("views"); its semantic score is the best over them. */
  views: string[];
  /** SHA-256 of everything the document is built from (embedding cache key part). */
  contentHash: string;
}

/** A description without the `Args:` / `Returns:` / `Raises:` sections of Python docstrings. */
export function withoutDocstringSections(description: string): string {
  const cut = /\n\s*(Args|Arguments|Parameters|Returns|Raises|Example|Examples):\s*\n/.exec(description);
  return (cut ? description.slice(0, cut.index) : description).trim();
}

/**
 * The {@link ToolDocument} of a tool: BM25F fields and two embedding views (short: name words and first sentence;
 * long: description and parameter names). Usage guidance in the description goes to the `guidance` field, out of
 * `summary` and `description`; the views embed the description as written.
 */
export function buildToolDocument(tool: ToolDescriptor, analyzer: TextAnalyzer): ToolDocument {
  const stripped = stripMarkdown(withoutDocstringSections(tool.description));
  const description = stripped.replace(/\s+/g, " ").trim();
  const { purpose: purposeText, guidance } = splitUsageGuidance(stripped);
  const purpose = guidance ? purposeText.replace(/\s+/g, " ").trim() : description;
  const summary = firstSentence(purpose, 400);
  const rest = purpose.startsWith(summary.replace(/…$/, "")) ? purpose.slice(summary.length) : purpose;
  // the embedded views keep the description's own first sentence, guidance and all (vectors are cached by content)
  const headline = guidance ? firstSentence(description, 400) : summary;
  const parameters = toolParameters(tool);
  const nameWords = toolNameWords(tool);
  const serverWords = splitIdentifier(tool.server).join(" ");
  const fields: Record<ToolField, string[]> = {
    name: analyzer.terms(nameWords),
    server: analyzer.terms(serverWords),
    summary: analyzer.terms(summary),
    description: analyzer.terms(rest),
    guidance: analyzer.terms(guidance),
    parameters: analyzer.terms(parameters.map((p) => p.name).join(" ")),
    parameterDescriptions: analyzer.terms(parameters.map((p) => `${p.description} ${p.values.join(" ")}`).join(" ")),
    tags: analyzer.terms(tool.tags.join(" ")),
  };
  const shortView = `${serverWords}: ${nameWords}. ${headline}`;
  const longDescription = description.length > 700 ? `${description.slice(0, 700)}…` : description;
  const longView = `${nameWords} (${serverWords}). ${longDescription} Inputs: ${parameters
    .slice(0, 10)
    .map((p) => splitIdentifier(p.name).join(" "))
    .join(", ")}.`;
  const contentHash = createHash("sha256")
    .update(JSON.stringify([tool.server, tool.name, tool.title ?? "", tool.description, tool.inputSchema, tool.tags]))
    .digest("hex");
  return { id: toolId(tool), tool, fields, views: [shortView, longView], contentHash };
}
