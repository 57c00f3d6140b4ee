// One left-to-right scan that classifies every line of a Markdown body as
// text, fenced code, HTML comment or a gsd:section marker candidate. Fences
// and comments suppress each other: inside a fence a comment token is fence
// content; inside a comment a fence delimiter is comment content.

/** `marker` is a gsd:section line, `only` a gsd:only line (runtime-specific passages), `loop` a gsd:loop point. */
export type LineClass = 'text' | 'fence' | 'comment' | 'marker' | 'only' | 'loop';

export interface ScannedLine {
  /** 1-based line number in the file. */
  line: number;
  /** Offset of the line's first character in the text. */
  start: number;
  /** The line without its terminator. */
  content: string;
  /** '', '\n' or '\r\n'. */
  eol: string;
  kind: LineClass;
}

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;

/** Splits text into lines, each keeping its own terminator. */
export function splitLines(text: string): { content: string; eol: string; start: number }[] {
  const lines: { content: string; eol: string; start: number }[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline + 1;
    const raw = text.slice(start, end);
    const eol = raw.endsWith('\r\n') ? '\r\n' : raw.endsWith('\n') ? '\n' : '';
    lines.push({ content: raw.slice(0, raw.length - eol.length), eol, start });
    start = end;
  }
  return lines;
}

/**
 * Classifies lines. `firstLine` is the file line number of the text's first
 * line (frontmatter above it is not scanned).
 */
export function scanLines(text: string, firstLine = 1): ScannedLine[] {
  let fence: { char: string; length: number } | null = null;
  let inComment = false;
  return splitLines(text).map(({ content, eol, start }, index) => {
    const line = firstLine + index;
    const classify = (kind: LineClass): ScannedLine => ({ line, start, content, eol, kind });
    if (fence) {
      if (closesFence(content, fence)) fence = null;
      return classify('fence');
    }
    if (inComment) {
      if (content.includes('-->')) inComment = false;
      return classify('comment');
    }
    const trimmed = content.trim();
    if (trimmed.startsWith('<!--')) {
      if (!content.includes('-->', content.indexOf('<!--') + 4)) {
        inComment = true;
        return classify('comment');
      }
      // `<!-- x --> trailing text` is ordinary content, not a comment line.
      if (!trimmed.endsWith('-->')) return classify('text');
      return classify(directiveKind(trimmed));
    }
    const opener = FENCE_OPEN.exec(content);
    if (opener) {
      const run = opener[2]!;
      const info = opener[3]!;
      // CommonMark: a backtick fence's info string may not contain a backtick.
      if (!(run[0] === '`' && info.includes('`'))) {
        fence = { char: run[0]!, length: run.length };
        return classify('fence');
      }
    }
    return classify('text');
  });
}

function closesFence(content: string, fence: { char: string; length: number }): boolean {
  const match = /^ {0,3}(`+|~+)\s*$/.exec(content);
  return match !== null && match[1]![0] === fence.char && match[1]!.length >= fence.length;
}

/** The inner text of a whole-line comment, e.g. `gsd:section id="x"`. */
export function commentInner(trimmed: string): string {
  return trimmed.slice(4, -3).trim();
}

function directiveKind(trimmed: string): LineClass {
  const inner = commentInner(trimmed);
  if (/^\/?gsd:section(?:\s|$)/.test(inner)) return 'marker';
  if (/^\/?gsd:only(?:\s|$)/.test(inner)) return 'only';
  if (/^\/?gsd:loop(?:\s|$)/.test(inner)) return 'loop';
  return 'comment';
}

export interface FencedBlock {
  /** The opener's info string, trimmed (`bash`, `sh title="x"`, '' for none). */
  info: string;
  /** The lines between the opener and its close (or the end of the text). */
  body: ScannedLine[];
}

/** The fenced code blocks of scanned lines, each with its info string and body lines. */
export function fencedBlocks(lines: readonly ScannedLine[]): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { block: FencedBlock; fence: { char: string; length: number } } | null = null;
  for (const line of lines) {
    if (line.kind !== 'fence') {
      open = null;
      continue;
    }
    if (open) {
      if (closesFence(line.content, open.fence)) open = null;
      else open.block.body.push(line);
      continue;
    }
    const opener = FENCE_OPEN.exec(line.content);
    if (!opener) continue;
    const block: FencedBlock = { info: opener[3]!.trim(), body: [] };
    blocks.push(block);
    open = { block, fence: { char: opener[2]![0]!, length: opener[2]!.length } };
  }
  return blocks;
}
