/**
 * The signals of a candidate tool for a query that a learned linear model may re-rank by (see
 * `scripts/fit-fusion.mjs` and docs/decisions/2026-11-30-tool-search-learned-fusion.md). Values, not weights: the
 * index computes them for its leading candidates.
 */
export const FUSION_FEATURES = [
  /** The hand-weighted score of the index. */
  "score",
  /** Normalised BM25F score. */
  "keyword",
  /** Cosine similarity of query and tool vectors, and its gap to the best candidate's. */
  "semantic",
  "semanticGap",
  /** Server boost (the query names the tool's server). */
  "domain",
  /** Lexical signals of ranking-signals.ts, unweighted. */
  "action",
  "mismatch",
  "number",
  "surface",
  /** Reciprocal ranks (1 / (1 + rank)) in the hand-weighted, the keyword and the semantic ranking (0: not ranked). */
  "rank",
  "keywordRank",
  "semanticRank",
  /** Share of the query's terms in the tool's text, in its name, and of its name's terms in the query. */
  "coverage",
  "nameCoverage",
  "nameShare",
  /** Weighted share of the query's learned associated terms that the tool's text has. */
  "association",
] as const;

/** One signal of {@link FUSION_FEATURES}. */
export type FusionFeature = (typeof FUSION_FEATURES)[number];

/** A candidate's signals by name. */
export type FusionFeatures = Readonly<Record<FusionFeature, number>>;

/**
 * A learned linear re-ranker of the first `candidates` tools: score = Σ weight · (value − mean) / scale, in
 * {@link FUSION_FEATURES} order (`features` records the order it was fitted with).
 */
export interface FusionModel {
  features: readonly string[];
  mean: readonly number[];
  scale: readonly number[];
  weights: readonly number[];
  candidates: number;
}

/** The learned score of a candidate. @throws Error when the model was fitted on other features. */
export function fusionScore(model: FusionModel, values: FusionFeatures): number {
  if (model.features.length !== FUSION_FEATURES.length || model.features.some((name, i) => name !== FUSION_FEATURES[i])) {
    throw new Error(`fusion model features ${model.features.join(",")} are not ${FUSION_FEATURES.join(",")}`);
  }
  let score = 0;
  FUSION_FEATURES.forEach((name, i) => {
    score += (model.weights[i]! * (values[name] - model.mean[i]!)) / (model.scale[i]! || 1);
  });
  return score;
}

/**
 * Re-orders the first `model.candidates` of a ranking (best first) by the model's score; they take over the
 * original scores in order, so that the scores stay sorted and keep their scale (diversity and confidence read them).
 * Ties keep the original order.
 */
export function rerankByFusion<T extends { score: number }>(tools: readonly T[], model: FusionModel, valuesOf: (tool: T, rank: number) => FusionFeatures): T[] {
  const head = tools.slice(0, model.candidates);
  const learned = head.map((tool, rank) => ({ tool, rank, learned: fusionScore(model, valuesOf(tool, rank)) }));
  learned.sort((x, y) => y.learned - x.learned || x.rank - y.rank);
  const reordered = learned.map(({ tool }, at) => ({ ...tool, score: head[at]!.score }));
  return [...reordered, ...tools.slice(model.candidates)];
}

/** What the features of a query's candidates are computed from (once per query). */
export interface FusionQuery {
  /** The query's own analysed terms. */
  terms: ReadonlySet<string>;
  /** Its learned associated terms with their strengths (term-associations.ts). */
  associated: ReadonlyMap<string, number>;
  /** Positions in the keyword and semantic rankings, and the best cosine similarity. */
  keywordRank: ReadonlyMap<string, number>;
  semanticRank: ReadonlyMap<string, number>;
  bestSemantic: number;
}

/** A candidate as {@link fusionFeatures} reads it: its score components, rank, text terms and signal values. */
export interface FusionCandidate {
  id: string;
  score: number;
  keyword: number;
  semantic: number;
  domain: number;
  rank: number;
  /** Every term of the tool's text, and of its name. */
  text: ReadonlySet<string>;
  name: readonly string[];
  signals: Readonly<{ action: number; mismatch: number; number: number; surface: number }>;
}

const reciprocal = (rank: number | undefined) => (rank === undefined ? 0 : 1 / (1 + rank));
const share = (terms: Iterable<string>, within: ReadonlySet<string>) => {
  let all = 0;
  let hits = 0;
  for (const term of terms) {
    all++;
    if (within.has(term)) hits++;
  }
  return all ? hits / all : 0;
};

/** The {@link FusionFeatures} of a candidate. */
export function fusionFeatures(query: FusionQuery, candidate: FusionCandidate): FusionFeatures {
  const name = new Set(candidate.name);
  let associated = 0;
  let associatedHits = 0;
  for (const [term, strength] of query.associated) {
    associated += strength;
    if (candidate.text.has(term)) associatedHits += strength;
  }
  return {
    score: candidate.score,
    keyword: candidate.keyword,
    semantic: candidate.semantic,
    semanticGap: query.semanticRank.size ? candidate.semantic - query.bestSemantic : 0,
    domain: candidate.domain,
    ...candidate.signals,
    rank: reciprocal(candidate.rank),
    keywordRank: reciprocal(query.keywordRank.get(candidate.id)),
    semanticRank: reciprocal(query.semanticRank.get(candidate.id)),
    coverage: share(query.terms, candidate.text),
    nameCoverage: share(query.terms, name),
    nameShare: share(name, query.terms),
    association: associated ? associatedHits / associated : 0,
  };
}
