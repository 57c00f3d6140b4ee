// Small text helpers the compiler's stages share.

/** `text` as a literal inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Where the first of `literals` at or after `from` starts in `text`, or -1, in
 * one forward scan per distinct first character (no regular expression,
 * nothing that backtracks): each occurrence of a first character is checked
 * against only the literals that share its first two characters, the second
 * looked up in a table (a Map lookup per occurrence cost more than the scan:
 * a `.` starts every root and ends every sentence). Built once, run on every
 * emitted file.
 */
export function literalFinder(literals: readonly string[]): (text: string, from?: number) => number {
  // The empty string is everywhere.
  if (literals.includes('')) return (text, from = 0) => (from <= text.length ? from : -1);
  const unique = [...new Set(literals)];
  const finders = [...new Set(unique.map((literal) => literal.charCodeAt(0)))].map((first) => firstCharFinder(first, unique.filter((literal) => literal.charCodeAt(0) === first)));
  if (finders.length === 1) return (text, from = 0) => finders[0]!(text, from);
  return (text, from = 0) => {
    let earliest = -1;
    for (const find of finders) {
      const at = find(text, from);
      if (at !== -1 && (earliest === -1 || at < earliest)) earliest = at;
    }
    return earliest;
  };
}

/** literalFinder for literals that all start with the code unit `first`. */
function firstCharFinder(first: number, literals: readonly string[]): (text: string, from: number) => number {
  const char = String.fromCharCode(first);
  if (literals.some((literal) => literal.length === 1)) return (text, from) => text.indexOf(char, from);
  // Literals by their second code unit; `seconds` marks the code units that start one.
  const bySecond = new Map<number, string[]>();
  for (const literal of literals) bySecond.set(literal.charCodeAt(1), [...(bySecond.get(literal.charCodeAt(1)) ?? []), literal]);
  const seconds = new Uint8Array(0x10000);
  for (const second of bySecond.keys()) seconds[second] = 1;
  return (text, from) => {
    for (let at = text.indexOf(char, from); at !== -1; at = text.indexOf(char, at + 1)) {
      // Past the end, charCodeAt is NaN and the table has no such entry.
      const second = text.charCodeAt(at + 1);
      if (seconds[second] !== 1) continue;
      // A loop, not some(): a callback made per candidate was 73 MB of garbage in an --all build of the upstream corpus.
      for (const literal of bySecond.get(second)!) if (text.startsWith(literal, at)) return at;
    }
    return -1;
  };
}

/** Whether a value read back (a cache entry, stored JSON) is a list of strings. */
export function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/**
 * A path as a file system that tells neither case nor Unicode form apart
 * (macOS, Windows) sees it: two paths with the same folded form are one file
 * there (Notes.md and notes.md; é composed and decomposed).
 */
export function foldedPath(path: string): string {
  return path.normalize('NFC').toLowerCase();
}
