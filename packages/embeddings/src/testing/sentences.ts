/** Sentences every embedder's tests run on: code trouble, a creative request with an emoji, Spanish, empty, a word, a long request. */
export const SAMPLE_SENTENCES: readonly string[] = [
  "my program crashes with a null pointer exception",
  "Write me a short poem about autumn leaves 🍂",
  "¿Dónde está la biblioteca más cercana?",
  "",
  "ok",
  "Summarise the attached quarterly report and list the three biggest risks it mentions, with page numbers. ".repeat(6),
];
