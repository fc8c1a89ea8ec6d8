import { cosineSimilarity, matchesGlob, type Embedder, type HistoryHit, type HistoryPage, type HistoryQuery, type SessionAppendResult, type SessionRecord, type SessionStore, type SessionSummary, type SessionTurn } from "@afw/contracts";
import { MAX_QUERY_WORDS, compareHits, cursorAt, cursorOffset, pageSize, passesFilters, stemmedWords, turnWords } from "./history-search.js";
import { EMBED_BATCH, embeddedText, idfWeights, meaningScore, searchMode } from "./history-vectors.js";
import { checkSessionId, checkTurn, limitOf, sessionSettings, type SessionSettings, type SessionStoreOptions } from "./session-store-shared.js";

interface MemorySession {
  sessionId: string;
  tenant: string | undefined;
  turns: SessionTurn[];
  /** Indexed words and embedding of each turn (same order as `turns`). */
  index: TurnIndex[];
  tags: Set<string>;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
}

/** Options of {@link MemorySessionStore}. */
export interface MemorySessionStoreOptions extends SessionStoreOptions {
  /** Clock in epoch ms (inject one to test expiry without waiting). @default Date.now */
  now?: () => number;
  /** Most sessions kept; the least recently updated go first. @default 10000 */
  maxSessions?: number;
}

interface TurnIndex {
  words: Set<string>;
  /** Question embedding, once computed. */
  vector?: Float32Array;
}

const clone = <T>(value: T): T => structuredClone(value);

