/** Common English and German function words that never make a good routing keyword. */
const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both but by can " +
    "could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is " +
    "it its itself just me more most my no nor not now of off on once only or other our ours out over own same she should so some " +
    "such than that the their theirs them then there these they this those through to too under until up very was we were what when " +
    "where which while who whom why will with would you your yours please thanks thank hi hello hey get got make use using want need " +
    "like know tell show give one two also can't don't i'm it's der die das und ist nicht ein eine einen wie was wer ich du sie es " +
    "mit für auf den dem des im in zu von bitte kann können"
  ).split(/\s+/),
);

/**
 * Lower-cased word tokens of `text` worth keeping as keywords: letters/digits, at least 3
 * characters, not a stopword, not a pure number.
 *
 * @example
 * ```ts
 * keywordTokens("How do I restart the Kubernetes pod?") // ["restart", "kubernetes", "pod"]
 * ```
 */
export function keywordTokens(text: string): string[] {
  const words = text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) ?? [];
  return words.filter((word) => word.length >= 3 && !STOPWORDS.has(word) && !/^\d+$/.test(word));
}

/**
 * The words that characterise `group` against `corpus`: ranked by how many of the group's texts
 * contain them times how rare they are in the corpus (document frequency × inverse document
 * frequency). Only words in at least `minShare` of the group's texts qualify.
 *
 * @example
 * ```ts
 * distinctiveKeywords(["reset my password", "password reset link"], allQuestions, { limit: 3 }) // ["password", "reset", ...]
 * ```
 */
export function distinctiveKeywords(
  group: readonly string[],
  corpus: readonly string[],
  options: { limit?: number; minShare?: number } = {},
): string[] {
  const limit = options.limit ?? 5;
  const minShare = options.minShare ?? 0.5;
  const documentFrequency = (texts: readonly string[]) => {
    const counts = new Map<string, number>();
    for (const text of texts) for (const token of new Set(keywordTokens(text))) counts.set(token, (counts.get(token) ?? 0) + 1);
    return counts;
  };
  const inGroup = documentFrequency(group);
  const inCorpus = documentFrequency(corpus);
  const needed = Math.max(1, Math.ceil(minShare * group.length));
  return [...inGroup.entries()]
    .filter(([, count]) => count >= needed)
    .map(([token, count]) => ({
      token,
      score: (count / group.length) * Math.log((corpus.length + 1) / ((inCorpus.get(token) ?? count) + 0.5)),
    }))
    .sort((a, b) => b.score - a.score || (a.token < b.token ? -1 : 1))
    .slice(0, limit)
    .map(({ token }) => token);
}
