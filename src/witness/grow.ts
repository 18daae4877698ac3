/** A copy of typed array `a` with room for `size` elements (the packed tables grow by doubling). */
export function grow<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}
