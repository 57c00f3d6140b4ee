// A small path glob matcher for data-driven path rules: `*` and `?` match
// inside one path segment, `**` matches zero or more whole segments. No regex
// is built from a pattern; both levels are table-driven (at most
// pattern length × path length steps), so no input can make it backtrack.

/** Whether one segment matches a segment pattern with `*` and `?`. */
export function matchSegment(pattern: string, segment: string): boolean {
  // Classic wildcard walk: remember the last `*` and retry from one char later.
  let p = 0;
  let s = 0;
  let star = -1;
  let mark = 0;
  while (s < segment.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === segment[s])) {
      p++;
      s++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = s;
    } else if (star >= 0) {
      p = star + 1;
      s = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether a POSIX relative path matches a glob such as `**\/migrations/**` or `app/**\/route.ts`. */
export function matchGlob(pattern: string, file: string): boolean {
  const pat = pattern.split('/');
  const seg = file.split('/');
  // can[i][j]: pat[i..] matches seg[j..]; filled from the end.
  let next: boolean[] = new Array<boolean>(seg.length + 1).fill(false);
  next[seg.length] = true;
  for (let i = pat.length - 1; i >= 0; i--) {
    const cur: boolean[] = new Array<boolean>(seg.length + 1).fill(false);
    for (let j = seg.length; j >= 0; j--) {
      if (pat[i] === '**') cur[j] = next[j]! || (j < seg.length && cur[j + 1]!);
      else cur[j] = j < seg.length && matchSegment(pat[i]!, seg[j]!) && next[j + 1]!;
    }
    next = cur;
  }
  return next[0]!;
}

/** The first glob of `patterns` that `file` matches, or null. */
export function firstMatch(patterns: readonly string[], file: string): string | null {
  return patterns.find((p) => matchGlob(p, file)) ?? null;
}
