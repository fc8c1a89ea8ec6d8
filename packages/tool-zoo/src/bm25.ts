import type { WeightedTerm } from "./text-analysis.js";

/** Settings of one field of a {@link Bm25Index}: its weight and length normalisation `b` (default 0.75). */
export interface Bm25FieldSettings {
  weight: number;
  b?: number;
}

/** Options of {@link Bm25Index}: the fields with their weights. */
export interface Bm25Options<F extends string> {
  fields: Readonly<Record<F, Bm25FieldSettings>>;
}

/** Term-frequency saturation. */
const K1 = 1.2;

interface StoredDocument<F extends string> {
  readonly id: string;
  readonly fieldTerms: Readonly<Record<F, readonly string[]>>;
  readonly termFrequencies: ReadonlyMap<string, ReadonlyArray<readonly [F, number]>>;
}

/** A scored document (BM25F score: higher is better, unbounded). */
export interface Bm25Hit {
  id: string;
  score: number;
}

/** A field-weighted BM25 (BM25F) index over pre-analysed documents; one field of weight 1 is Okapi BM25. */
export class Bm25Index<F extends string> {
  private readonly documents = new Map<string, StoredDocument<F>>();
  private readonly documentFrequency = new Map<string, number>();
  private readonly postings = new Map<string, Set<string>>();
  /** Per-term precomputed saturated tf, valid until the next add or remove. */
  private readonly postingCache = new Map<string, { ids: string[]; saturated: Float64Array }>();
  private readonly totalLength: Record<string, number> = {};
  private readonly fieldNames: F[];

  constructor(private readonly options: Bm25Options<F>) {
    this.fieldNames = Object.keys(options.fields) as F[];
    for (const field of this.fieldNames) this.totalLength[field] = 0;
  }

  /** Adds or replaces a document given as analysed terms per field. */
  add(id: string, fieldTerms: Readonly<Record<F, readonly string[]>>): void {
    if (this.documents.has(id)) this.remove(id);
    this.postingCache.clear();
    const frequencies = new Map<string, Map<F, number>>();
    for (const field of this.fieldNames) {
      const terms = fieldTerms[field] ?? [];
      this.totalLength[field]! += terms.length;
      for (const term of terms) {
        let perField = frequencies.get(term);
        if (!perField) frequencies.set(term, (perField = new Map()));
        perField.set(field, (perField.get(field) ?? 0) + 1);
      }
    }
    const termFrequencies = new Map<string, Array<readonly [F, number]>>();
    for (const [term, perField] of frequencies) {
      termFrequencies.set(term, [...perField]);
      this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = new Set()));
      posting.add(id);
    }
    this.documents.set(id, { id, fieldTerms, termFrequencies });
  }

  /** Removes a document; returns whether it existed. */
  remove(id: string): boolean {
    const document = this.documents.get(id);
    if (!document) return false;
    this.postingCache.clear();
    for (const field of this.fieldNames) this.totalLength[field]! -= (document.fieldTerms[field] ?? []).length;
    for (const term of document.termFrequencies.keys()) {
      const df = (this.documentFrequency.get(term) ?? 1) - 1;
      if (df <= 0) this.documentFrequency.delete(term);
      else this.documentFrequency.set(term, df);
      const posting = this.postings.get(term);
      posting?.delete(id);
      if (posting && posting.size === 0) this.postings.delete(term);
    }
    this.documents.delete(id);
    return true;
  }

  /** Whether any indexed document has `term`. */
  has(term: string): boolean {
    return this.documentFrequency.has(term);
  }

  /** The IDF of `term`: `ln(1 + (N - df + 0.5) / (df + 0.5))`. */
  idf(term: string): number {
    const n = this.documents.size;
    const df = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Scores documents with a query term (`accept` filters, `limit` keeps the best); best first, ties by id. */
  search(query: readonly WeightedTerm[], accept?: (id: string) => boolean, limit = Infinity): Bm25Hit[] {
    if (this.documents.size === 0) return [];
    const scores = new Map<string, number>();
    for (const { term, weight } of query) {
      const posting = this.postingFor(term);
      if (!posting) continue;
      const { ids, saturated } = posting;
      const factor = weight * this.idf(term);
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (accept && !accept(id)) continue;
        scores.set(id, (scores.get(id) ?? 0) + factor * saturated[i]!);
      }
    }
    let hits = [...scores].map(([id, score]) => ({ id, score }));
    if (hits.length > limit) {
      // keep the best `limit` (ties at the cut included) before the comparator sort
      const threshold = Float64Array.from(hits, (h) => h.score).sort()[hits.length - limit]!;
      hits = hits.filter((h) => h.score >= threshold);
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.length > limit ? hits.slice(0, limit) : hits;
  }

  /** The posting list of `term` with each document's saturated, length-normalised field tf. */
  private postingFor(term: string): { ids: string[]; saturated: Float64Array } | undefined {
    const cached = this.postingCache.get(term);
    if (cached) return cached;
    const posting = this.postings.get(term);
    if (!posting) return undefined;
    const n = this.documents.size;
    const averageLength: Record<string, number> = {};
    for (const field of this.fieldNames) averageLength[field] = Math.max(this.totalLength[field]! / n, 1e-9);
    const ids = [...posting];
    const saturated = new Float64Array(ids.length);
    ids.forEach((id, index) => {
      const document = this.documents.get(id)!;
      let tf = 0;
      for (const [field, frequency] of document.termFrequencies.get(term) ?? []) {
        const settings = this.options.fields[field];
        const b = settings.b ?? 0.75;
        const length = (document.fieldTerms[field] ?? []).length;
        tf += (settings.weight * frequency) / (1 - b + (b * length) / averageLength[field]!);
      }
      saturated[index] = (tf * (K1 + 1)) / (tf + K1);
    });
    const entry = { ids, saturated };
    this.postingCache.set(term, entry);
    return entry;
  }
}

/** Normalises scores to [0, 1]: `(score - floor) / (max - floor)`, clamped at 0 (all zeros when max <= floor). */
export function normalizeScores(list: ReadonlyArray<{ readonly id: string; readonly score: number }>, floor = 0): Map<string, number> {
  const out = new Map<string, number>();
  let max = -Infinity;
  for (const item of list) max = Math.max(max, item.score);
  const span = max - floor;
  for (const item of list) out.set(item.id, span > 0 ? Math.max(0, (item.score - floor) / span) : 0);
  return out;
}
