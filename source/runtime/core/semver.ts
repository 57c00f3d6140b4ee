// SemVer versions and the small range language of engines.gsd: comparators
// (>=1.2.0, <2.0.0, =1.0.0, a bare 1.0.0), ^ and ~, joined by spaces (all must
// hold) and || (any alternative). Parsed by splitting and one anchored,
// non-backtracking pattern per token; anything else is not a range.

export type Version = [number, number, number, string[]];

const VERSION = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;
const COMPARATOR = /^(>=|<=|>|<|=|\^|~)?(.*)$/;

export function parseVersion(text: string): Version | null {
  const match = VERSION.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3]), match[4] ? match[4].split('.') : []] : null;
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  // A pre-release sorts before its release; identifiers compare numerically when both are numbers.
  const [pa, pb] = [a[3], b[3]];
  if (pa.length === 0 || pb.length === 0) return pb.length - pa.length;
  for (let i = 0; i < Math.min(pa.length, pb.length); i += 1) {
    const [x, y] = [pa[i]!, pb[i]!];
    if (x === y) continue;
    const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (nx && ny) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

type Test = (v: Version) => boolean;

/** A predicate for the range, or null when the text is not a range of this language. */
export function parseRange(text: string): Test | null {
  const alternatives = text.split('||').map((part) => part.trim());
  const parsed: Test[][] = [];
  for (const alternative of alternatives) {
    if (alternative === '') return null;
    const tests: Test[] = [];
    for (const token of alternative.split(/\s+/)) {
      const test = comparator(token);
      if (!test) return null;
      tests.push(test);
    }
    parsed.push(tests);
  }
  return (v) => parsed.some((tests) => tests.every((test) => test(v)));
}

function comparator(token: string): Test | null {
  const [, operator = '=', rest = ''] = COMPARATOR.exec(token)!;
  const bound = parseVersion(rest);
  if (!bound) return null;
  const cmp = (v: Version) => compareVersions(v, bound);
  switch (operator) {
    case '>=': return (v) => cmp(v) >= 0;
    case '>': return (v) => cmp(v) > 0;
    case '<=': return (v) => cmp(v) <= 0;
    case '<': return (v) => cmp(v) < 0;
    case '=': return (v) => cmp(v) === 0;
    case '~': return (v) => cmp(v) >= 0 && v[0] === bound[0] && v[1] === bound[1];
    default: {
      // ^: the left-most non-zero part stays the same.
      const [major, minor] = bound;
      return (v) => cmp(v) >= 0 && (major > 0 ? v[0] === major : minor > 0 ? v[0] === 0 && v[1] === minor : v[0] === 0 && v[1] === 0 && v[2] === bound[2]);
    }
  }
}

export function satisfies(version: string, range: string): boolean | null {
  const v = parseVersion(version);
  const test = parseRange(range);
  return v && test ? test(v) : null;
}
