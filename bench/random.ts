/** Deterministic randomness for the benchmark and the soak: the same seed, the same numbers. */

/** Pseudo-random numbers in [0, 1) from a seed (a linear congruential generator: fast, reproducible). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Zipf's law over ranks 0..n-1 (P(k) ∝ (k+1)^-s): maps a uniform number in [0, 1) to a rank. */
export function zipf(n: number, s: number): (u: number) => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) cdf[k] = sum += (k + 1) ** -s;
  return (u) => {
    const x = u * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** A fixed shuffle of `xs` (Fisher–Yates from a seed). */
export function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const r = rng(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
