// Small text helpers the compiler's stages share.

/** `text` as a literal inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Where the first of `literals` at or after `from` starts in `text`, or -1, in
 * one forward scan per distinct first character (no regular expression,
 * nothing that backtracks): each occurrence of a first character is checked
 * against only the literals that share its first two characters. Built once,
 * run on every emitted file.
 */
export function literalFinder(literals: readonly string[]): (text: string, from?: number) => number {
  // The empty string is everywhere.
  if (literals.includes('')) return (text, from = 0) => (from <= text.length ? from : -1);
  const byPair = new Map<number, string[]>();
  const singles = new Set<number>();
  const firsts = new Set<number>();
  for (const literal of new Set(literals)) {
    const first = literal.charCodeAt(0);
    firsts.add(first);
    if (literal.length === 1) singles.add(first);
    else byPair.set((first << 16) | literal.charCodeAt(1), [...(byPair.get((first << 16) | literal.charCodeAt(1)) ?? []), literal]);
  }
  const nextOf = (text: string, code: number, from: number): number => {
    const char = String.fromCharCode(code);
    for (let at = text.indexOf(char, from); at !== -1; at = text.indexOf(char, at + 1)) {
      if (singles.has(code)) return at;
      const candidates = byPair.get((code << 16) | text.charCodeAt(at + 1));
      if (candidates?.some((literal) => text.startsWith(literal, at))) return at;
    }
    return -1;
  };
  return (text, from = 0) => {
    let earliest = -1;
    for (const code of firsts) {
      const at = nextOf(text, code, from);
      if (at !== -1 && (earliest === -1 || at < earliest)) earliest = at;
    }
    return earliest;
  };
}

/** Whether a value read back (a cache entry, stored JSON) is a list of strings. */
export function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}
