import { IntentSchema } from "@afw/contracts";

/** A keyword that is safe and meaningful as a `routing.intentPatterns` keyword: one word. */
const KEYWORD = /^[\p{L}\p{N}][\p{L}\p{N}_-]{0,63}$/u;

/** Weight of every proposed keyword (the router's keyword weights are -10..10). */
const KEYWORD_WEIGHT = 2;

/** Options of {@link renderIntentPatternsYaml}. */
export interface IntentPatternsYamlOptions {
  /** Label of the report in the header comment, e.g. `the last 24h`. */
  label?: string;
}

/**
 * Renders the `intent-pattern` proposals of `pattern_analysis` as a YAML fragment for
 * `routing.intentPatterns` (`{ keywords: { word: weight } }`), to paste into the gateway
 * configuration and apply with `SIGHUP`. Keywords of one intent are merged; `new-flow` proposals,
 * unknown intents and anything but single words are left out, and every keyword is a
 * double-quoted scalar, so question text can never change the structure. `undefined` when
 * nothing is proposed.
 */
export function renderIntentPatternsYaml(proposals: ReadonlyArray<{ kind: string; intent: string | null; keywords: readonly string[]; support: number; reason?: string }>, options: IntentPatternsYamlOptions = {}): string | undefined {
  const byIntent = new Map<string, { keywords: Set<string>; support: number }>();
  for (const proposal of proposals) {
    if (proposal.kind !== "intent-pattern" || !IntentSchema.safeParse(proposal.intent).success) continue;
    const keywords = proposal.keywords.filter((keyword) => typeof keyword === "string" && KEYWORD.test(keyword));
    if (keywords.length === 0) continue;
    const intent = proposal.intent as string;
    let entry = byIntent.get(intent);
    if (!entry) byIntent.set(intent, (entry = { keywords: new Set(), support: 0 }));
    for (const keyword of keywords) entry.keywords.add(keyword);
    entry.support += Number.isFinite(proposal.support) ? proposal.support : 0;
  }
  if (byIntent.size === 0) return undefined;
  const label = options.label ? ` over ${options.label.replace(/[^\w .:-]/g, "")}` : "";
  const lines = [
    `# Intent patterns proposed by pattern_analysis${label}.`,
    "# Review them, merge them into the routing section of the gateway configuration",
    "# (next to any intentPatterns you already have), then reload with SIGHUP.",
    "routing:",
    "  intentPatterns:",
  ];
  for (const [intent, { keywords, support }] of [...byIntent.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    lines.push(`    ${intent}: # ${support} question${support === 1 ? "" : "s"}`, "      keywords:");
    for (const keyword of keywords) lines.push(`        ${JSON.stringify(keyword)}: ${KEYWORD_WEIGHT}`);
  }
  return `${lines.join("\n")}\n`;
}
