// A document is rewritten as a list of cuts: ranges of the text replaced by
// other text. The passes produce cuts; applying them is one walk.

export interface Cut {
  start: number;
  end: number;
  replacement: string;
}

/** text[from, to) with every cut applied; the text between cuts goes through `gap`. Cuts must not overlap. */
export function applyCuts(text: string, cuts: readonly Cut[], gap: (between: string) => string, from = 0, to = text.length): string {
  const sorted = [...cuts].sort((a, b) => a.start - b.start);
  // Joined once: a flat string, where appending built a tree of pieces that every later reader had to flatten.
  const parts: string[] = [];
  let cursor = from;
  for (const cut of sorted) {
    parts.push(gap(text.slice(cursor, cut.start)), cut.replacement);
    cursor = cut.end;
  }
  parts.push(gap(text.slice(cursor, to)));
  return parts.join('');
}