/** In-process {@link SessionStore} with the same trimming, sliding TTL and listing as the Redis store. */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, MemorySession>();
  private readonly settings: SessionSettings;
  private readonly now: () => number;
  private readonly maxSessions: number;
  private readonly embedder: Embedder | undefined;
  /** Turns waiting for their embedding. */
  private pending: Array<{ index: TurnIndex; text: string }> = [];
  private embedding: Promise<void> | undefined;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.embedder = options.embedder;
    this.settings = sessionSettings(options);
    this.now = options.now ?? Date.now;
    this.maxSessions = options.maxSessions ?? 10_000;
  }

  async append(sessionId: string, turn: SessionTurn, options: { tenant?: string } = {}): Promise<SessionAppendResult> {
    const valid = checkTurn(sessionId, turn);
    const now = this.now();
    const key = storageKey(sessionId, options.tenant);
    let session = this.live(key, now);
    if (!session) session = { sessionId, tenant: options.tenant, turns: [], index: [], tags: new Set(), createdAt: now, updatedAt: now, expiresAt: 0 };
    session.turns.push(clone(valid));
    const index: TurnIndex = { words: new Set(turnWords(valid)) };
    session.index.push(index);
    if (this.embedder) {
      this.pending.push({ index, text: embeddedText(valid) });
      void this.embedPending();
    }
    for (const tag of valid.tags ?? []) session.tags.add(tag);
    if (session.turns.length > this.settings.maxTurns) {
      const excess = session.turns.length - this.settings.maxTurns;
      session.turns.splice(0, excess);
      session.index.splice(0, excess);
    }
    session.updatedAt = now;
    session.expiresAt = now + this.settings.ttlMs;
    this.sessions.delete(key);
    this.sessions.set(key, session);
    while (this.sessions.size > this.maxSessions) {
      const oldest = this.sessions.keys().next();
      if (oldest.done) break;
      this.sessions.delete(oldest.value);
    }
    return { saved: true, buffered: false, totalTurns: session.turns.length };
  }

  async recent(sessionId: string, limit?: number, options: { tenant?: string } = {}): Promise<SessionTurn[]> {
    checkSessionId(sessionId);
    const count = limitOf(limit, this.settings.recentTurns);
    const session = this.live(storageKey(sessionId, options.tenant), this.now());
    if (!session || count === 0) return [];
    return clone(session.turns.slice(-count));
  }

  async get(sessionId: string, options: { tenant?: string } = {}): Promise<SessionRecord | undefined> {
    checkSessionId(sessionId);
    const session = this.live(storageKey(sessionId, options.tenant), this.now());
    return session ? { ...summaryOf(session), turnsList: clone(session.turns) } : undefined;
  }

  async list(pattern = "*", options: { tenant?: string; limit?: number; tag?: string } = {}): Promise<SessionSummary[]> {
    const limit = limitOf(options.limit, this.settings.listLimit);
    const now = this.now();
    const matches: MemorySession[] = [];
    for (const [key, session] of this.sessions) {
      if (session.expiresAt <= now) {
        this.sessions.delete(key);
        continue;
      }
      if (session.tenant !== options.tenant || (options.tag !== undefined && !session.tags.has(options.tag))) continue;
      if (matchesGlob(session.sessionId, pattern)) matches.push(session);
    }
    matches.sort((a, b) => b.updatedAt - a.updatedAt);
    return matches.slice(0, Math.min(limit, this.settings.listScanLimit)).map(summaryOf);
  }

  /** Searches the kept turns of the tenant's live sessions (see {@link SessionStore.search}). */
  async search(query: HistoryQuery, options: { tenant?: string } = {}): Promise<HistoryPage> {
    const offset = cursorOffset(query.cursor);
    const limit = pageSize(query);
    const words = query.text === undefined ? [] : stemmedWords(query.text, MAX_QUERY_WORDS);
    let mode = query.text === undefined ? undefined : searchMode(query, this.embedder !== undefined);
    let vector: Float32Array | undefined;
    if (mode !== undefined && mode !== "keyword") {
      await this.embedPending();
      vector = await this.embedder!.embed([query.text!]).then(([v]) => v, () => undefined);
      if (!vector) mode = "keyword";
    }
    if (mode === "keyword" && words.length === 0) return { hits: [], mode };
    const now = this.now();
    const weights = mode === "hybrid" ? this.idf(words, options.tenant, now) : [];
    const hits: Array<HistoryHit & { score: number }> = [];
    for (const session of this.sessions.values()) {
      if (session.expiresAt <= now || session.tenant !== options.tenant) continue;
      session.turns.forEach((turn, i) => {
        if (!passesFilters(query, session.sessionId, turn)) return;
        const indexed = session.index[i];
        const matched = indexed === undefined ? [] : words.flatMap((word, w) => (indexed.words.has(word) ? [w] : []));
        const matchedWords = matched.length;
        if (mode === undefined || mode === "keyword") {
          if (words.length === 0 || matchedWords > 0) hits.push({ sessionId: session.sessionId, turn, matchedWords, score: matchedWords });
          return;
        }
        const sim = indexed?.vector && vector ? cosineSimilarity(vector, indexed.vector) : 0;
        const score = meaningScore(mode, sim, matchedWords, matched.reduce((sum, w) => sum + (weights[w] ?? 0), 0));
        if (score !== undefined) hits.push({ sessionId: session.sessionId, turn, matchedWords, similarity: sim, score });
      });
    }
    hits.sort((a, b) => b.score - a.score || compareHits(a, b));
    const page = hits.slice(offset, offset + limit).map(({ score: _score, ...hit }) => ({ ...hit, turn: clone(hit.turn) }));
    const withMode = mode === undefined ? {} : { mode };
    return offset + limit < hits.length ? { hits: page, nextCursor: cursorAt(offset + limit), ...withMode } : { hits: page, ...withMode };
  }

  /** {@link idfWeights} of `words` over the tenant's live turns. */
  private idf(words: readonly string[], tenant: string | undefined, now: number): number[] {
    const frequencies = words.map(() => 0);
    let turns = 0;
    for (const session of this.sessions.values()) {
      if (session.expiresAt <= now || session.tenant !== tenant) continue;
      turns += session.index.length;
      for (const { words: indexed } of session.index) words.forEach((word, w) => indexed.has(word) && (frequencies[w]! += 1));
    }
    return idfWeights(frequencies, turns);
  }

  /** Embeds the turns waiting for it, {@link EMBED_BATCH} at a time; a failed batch waits for the next call. */
  private embedPending(): Promise<void> {
    this.embedding ??= (async () => {
      while (this.pending.length > 0 && this.embedder) {
        const batch = this.pending.slice(0, EMBED_BATCH);
        const vectors = await this.embedder.embed(batch.map((item) => item.text)).catch(() => undefined);
        if (!vectors) return;
        batch.forEach((item, i) => (item.index.vector = vectors[i]));
        this.pending.splice(0, batch.length);
      }
    })().finally(() => {
      this.embedding = undefined;
    });
    return this.embedding;
  }

  async delete(sessionId: string, options: { tenant?: string } = {}): Promise<boolean> {
    checkSessionId(sessionId);
    const key = storageKey(sessionId, options.tenant);
    const existed = this.live(key, this.now()) !== undefined;
    this.sessions.delete(key);
    return existed;
  }

  private live(key: string, now: number): MemorySession | undefined {
    const session = this.sessions.get(key);
    if (session && session.expiresAt <= now) {
      this.sessions.delete(key);
      return undefined;
    }
    return session;
  }
}

function storageKey(sessionId: string, tenant: string | undefined): string {
  return JSON.stringify([tenant ?? null, sessionId]);
}

function summaryOf(session: MemorySession): SessionSummary {
  return {
    sessionId: session.sessionId,
    turns: session.turns.length,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    ...(session.tenant === undefined ? {} : { tenant: session.tenant }),
    ...(session.tags.size === 0 ? {} : { tags: [...session.tags].sort() }),
  };
}
