// Edit distance between package names: optimal string alignment (Levenshtein
// plus a swap of two neighbouring characters as one edit), cut off at a bound
// so a long or far name costs little. Inputs are capped at MAX_LENGTH.
export const MAX_LENGTH = 214;

/** Distance of a and b, or bound + 1 when it is over the bound (or an input is over MAX_LENGTH). */
export function boundedDistance(a: string, b: string, bound: number): number {
  const over = bound + 1;
  if (a.length > MAX_LENGTH || b.length > MAX_LENGTH) return over;
  if (Math.abs(a.length - b.length) > bound) return over;
  if (a === b) return 0;
  const cols = b.length + 1;
  let prev2 = new Array<number>(cols).fill(0);
  let prev = Array.from({ length: cols }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(cols).fill(0);
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > bound) return over;
    prev2 = prev;
    prev = cur;
  }
  return Math.min(prev[b.length]!, over);
}

export interface TypoBand {
  minLength: number;
  maxDistance: number;
}

/** The distance bound for a name of this length: the last band it reaches, or -1 (not compared). */
export function boundFor(length: number, bands: readonly TypoBand[]): number {
  let bound = -1;
  for (const band of bands) if (length >= band.minLength) bound = band.maxDistance;
  return bound;
}

/**
 * The popular name `name` is a near-typo of, nearest first (ties: list order),
 * or null when it is itself popular, too short to compare, or near none.
 */
export function nearestPopular(name: string, popular: readonly string[], bands: readonly TypoBand[]): { name: string; distance: number } | null {
  if (popular.includes(name)) return null;
  const bound = boundFor(name.length, bands);
  if (bound < 1) return null;
  let best: { name: string; distance: number } | null = null;
  for (const candidate of popular) {
    const d = boundedDistance(name, candidate, bound);
    if (d >= 1 && d <= bound && (best === null || d < best.distance)) best = { name: candidate, distance: d };
  }
  return best;
}
