import fitted from "./query-adapter.json" with { type: "json" };

/**
 * A low-rank linear map of request vectors, `u = q + U·(Vᵀ·q)`, fitted so that a request's vector points at the
 * vectors of the tools it needs. Tool vectors are left as they are, so stored vectors stay valid.
 */
export interface QueryAdapter {
  /** Id of the embedder whose vectors the map was fitted on; any other embedder's vectors pass unchanged. */
  readonly embedder: string;
  /** The mapped (not normalised) vector of a request; the input is not modified. */
  apply(vector: Float32Array): Float32Array;
}

/** One int8 matrix row of a {@link QueryAdapterFile}. */
export interface QuantisedRow {
  scale: number;
  values: string;
}

/** The adapter file `scripts/train-query-adapter.mjs` writes (int8 rows, one scale each, base64). */
export interface QueryAdapterFile {
  embedder: string;
  dimensions: number;
  rank: number;
  /** Factor of the learned part: `u = q + strength·U·Vᵀ·q`. @default 1 */
  strength?: number;
  U: QuantisedRow[];
  V: QuantisedRow[];
}

/** Dequantises an int8 matrix (one scale per row) into a row-major float array. */
function matrix(rows: readonly QuantisedRow[], rank: number): Float32Array {
  const out = new Float32Array(rows.length * rank);
  rows.forEach((row, i) => {
    const values = new Int8Array(Buffer.from(row.values, "base64"));
    for (let r = 0; r < rank; r++) out[i * rank + r] = values[r]! * row.scale;
  });
  return out;
}

/** Builds a {@link QueryAdapter} from the file `scripts/train-query-adapter.mjs` writes. */
export function queryAdapterFromFile(file: QueryAdapterFile): QueryAdapter {
  const { dimensions, rank } = file;
  const strength = file.strength ?? 1;
  const U = matrix(file.U, rank);
  const V = matrix(file.V, rank);
  const h = new Float64Array(rank);
  return {
    embedder: file.embedder,
    apply(q) {
      if (q.length !== dimensions) return q;
      h.fill(0);
      for (let i = 0; i < dimensions; i++) {
        const qi = q[i]!;
        if (qi === 0) continue;
        const base = i * rank;
        for (let r = 0; r < rank; r++) h[r]! += V[base + r]! * qi;
      }
      const u = new Float32Array(dimensions);
      for (let i = 0; i < dimensions; i++) {
        const base = i * rank;
        let s = 0;
        for (let r = 0; r < rank; r++) s += U[base + r]! * h[r]!;
        u[i] = q[i]! + strength * s;
      }
      return u;
    },
  };
}

let builtIn: QueryAdapter | undefined;

/**
 * The adapter shipped with the package (`src/query-adapter.json`), fitted for the Universal Sentence Encoder lite
 * embedder of `@afw/embeddings` on public tool-retrieval training data (Seal-Tools, ToolAlpaca), none of the
 * evaluation sets. Built on first use.
 */
export function builtInQueryAdapter(): QueryAdapter {
  builtIn ??= queryAdapterFromFile(fitted as QueryAdapterFile);
  return builtIn;
}
