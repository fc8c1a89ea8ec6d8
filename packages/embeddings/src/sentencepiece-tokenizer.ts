/**
 * A SentencePiece unigram tokenizer (Viterbi segmentation over a scored vocabulary), as used by
 * the Universal Sentence Encoder lite. It reproduces the ids of the tokenizer that ships with
 * `@energetic-ai/embeddings` for the same vocabulary (tested on every exemplar sentence), so the
 * direct model runner in this package gives the same embeddings as the graph-model path.
 *
 * Behaviour: NFKC normalisation; a word-boundary mark `▁` before the text and in place of every
 * space; a single unknown character becomes id 0 with score 0; runs of unknown ids collapse into
 * one; ties between segmentations go to the candidate considered last.
 */

/** One vocabulary entry: the piece and its log-probability score. */
export type SentencePieceEntry = readonly [piece: string, score: number];

/** A tokenizer built by {@link createSentencePieceTokenizer}. */
export interface SentencePieceTokenizer {
  /** Token ids of `text` (an empty text gives no ids). */
  encode(text: string): number[];
}

const WORD_BOUNDARY = "\u2581";
const UNKNOWN_ID = 0;

interface Piece {
  id: number;
  score: number;
  /** Length of the piece in UTF-16 code units (the back-tracking step). */
  units: number;
}

/**
 * Builds a tokenizer from a SentencePiece vocabulary (`[piece, score]` pairs, id = position).
 *
 * @param vocabulary - The pieces; the first `reservedCount` entries (control symbols) are never
 * produced by segmentation.
 * @param reservedCount - How many leading control symbols to skip.
 * @default reservedCount 6
 * @example
 * ```ts
 * const tokenizer = createSentencePieceTokenizer(vocabulary);
 * tokenizer.encode("hello world"); // e.g. [1234, 567]
 * ```
 */
export function createSentencePieceTokenizer(vocabulary: readonly SentencePieceEntry[], reservedCount = 6): SentencePieceTokenizer {
  const pieces = new Map<string, Piece>();
  // Every proper prefix of a piece, so the scan from a position stops as soon as no piece can match.
  const prefixes = new Set<string>();
  for (let id = reservedCount; id < vocabulary.length; id++) {
    const entry = vocabulary[id];
    if (!entry) continue;
    const [piece, score] = entry;
    pieces.set(piece, { id, score, units: piece.length });
    let prefix = "";
    for (const symbol of Array.from(piece).slice(0, -1)) {
      prefix += symbol;
      prefixes.add(prefix);
    }
  }
  const unknownUnits = vocabulary[UNKNOWN_ID]?.[0].length ?? 1;

  return {
    encode(text: string): number[] {
      const normalized = text.normalize("NFKC");
      if (normalized.length === 0) return [];
      const symbols = Array.from(WORD_BOUNDARY + normalized.replaceAll(" ", WORD_BOUNDARY));
      const n = symbols.length;
      // candidates[end] lists [start, piece] pairs in increasing start order (starts are scanned in order).
      const candidates: Array<Array<[number, Piece]>> = Array.from({ length: n + 1 }, () => []);
      for (let start = 0; start < n; start++) {
        let matched = false;
        let text = "";
        for (let end = start + 1; end <= n; end++) {
          text += symbols[end - 1];
          const piece = pieces.get(text);
          if (piece) {
            candidates[end]!.push([start, piece]);
            matched = true;
          }
          if (!prefixes.has(text)) break;
        }
        if (!matched) candidates[start + 1]!.push([start, { id: UNKNOWN_ID, score: 0, units: unknownUnits }]);
      }

      const best = new Float64Array(n + 1);
      const chosen: Piece[] = new Array<Piece>(n + 1);
      for (let end = 1; end <= n; end++) {
        for (const [start, piece] of candidates[end]!) {
          const score = piece.score + best[start]!;
          // 0 marks "no path yet" (scores are negative log-probabilities).
          if (best[end] === 0 || score >= best[end]!) {
            best[end] = score;
            chosen[end] = piece;
          }
        }
      }
      const reversed: number[] = [];
      for (let at = n; at > 0; ) {
        const piece = chosen[at];
        if (!piece) break;
        reversed.push(piece.id);
        at -= piece.units;
      }
      const ids: number[] = [];
      for (let i = reversed.length - 1; i >= 0; i--) {
        const id = reversed[i]!;
        if (id === UNKNOWN_ID && ids.at(-1) === UNKNOWN_ID) continue;
        ids.push(id);
      }
      return ids;
    },
  };
}
