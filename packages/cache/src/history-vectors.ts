import type { HistoryQuery, HistorySearchMode, SessionTurn } from "@afw/contracts";

/** Smallest similarity of a turn found by meaning alone (no shared word). */
export const MIN_MEANING_SIMILARITY = 0.35;
/** Weight of the (IDF-weighted) share of query words a turn contains, added to its similarity in `hybrid` mode. */
export const KEYWORD_WEIGHT = 0.5;
/** Characters of a question that are embedded. */
const EMBEDDED_CHARS = 500;
/** Turns embedded per call of the embedder: small, because the router's classifier shares the embedding worker
 * and waits behind a batch (8 questions are ~0.1 s of USE lite on one idle core). */
export const EMBED_BATCH = 8;

/** The text of a turn that is embedded: its question. */
export function embeddedText(turn: SessionTurn): string {
  return turn.question.slice(0, EMBEDDED_CHARS);
}

/** The mode a query runs in: its `mode` (default `hybrid`), or `keyword` when the store has no embedder. */
export function searchMode(query: HistoryQuery, hasEmbedder: boolean): HistorySearchMode {
  return hasEmbedder ? (query.mode ?? "hybrid") : "keyword";
}

/** A unit-length vector as int8 (x 127): a quarter of its float32 size, similarities within about 0.01. */
export function quantize(vector: Float32Array): Int8Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  const scale = norm > 0 ? 127 / Math.sqrt(norm) : 0;
  return Int8Array.from(vector, (x) => Math.max(-127, Math.min(127, Math.round(x * scale))));
}

/**
 * Inverse document frequency of each query word, normalised to sum to 1 (`ln(1 + turns / (1 + df))`):
 * a word most turns contain weighs little. All zero without words.
 */
export function idfWeights(documentFrequencies: readonly number[], turns: number): number[] {
  const raw = documentFrequencies.map((df) => Math.log(1 + turns / (1 + df)));
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((weight) => (total > 0 ? weight / total : 0));
}

/**
 * The score a turn ranks by: `meaning` its similarity, `hybrid` its similarity plus {@link KEYWORD_WEIGHT} times
 * `keywordShare` (the {@link idfWeights} of the query words it contains); undefined when it does not qualify (no shared
 * word and a similarity under {@link MIN_MEANING_SIMILARITY}).
 */
export function meaningScore(mode: "meaning" | "hybrid", sim: number, matchedWords: number, keywordShare: number): number | undefined {
  if (mode === "meaning") return sim >= MIN_MEANING_SIMILARITY ? sim : undefined;
  if (sim < MIN_MEANING_SIMILARITY && matchedWords === 0) return undefined;
  return sim + KEYWORD_WEIGHT * keywordShare;
}

/** Bits of a {@link SignSketch}. */
export const SKETCH_BITS = 256;

/**
 * Random-hyperplane sign sketches (SimHash): bit `b` of a vector's sketch is the sign of its product with plane `b`.
 */
export class SignSketch {
  private readonly planes: Float32Array[];

  constructor(readonly dimensions: number) {
    let seed = 0x9e3779b9 ^ dimensions;
    const uniform = () => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const gaussian = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
    this.planes = Array.from({ length: SKETCH_BITS }, () => Float32Array.from({ length: dimensions }, gaussian));
  }

  /** The {@link SKETCH_BITS}-bit sketch of `vector`, as bytes. */
  sketch(vector: ArrayLike<number>): Uint8Array {
    const bytes = new Uint8Array(SKETCH_BITS / 8);
    this.planes.forEach((plane, b) => {
      let dot = 0;
      for (let i = 0; i < plane.length; i++) dot += plane[i]! * (vector[i] ?? 0);
      if (dot >= 0) bytes[b >> 3]! |= 1 << (b & 7);
    });
    return bytes;
  }
}

/** Set bits of a 32-bit word. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/**
 * Indexes of the `k` records nearest `query` by Hamming distance in a log of fixed-size records
 * (`recordBytes` each, a multiple of 4, the sketch first), nearest first.
 */
export function nearestSketches(log: Uint8Array, recordBytes: number, query: Uint8Array, k: number): number[] {
  const count = Math.floor(log.byteLength / recordBytes);
  // The sketches are read as 32-bit words: a log that is not 4-byte aligned is copied first.
  const aligned = log.byteOffset % 4 === 0 ? log : Uint8Array.from(log.subarray(0, count * recordBytes));
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, (count * recordBytes) / 4);
  const q = new Uint32Array(Uint8Array.from(query).buffer);
  const stride = recordBytes / 4;
  const distances = new Uint16Array(count);
  const histogram = new Uint32Array(SKETCH_BITS + 1);
  const n = q.length;
  for (let r = 0, offset = 0; r < count; r++, offset += stride) {
    let d = 0;
    for (let w = 0; w < n; w++) d += popcount(words[offset + w]! ^ q[w]!);
    distances[r] = d;
    histogram[d]! += 1;
  }
  let threshold = 0;
  for (let seen = 0; threshold <= SKETCH_BITS && seen + histogram[threshold]! < k; threshold++) seen += histogram[threshold]!;
  const picked: number[] = [];
  for (let r = 0; r < count; r++) if (distances[r]! <= threshold) picked.push(r);
  return picked.sort((a, b) => distances[a]! - distances[b]! || b - a).slice(0, k);
}

/**
 * A process-local copy of an append-only record log kept in Redis, so a search reads only the records appended since
 * the last one (not the whole log). The log changes otherwise only when it is rewritten as a whole (compaction,
 * expiry), which always changes its first record: {@link SketchLogMirror.update} then takes the full log.
 */
export class SketchLogMirror {
  private bytes = new Uint8Array(0);
  /** Bytes of whole records held. */
  length = 0;

  constructor(readonly recordBytes: number) {}

  /** True when the log's current first record (`head`) is not the one this copy started from. */
  stale(head: Uint8Array): boolean {
    if (this.length === 0) return false;
    return head.byteLength !== this.recordBytes || !Buffer.from(head).equals(this.bytes.subarray(0, this.recordBytes));
  }

  /** Starts over from an empty log. */
  reset(): void {
    this.length = 0;
  }

  /** Appends the whole records of `tail` (bytes read from offset {@link SketchLogMirror.length} of the log). */
  append(tail: Uint8Array): void {
    const whole = tail.byteLength - (tail.byteLength % this.recordBytes);
    if (this.length + whole > this.bytes.byteLength) {
      const grown = new Uint8Array(Math.max(this.length + whole, 2 * this.bytes.byteLength));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(tail.subarray(0, whole), this.length);
    this.length += whole;
  }

  /** The records held (a view, valid until the next change). */
  get log(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}
