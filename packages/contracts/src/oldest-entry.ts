/** A live iterator over a map's entries, kept per map so that taking the oldest entry does not re-walk deleted slots. */
const cursors = new WeakMap<Map<unknown, unknown>, Iterator<[unknown, unknown]>>();

/**
 * Removes and returns the oldest entry of `map` (the first in insertion order), or undefined when it is empty: the
 * eviction step of a map used as a bounded, insertion-ordered (or LRU, by delete + set) memory.
 *
 * Same result as `map.delete(map.keys().next().value)`, without its cost: V8 leaves a deleted entry as a hole until the
 * table is rebuilt, and a fresh iterator walks every hole at the front (thousands in a full 10,000-entry map evicting one
 * entry per insert). Here one live iterator per map resumes where the last eviction stopped; every entry before it was
 * taken (and deleted) by this function or deleted since, and later inserts (re-inserts too) come after it.
 * @example
 * ```ts
 * if (recent.size > 1_000) takeOldest(recent);
 * ```
 */
export function takeOldest<K, V>(map: Map<K, V>): [K, V] | undefined {
  if (map.size === 0) return undefined;
  const key = map as Map<unknown, unknown>;
  let cursor = cursors.get(key) as Iterator<[K, V]> | undefined;
  let next = cursor?.next();
  if (!cursor || !next || next.done) {
    // No cursor yet, or one that ran out (possible only if the map was emptied and refilled under it): start over.
    cursor = map.entries();
    cursors.set(key, cursor as Iterator<[unknown, unknown]>);
    next = cursor.next();
    if (next.done) return undefined;
  }
  map.delete(next.value[0]);
  return next.value;
}
