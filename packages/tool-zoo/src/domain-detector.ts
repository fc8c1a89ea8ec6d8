import type { TextAnalyzer } from "./text-analysis.js";
import type { ToolDocument, ToolField } from "./tool-document.js";
import { splitIdentifier } from "./text-analysis.js";

/**
 * Words that never signal a server by themselves: generic words of tool descriptions and the
 * action verbs every server uses (`show`, `list`, `create`, …).
 */
export const DEFAULT_DOMAIN_IGNORE: readonly string[] = [
  "tool", "tools", "api", "server", "mcp", "function", "call", "return", "result", "request",
  "show", "get", "list", "create", "update", "delete", "add", "remove", "read", "write", "search", "find",
  "run", "set", "change", "changes", "file", "files", "name", "new", "current", "specific", "information",
];

const DETAIL_FIELDS = ["description", "parameters", "parameterDescriptions"] as const;

/** Options of {@link createDomainDetector}. */
export interface DomainDetectorOptions {
  /**
   * Least share of the tools containing a term that must belong to one server for the term to
   * signal that server (data-driven part).
   * @default 0.8
   */
  minExclusivity?: number;
  /**
   * Least number of a server's tools that must contain the term (data-driven part).
   * @default 2
   */
  minSupport?: number;
  /**
   * Least share of a server's tools that must contain the term (data-driven part), so that only
   * words naming what the server is about (`jira`, `notion`, `browser`) count, not a feature word
   * that a few of its tools mention.
   * @default 0.5
   */
  minCoverage?: number;
  /** Terms that never signal a server (generic words of tool descriptions). @default tool, api, server, … */
  ignore?: readonly string[];
  /**
   * Strength with which a term of descriptions or parameters that only one server's tools use
   * points at that server. 0 disables.
   * @default 0.25
   */
  detailStrength?: number;
  /** Fields whose terms are considered. @default name, server, summary, tags */
  fields?: readonly ToolField[];
}

/** What a server says about itself (MCP `initialize` result: `serverInfo` and `instructions`). */
export interface ServerInfo {
  /** `serverInfo.title` (or `name`, when it differs from the server's key). */
  title?: string;
  /** The server's `instructions`. */
  instructions?: string;
}

/** Which servers a query points at, with strengths in [0, 1]. */
export interface DomainDetector {
  /**
   * Strength per server for a query, from its (unquoted) text; words given with a weight below 1
   * (synonyms of the typed words) signal at that fraction of their strength.
   */
  detect(text: string, expansions?: ReadonlyArray<{ term: string; weight: number }>): Map<string, number>;
  /** The terms learned for a server (for debugging and docs). */
  termsOf(server: string): Map<string, number>;
}

/**
 * Learns which query words point at which server, from the servers themselves, the same way for
 * any catalog: a term signals a server when most tools containing it (in name, server, first
 * sentence or tags) belong to that server and it covers a good share of the server's tools (e.g.
 * `jira` → atlassian, `loki` → grafana); words of a server's name and title always signal it,
 * and words its `instructions` share with its own tools' texts (and with no other server's) do
 * too, at a lower strength. Nothing is keyed to particular servers.
 */
