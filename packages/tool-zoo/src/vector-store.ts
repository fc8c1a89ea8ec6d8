/** A metadata value a vector record can carry (what Chroma accepts as metadata). */
export type MetadataValue = string | number | boolean;

/** Metadata of a vector record. */
export type VectorMetadata = Record<string, MetadataValue>;

/** Comparison operators of a {@link MetadataFilter} field condition (Chroma's `where` syntax). */
export interface MetadataCondition {
  /** Equal to. */
  $eq?: MetadataValue;
  /** Not equal to (a missing field counts as not equal). */
  $ne?: MetadataValue;
  /** One of. */
  $in?: MetadataValue[];
  /** None of (a missing field counts as none of). */
  $nin?: MetadataValue[];
  /** Greater than (numbers). */
  $gt?: number;
  /** Greater than or equal (numbers). */
  $gte?: number;
  /** Less than (numbers). */
  $lt?: number;
  /** Less than or equal (numbers). */
  $lte?: number;
}

/**
 * A metadata filter in the subset of Chroma's `where` syntax that both stores implement exactly:
 * `{ field: value }`, `{ field: { $eq | $ne | $in | $nin | $gt | $gte | $lt | $lte: … } }`,
 * `{ $and: [...] }`, `{ $or: [...] }`. Several fields in one object must all match.
 *
 * @example
 * ```ts
 * const filter: MetadataFilter = { $and: [{ server: { $in: ["github", "gitlab"] } }, { "tag:write": true }] };
 * ```
 */
export type MetadataFilter =
  | { $and: MetadataFilter[] }
  | { $or: MetadataFilter[] }
  | { [field: string]: MetadataValue | MetadataCondition | MetadataFilter[] };

/** A vector with its id and metadata. */
export interface VectorRecord {
  /** Unique id within the store. */
  id: string;
  /** The embedding. Stores compare by cosine similarity. */
  vector: Float32Array;
  /** Filterable metadata. */
  metadata: VectorMetadata;
}

/** A nearest-neighbour query. */
export interface VectorQuery {
  /** The query embedding. */
  vector: Float32Array;
  /** How many nearest records to return. */
  topK: number;
  /** Only records whose metadata match. */
  filter?: MetadataFilter | undefined;
}

/** A query result: the record id, its cosine similarity to the query, and its metadata. */
export interface VectorMatch {
  /** Record id. */
  id: string;
  /** Cosine similarity in [-1, 1]. */
  score: number;
  /** Record metadata. */
  metadata: VectorMetadata;
}

/**
 * Where the tool zoo keeps vectors. Two implementations share one test suite:
 * {@link createInMemoryVectorStore} (exact, in-process) and {@link createChromaVectorStore}.
 */
export interface VectorStore {
  /** Short name of the implementation, e.g. `memory` or `chroma`. */
  readonly kind: string;
  /** Inserts or replaces records by id. */
  upsert(records: readonly VectorRecord[]): Promise<void>;
  /** Deletes records by id (unknown ids are ignored). */
  delete(ids: readonly string[]): Promise<void>;
  /** The `topK` records most similar to the query vector among those matching the filter, best first. */
  query(query: VectorQuery): Promise<VectorMatch[]>;
  /** Ids of the records whose metadata match `filter` (every id when no filter). */
  ids(filter?: MetadataFilter): Promise<string[]>;
  /** Number of records. */
  count(): Promise<number>;
  /** Releases resources (connections); the data stays where the store keeps it. */
  close(): Promise<void>;
}

function isCondition(value: unknown): value is MetadataCondition {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function conditionMatches(actual: MetadataValue | undefined, condition: MetadataValue | MetadataCondition): boolean {
  if (!isCondition(condition)) return actual === condition;
  for (const [operator, expected] of Object.entries(condition)) {
    switch (operator) {
      case "$eq":
        if (actual !== expected) return false;
        break;
      case "$ne":
        if (actual === expected) return false;
        break;
      case "$in":
        if (actual === undefined || !(expected as MetadataValue[]).includes(actual)) return false;
        break;
      case "$nin":
        if (actual !== undefined && (expected as MetadataValue[]).includes(actual)) return false;
        break;
      case "$gt":
        if (typeof actual !== "number" || !(actual > (expected as number))) return false;
        break;
      case "$gte":
        if (typeof actual !== "number" || !(actual >= (expected as number))) return false;
        break;
      case "$lt":
        if (typeof actual !== "number" || !(actual < (expected as number))) return false;
        break;
      case "$lte":
        if (typeof actual !== "number" || !(actual <= (expected as number))) return false;
        break;
      default:
        throw new Error(`unsupported metadata filter operator ${operator}`);
    }
  }
  return true;
}

/**
 * Evaluates a {@link MetadataFilter} against one record's metadata, exactly as Chroma would.
 *
 * @example
 * ```ts
 * matchesFilter({ server: "github" }, { server: { $in: ["github"] } }) // true
 * ```
 * @throws Error on an operator outside the supported subset.
 */
export function matchesFilter(metadata: VectorMetadata, filter: MetadataFilter | undefined): boolean {
  if (!filter) return true;
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and") {
      if (!(value as MetadataFilter[]).every((f) => matchesFilter(metadata, f))) return false;
    } else if (key === "$or") {
      if (!(value as MetadataFilter[]).some((f) => matchesFilter(metadata, f))) return false;
    } else if (!conditionMatches(metadata[key], value as MetadataValue | MetadataCondition)) return false;
  }
  return true;
}

/**
 * Combines filters with `$and`, dropping empty ones; `undefined` when nothing is left.
 *
 * @example
 * ```ts
 * andFilters({ a: 1 }, undefined) // { a: 1 }
 * ```
 */
export function andFilters(...filters: Array<MetadataFilter | undefined>): MetadataFilter | undefined {
  const present = filters.filter((f): f is MetadataFilter => f !== undefined && Object.keys(f).length > 0);
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return { $and: present };
}
