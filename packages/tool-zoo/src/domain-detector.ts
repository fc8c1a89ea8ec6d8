import type { TextAnalyzer } from "./text-analysis.js";
import type { ToolDocument, ToolField } from "./tool-document.js";
import { splitIdentifier } from "./text-analysis.js";

/**
 * General words that name a well-known MCP server family, keyed by a server-name fragment. A hint
 * applies to every indexed server whose name contains the key's words (`"maps"` → `google-maps`,
 * but `"git"` does not match `github`). Hints for
 * servers that are not indexed are ignored. These describe what each product *is* (Jira lives on
 * Atlassian, pods on Kubernetes), not any particular task.
 */
export const DEFAULT_DOMAIN_HINTS: Readonly<Record<string, readonly string[]>> = {
  github: ["github", "gist", "dependabot", "copilot"],
  gitlab: ["gitlab"],
  git: ["git", "local clone", "working tree", "working copy", "staging area", "staged", "unstaged", "local repository", "local branch", "locally"],
  filesystem: ["local file", "local folder", "local directory", "this machine", "my machine", "my computer", "on disk", "my laptop", "home directory", "locally"],
  atlassian: ["jira", "confluence", "atlassian", "epic", "sprint", "backlog"],
  kubernetes: ["kubernetes", "k8s", "kubectl", "pod", "helm", "namespace", "cluster", "daemonset", "statefulset"],
  grafana: ["grafana", "prometheus", "promql", "loki", "logql", "dashboard", "datasource"],
  slack: ["slack", "channel", "dm"],
  notion: ["notion"],
  stripe: ["stripe"],
  postgres: ["postgres", "postgresql", "psql"],
  sqlite: ["sqlite"],
  redis: ["redis"],
  playwright: ["playwright", "browser"],
  puppeteer: ["puppeteer", "browser"],
  "brave-search": ["brave", "web search", "search the web", "online", "internet"],
  maps: ["google maps", "directions", "geocode", "address", "nearby"],
  memory: ["knowledge graph", "remember", "forget"],
  time: ["timezone", "time zone", "current time"],
  fetch: ["url", "web page", "webpage", "article"],
  sentry: ["sentry"],
  "aws-kb": ["aws", "bedrock", "knowledge base"],
  gdrive: ["google drive", "gdrive", "drive"],
  sequentialthinking: ["step by step", "think through"],
};

/**
 * Words that never signal a server by themselves: generic words of tool descriptions and the
 * action verbs every server uses (`show`, `list`, `create`, …).
 */
export const DEFAULT_DOMAIN_IGNORE: readonly string[] = [
  "tool", "tools", "api", "server", "mcp", "function", "call", "return", "result", "request",
  "show", "get", "list", "create", "update", "delete", "add", "remove", "read", "write", "search", "find",
  "run", "set", "change", "changes", "file", "files", "name", "new", "current", "specific", "information",
];

/** Options of {@link createDomainDetector}. */
export interface DomainDetectorOptions {
  /**
   * Server-family hints (server-name fragment → words or phrases).
   * @default DEFAULT_DOMAIN_HINTS
   */
  hints?: Readonly<Record<string, readonly string[]>>;
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
  /** Fields whose terms are considered. @default name, server, summary, tags */
  fields?: readonly ToolField[];
}

/** Which servers a query points at, with strengths in [0, 1]. */
export interface DomainDetector {
  /** Strength per server for a query, from its (unquoted) text. */
  detect(text: string): Map<string, number>;
  /** The terms learned for a server (for debugging and docs). */
  termsOf(server: string): Map<string, number>;
}

/**
 * Learns which query words point at which server, from the indexed tools: a term signals a server
 * when most tools containing it (in name, server, first sentence or tags) belong to that server
 * (e.g. `jira` → atlassian, `loki` → grafana, `puppeteer` → puppeteer). Server-name words always
 * signal their server. {@link DEFAULT_DOMAIN_HINTS} add general product vocabulary that tool texts
 * lack (a user says "k8s" or "this machine").
 */
export function createDomainDetector(
  documents: Iterable<ToolDocument>,
  analyzer: TextAnalyzer,
  options: DomainDetectorOptions = {},
): DomainDetector {
  const minExclusivity = options.minExclusivity ?? 0.8;
  const minSupport = options.minSupport ?? 2;
  const minCoverage = options.minCoverage ?? 0.5;
  const ignore = new Set((options.ignore ?? DEFAULT_DOMAIN_IGNORE).flatMap((w) => analyzer.terms(w)));
  const serverSizes = new Map<string, number>();
  const fields = options.fields ?? (["name", "server", "summary", "tags"] as const);
  const perTerm = new Map<string, Map<string, number>>();
  const servers = new Set<string>();
  const signals = new Map<string, Map<string, number>>(); // term → server → strength
  const phraseSignals: Array<{ terms: string[]; server: string }> = [];
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
  for (const [fragment, phrases] of Object.entries(options.hints ?? DEFAULT_DOMAIN_HINTS)) {
    const fragmentWords = splitIdentifier(fragment);
    for (const server of servers) {
      const serverWords = splitIdentifier(server);
      const matches = serverWords.some((_, start) => fragmentWords.every((w, j) => serverWords[start + j] === w));
      if (!matches) continue;
      for (const phrase of phrases) {
        const terms = analyzer.terms(phrase);
        if (terms.length === 1) setSignal(terms[0]!, server, 1);
        else if (terms.length > 1) phraseSignals.push({ terms, server });
      }
    }
  }
  return {
    detect(text) {
      const out = new Map<string, number>();
      const terms = analyzer.terms(text);
      const put = (server: string, strength: number) => out.set(server, Math.max(out.get(server) ?? 0, strength));
      // a phrase hint ("local repository") claims its words: they do not also count one by one
      const claimed = new Set<number>();
      for (const { terms: phrase, server } of phraseSignals) {
        for (let i = 0; i + phrase.length <= terms.length; i++) {
          if (phrase.every((p, j) => terms[i + j] === p)) {
            put(server, 1);
            for (let j = 0; j < phrase.length; j++) claimed.add(i + j);
          }
        }
      }
      terms.forEach((term, i) => {
        if (claimed.has(i)) return;
        for (const [server, strength] of signals.get(term) ?? []) put(server, strength);
      });
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
