/** Dot product of two vectors: the cosine similarity of unit vectors, and a vector's squared length with itself. */
export function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, x, i) => sum + x * b[i]!, 0);
}
