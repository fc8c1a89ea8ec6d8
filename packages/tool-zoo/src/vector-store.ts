/** A metadata value a vector record can carry (what Chroma accepts as metadata). */
export type MetadataValue = string | number | boolean;

/** Metadata of a vector record. */
export type VectorMetadata = Record<string, MetadataValue>;

/** A {@link MetadataFilter} field condition (Chroma's `where` syntax): the field is one of the values. */
export interface MetadataCondition {
  $in: MetadataValue[];
}

/**
 * A metadata filter in the subset of Chroma's `where` that both stores implement exactly (the one the tool index needs):
 * `{ field: value }`, `{ field: { $in: […] } }`, `$and`, `$or`; several fields must all match.
 */
export type MetadataFilter =
  | { $and: MetadataFilter[] }
  | { $or: MetadataFilter[] }
  | { [field: string]: MetadataValue | MetadataCondition | MetadataFilter[] };

/** A vector (compared by cosine similarity) with its id, unique in the store, and filterable metadata. */
export interface VectorRecord {
  id: string;
  vector: Float32Array;
  metadata: VectorMetadata;
}

/** A nearest-neighbour query: the `topK` records nearest to `vector` among those matching `filter`. */
export interface VectorQuery {
  vector: Float32Array;
  topK: number;
  filter?: MetadataFilter | undefined;
}

/** A query result: the record id, its cosine similarity to the query in [-1, 1], and its metadata. */
export interface VectorMatch {
  id: string;
  score: number;
  metadata: VectorMetadata;
}

/** Where the tool zoo keeps vectors: in process (exact) or in Chroma, under one test suite. */
export interface VectorStore {
  /** Inserts or replaces records by id. */
  upsert(records: readonly VectorRecord[]): Promise<void>;
  /** Deletes records by id (unknown ids are ignored). */
  delete(ids: readonly string[]): Promise<void>;
  /** The `topK` records most similar to the query vector among those matching the filter, best first. */
  query(query: VectorQuery): Promise<VectorMatch[]>;
  /** Ids of the records whose metadata match `filter` (every id when no filter). */
  ids(filter?: MetadataFilter): Promise<string[]>;
  /** Releases resources (connections); the data stays where the store keeps it. */
  close(): Promise<void>;
}

function isCondition(value: unknown): value is MetadataCondition {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function conditionMatches(actual: MetadataValue | undefined, condition: MetadataValue | MetadataCondition): boolean {
  if (!isCondition(condition)) return actual === condition;
  const operator = Object.keys(condition).find((key) => key !== "$in");
  if (operator !== undefined) throw new Error(`unsupported metadata filter operator ${operator}`);
  return actual !== undefined && condition.$in.includes(actual);
}

/** Evaluates a {@link MetadataFilter} against a record's metadata as Chroma would. @throws Error on other operators. */
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

/** Combines filters with `$and`, dropping empty ones; `undefined` when nothing is left. */
export function andFilters(...filters: Array<MetadataFilter | undefined>): MetadataFilter | undefined {
  const present = filters.filter((f): f is MetadataFilter => f !== undefined && Object.keys(f).length > 0);
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return { $and: present };
}