export function createDomainDetector(
  documents: Iterable<ToolDocument>,
  analyzer: TextAnalyzer,
  options: DomainDetectorOptions = {},
  serverInfo: ReadonlyMap<string, ServerInfo> = new Map(),
): DomainDetector {
  const minExclusivity = options.minExclusivity ?? 0.8;
  const minSupport = options.minSupport ?? 2;
  const minCoverage = options.minCoverage ?? 0.5;
  const ignore = new Set((options.ignore ?? DEFAULT_DOMAIN_IGNORE).flatMap((w) => analyzer.terms(w)));
  const serverSizes = new Map<string, number>();
  const fields = options.fields ?? (["name", "server", "summary", "tags"] as const);
  const perTerm = new Map<string, Map<string, number>>();
  const detailTerms = new Set<string>(); // "server\0term" of description and parameter terms
  const detailStrength = options.detailStrength ?? 0.25;
  const servers = new Set<string>();
  const signals = new Map<string, Map<string, number>>(); // term → server → strength
  const setSignal = (term: string, server: string, strength: number) => {
    let perServer = signals.get(term);
    if (!perServer) signals.set(term, (perServer = new Map()));
    perServer.set(server, Math.max(perServer.get(server) ?? 0, strength));
  };
  for (const document of documents) {
    servers.add(document.tool.server);
    serverSizes.set(document.tool.server, (serverSizes.get(document.tool.server) ?? 0) + 1);
    const terms = new Set<string>();
    for (const field of fields) for (const term of document.fields[field]) terms.add(term);
    for (const field of DETAIL_FIELDS) for (const term of document.fields[field]) if (!terms.has(term)) detailTerms.add(`${document.tool.server}\u0000${term}`);
    for (const term of terms) {
      let counts = perTerm.get(term);
      if (!counts) perTerm.set(term, (counts = new Map()));
      counts.set(document.tool.server, (counts.get(document.tool.server) ?? 0) + 1);
    }
  }
  for (const [term, counts] of perTerm) {
    let total = 0;
    for (const count of counts.values()) total += count;
    for (const [server, count] of counts) {
      const exclusivity = count / total;
      const coverage = count / (serverSizes.get(server) ?? 1);
      if (ignore.has(term)) continue;
      if (count >= minSupport && exclusivity >= minExclusivity && coverage >= minCoverage) setSignal(term, server, exclusivity);
    }
  }
  // the server's vocabulary beyond its tools' headlines: a term of descriptions and parameters
  // that (almost) only this server's tools use, at half strength ("PromQL" → the server whose
  // tools take PromQL expressions)
  const detailCounts = new Map<string, Map<string, number>>();
  for (const key of detailTerms) {
    const [server, term] = key.split("\u0000") as [string, string];
    let counts = detailCounts.get(term);
    if (!counts) detailCounts.set(term, (counts = new Map()));
    counts.set(server, (counts.get(server) ?? 0) + 1);
  }
  for (const [term, counts] of detailCounts) {
    if (ignore.has(term) || counts.size !== 1 || signals.has(term)) continue;
    const [server] = counts.keys();
    const headline = perTerm.get(term);
    if (headline && [...headline.keys()].some((other) => other !== server)) continue;
    setSignal(term, server!, detailStrength);
  }
  for (const server of servers) {
    for (const word of splitIdentifier(server)) {
      for (const term of analyzer.terms(word)) {
        // a server-name word that many other servers' tools use too (e.g. "search") is weaker
        const counts = perTerm.get(term);
        let total = 0;
        for (const count of counts?.values() ?? []) total += count;
        const own = counts?.get(server) ?? 0;
        const strength = total === 0 ? 1 : Math.max(0.25, (own + 1) / (total + 1));
        setSignal(term, server, strength);
      }
    }
  }
  const allTerms = new Map<string, Set<string>>(); // server → every term of its tools
  for (const [term, counts] of perTerm) for (const server of counts.keys()) {
    let set = allTerms.get(server);
    if (!set) allTerms.set(server, (set = new Set()));
    set.add(term);
  }
  for (const [server, info] of serverInfo) {
    if (!servers.has(server)) continue;
    const title = info.title ? analyzer.terms(info.title) : [];
    for (const term of title) if (!ignore.has(term)) setSignal(term, server, 1);
    // instructions: only words the server's own tools use too and no other server's names use
    const own = allTerms.get(server);
    for (const term of new Set(analyzer.terms(info.instructions ?? ""))) {
      if (ignore.has(term) || !own?.has(term)) continue;
      const counts = perTerm.get(term);
      let total = 0;
      for (const count of counts?.values() ?? []) total += count;
      const exclusivity = (counts?.get(server) ?? 0) / Math.max(1, total);
      if (exclusivity >= minExclusivity) setSignal(term, server, 0.5 * exclusivity);
    }
  }
  return {
    detect(text, expansions = []) {
      const out = new Map<string, number>();
      const put = (server: string, strength: number) => out.set(server, Math.max(out.get(server) ?? 0, strength));
      for (const term of analyzer.terms(text)) for (const [server, strength] of signals.get(term) ?? []) put(server, strength);
      for (const { term, weight } of expansions) {
        if (weight >= 1) continue;
        for (const [server, strength] of signals.get(term) ?? []) put(server, strength * weight);
      }
      return out;
    },
    termsOf(server) {
      const out = new Map<string, number>();
      for (const [term, perServer] of signals) {
        const strength = perServer.get(server);
        if (strength !== undefined) out.set(term, strength);
      }
      return out;
    },
  };
}
