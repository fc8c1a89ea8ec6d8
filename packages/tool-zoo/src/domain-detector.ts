import type { TextAnalyzer } from "./text-analysis.js";
import type { ToolDocument } from "./tool-document.js";
import { splitIdentifier } from "./text-analysis.js";

/** Words that never signal a server: generic words of tool texts and the verbs every server uses. */
const DOMAIN_IGNORE: readonly string[] = [
  "tool", "tools", "api", "server", "mcp", "function", "call", "return", "result", "request",
  "show", "get", "list", "create", "update", "delete", "add", "remove", "read", "write", "search", "find",
  "run", "set", "change", "changes", "file", "files", "name", "new", "current", "specific", "information",
];

const DETAIL_FIELDS = ["description", "guidance", "parameters", "parameterDescriptions"] as const;

/** Term-to-server signals: share of a term's tools on one server, least tools, least share of the server's tools. */
const MIN_EXCLUSIVITY = 0.8;
const MIN_SUPPORT = 2;
const MIN_COVERAGE = 0.5;
/** Strength of a description or parameter term that only one server's tools use. */
const DETAIL_STRENGTH = 0.25;
const HEADLINE_FIELDS = ["name", "server", "summary", "tags"] as const;

/** What a server says about itself (MCP `initialize` result: `serverInfo` and `instructions`). */
export interface ServerInfo {
  /** `serverInfo.title` (or `name`, when it differs from the server's key). */
  title?: string;
  /** The server's `instructions`. */
  instructions?: string;
}

/** Which servers a query points at, with strengths in [0, 1]. */
export interface DomainDetector {
  /** Strength per server for a query text; expansions weighing less than 1 (synonyms) signal at that fraction. */
  detect(text: string, expansions?: ReadonlyArray<{ term: string; weight: number }>): Map<string, number>;
}

/**
 * Learns which query words point at which server from the servers themselves, the same way for any catalog: terms most
 * of whose tools are on one server and cover half of it, words of its name and title, and words of its `instructions`
 * that its own tools use and no other server's do.
 */
export function createDomainDetector(
  documents: Iterable<ToolDocument>,
  analyzer: TextAnalyzer,
  serverInfo: ReadonlyMap<string, ServerInfo> = new Map(),
): DomainDetector {
  const ignore = new Set(DOMAIN_IGNORE.flatMap((w) => analyzer.terms(w)));
  const serverSizes = new Map<string, number>();
  const perTerm = new Map<string, Map<string, number>>();
  const detailTerms = new Set<string>(); // "server\0term" of description and parameter terms
  const servers = new Set<string>();
  const signals = new Map<string, Map<string, number>>(); // term → server → strength
  const setSignal = (term: string, server: string, strength: number) => {
    let perServer = signals.get(term);
    if (!perServer) signals.set(term, (perServer = new Map()));
    perServer.set(server, Math.max(perServer.get(server) ?? 0, strength));
  };
  /** Adds one to `counts[term][server]`. */
  const count = (counts: Map<string, Map<string, number>>, term: string, server: string) => {
    let perServer = counts.get(term);
    if (!perServer) counts.set(term, (perServer = new Map()));
    perServer.set(server, (perServer.get(server) ?? 0) + 1);
  };
  const totalOf = (counts: ReadonlyMap<string, number> | undefined) => [...(counts?.values() ?? [])].reduce((sum, n) => sum + n, 0);
  const documentList = [...documents];
  for (const document of documentList) {
    servers.add(document.tool.server);
    serverSizes.set(document.tool.server, (serverSizes.get(document.tool.server) ?? 0) + 1);
    const terms = new Set<string>();
    for (const field of HEADLINE_FIELDS) for (const term of document.fields[field]) terms.add(term);
    for (const field of DETAIL_FIELDS) for (const term of document.fields[field]) if (!terms.has(term)) detailTerms.add(`${document.tool.server}\u0000${term}`);
    for (const term of terms) count(perTerm, term, document.tool.server);
  }
  for (const [term, counts] of perTerm) {
    if (ignore.has(term)) continue;
    const total = totalOf(counts);
    for (const [server, n] of counts) {
      const exclusivity = n / total;
      const coverage = n / (serverSizes.get(server) ?? 1);
      if (n >= MIN_SUPPORT && exclusivity >= MIN_EXCLUSIVITY && coverage >= MIN_COVERAGE) setSignal(term, server, exclusivity);
    }
  }
  // the server's vocabulary beyond its tools' headlines: a term of descriptions and parameters
  // that (almost) only this server's tools use, at half strength ("PromQL" → the server whose
  // tools take PromQL expressions)
  const detailCounts = new Map<string, Map<string, number>>();
  for (const key of detailTerms) {
    const [server, term] = key.split("\u0000") as [string, string];
    count(detailCounts, term, server);
  }
  for (const [term, counts] of detailCounts) {
    if (ignore.has(term) || counts.size !== 1 || signals.has(term)) continue;
    const [server] = counts.keys();
    const headline = perTerm.get(term);
    if (headline && [...headline.keys()].some((other) => other !== server)) continue;
    setSignal(term, server!, DETAIL_STRENGTH);
  }
  // a term of any field most of whose tools (at least two) are on one server, at the detail strength times that share:
  // "pods" points at the server whose tools run, list and log pods though another server's tools mention pods once
  const anyCounts = new Map<string, Map<string, number>>();
  for (const document of documentList) {
    const terms = new Set<string>();
    for (const field of [...HEADLINE_FIELDS, ...DETAIL_FIELDS]) for (const term of document.fields[field]) terms.add(term);
    for (const term of terms) count(anyCounts, term, document.tool.server);
  }
  for (const [term, counts] of anyCounts) {
    if (ignore.has(term) || signals.has(term)) continue;
    const total = totalOf(counts);
    for (const [server, n] of counts) {
      if (n >= MIN_SUPPORT && n / total >= MIN_EXCLUSIVITY) setSignal(term, server, DETAIL_STRENGTH * (n / total));
    }
  }
  for (const server of servers) {
    for (const word of splitIdentifier(server)) {
      for (const term of analyzer.terms(word)) {
        // a server-name word that many other servers' tools use too (e.g. "search") is weaker
        const counts = perTerm.get(term);
        const total = totalOf(counts);
        const own = counts?.get(server) ?? 0;
        const strength = total === 0 ? 1 : Math.max(0.25, (own + 1) / (total + 1));
        setSignal(term, server, strength);
      }
    }
  }
  for (const [server, info] of serverInfo) {
    if (!servers.has(server)) continue;
    const title = info.title ? analyzer.terms(info.title) : [];
    for (const term of title) if (!ignore.has(term)) setSignal(term, server, 1);
    // instructions: only words the server's own tools use too and no other server's names use
    for (const term of new Set(analyzer.terms(info.instructions ?? ""))) {
      const counts = perTerm.get(term);
      if (ignore.has(term) || !counts?.has(server)) continue;
      const exclusivity = counts.get(server)! / Math.max(1, totalOf(counts));
      if (exclusivity >= MIN_EXCLUSIVITY) setSignal(term, server, 0.5 * exclusivity);
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
  };
}
