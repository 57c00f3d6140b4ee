// Splits a Markdown document into frontmatter and body (a line scan that
// finds the block exactly where remark-frontmatter does), parses the
// frontmatter with `yaml` keeping positions, and, when asked, records the
// body's outline with remark. Nothing is rewritten: the raw text stays the
// single source of the bytes.
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { Root, Heading, Code, PhrasingContent } from 'mdast';
import { markdownParsers } from './markdown-parsers.ts';

export interface Frontmatter {
  /** YAML text between the fences, exactly as written. */
  raw: string;
  /** File line of the first YAML line (the line after the opening fence). */
  line: number;
  /** Parsed document, kept for positions of keys and values. */
  document: Document;
  lineCounter: LineCounter;
}

export interface OutlineEntry {
  kind: 'heading' | 'code';
  line: number;
  /** Heading depth (1–6); absent for code. */
  depth?: number;
  /** Heading text, or the code block's info string. */
  text: string;
}

export interface ParsedDocument {
  frontmatter: Frontmatter | null;
  /** Offset where the body begins (after the closing fence and its EOL). */
  bodyStart: number;
  /** File line of the body's first line. */
  bodyLine: number;
  outline: OutlineEntry[];
}

/**
 * `withOutline`: the outline takes a full remark parse, the largest cost of a
 * build, and only `gsd-build ir` shows it; builds leave it empty.
 */
export function parseMarkdownDocument(text: string, withFrontmatter: boolean, withOutline = false): ParsedDocument {
  let frontmatter: Frontmatter | null = null;
  let bodyStart = 0;
  let bodyLine = 1;
  const block = withFrontmatter ? scanFrontmatter(text) : null;
  if (block) {
    const raw = block.value;
    const lineCounter = new LineCounter();
    const document = parseDocument(raw, { lineCounter, keepSourceTokens: false, prettyErrors: false, uniqueKeys: true });
    frontmatter = { raw, line: 2, document, lineCounter };
    const endOffset = block.endOffset;
    const eol = text.startsWith('\r\n', endOffset) ? 2 : text.startsWith('\n', endOffset) ? 1 : 0;
    bodyStart = endOffset + eol;
    bodyLine = block.endLine + (eol > 0 ? 1 : 0);
  }
  return { frontmatter, bodyStart, bodyLine, outline: withOutline ? outlineOf(text) : [] };
}

export interface FrontmatterBlock {
  /** The YAML text, as remark-frontmatter gives it (one line ending trimmed at each end). */
  value: string;
  /** Offset just after the closing fence (and its trailing blanks), before its line ending. */
  endOffset: number;
  /** 1-based line of the closing fence. */
  endLine: number;
}

/**
 * The YAML frontmatter block by remark-frontmatter's rule: line 1 is `---`
 * (spaces or tabs may follow), and a later line is `---` too; line endings
 * are LF, CRLF or CR as in CommonMark. One forward scan, no regex.
 */
export function scanFrontmatter(text: string): FrontmatterBlock | null {
  const openEnd = fenceEnd(text, 0);
  if (openEnd === -1 || openEnd === text.length) return null;
  // The value's raw data runs from the opening fence's line ending to the closing fence's.
  const dataStart = openEnd;
  let line = 1;
  let cursor = openEnd;
  while (cursor < text.length) {
    const lineStart = cursor + (text.startsWith('\r\n', cursor) ? 2 : 1);
    line += 1;
    const end = fenceEnd(text, lineStart);
    if (end !== -1) {
      return { value: text.slice(dataStart, lineStart).replace(/^(?:\r?\n|\r)|(?:\r?\n|\r)$/g, ''), endOffset: end, endLine: line };
    }
    cursor = nextLineEnd(text, lineStart);
  }
  return null;
}

/** If a fence line (`---`, then spaces or tabs) starts at `start`: the offset of its line ending or the text's end; else -1. */
function fenceEnd(text: string, start: number): number {
  if (!text.startsWith('---', start)) return -1;
  let index = start + 3;
  while (text[index] === ' ' || text[index] === '\t') index += 1;
  return index === text.length || text[index] === '\n' || text[index] === '\r' ? index : -1;
}

function nextLineEnd(text: string, from: number): number {
  for (let index = from; index < text.length; index += 1) if (text[index] === '\n' || text[index] === '\r') return index;
  return text.length;
}

/** Top-level headings and code blocks, from a remark parse of the whole document. */
function outlineOf(text: string): OutlineEntry[] {
  const tree = markdownParsers().blocks.parse(text) as Root;
  const outline: OutlineEntry[] = [];
  for (const node of tree.children) {
    if (node.type === 'heading') {
      outline.push({ kind: 'heading', line: node.position?.start.line ?? 0, depth: node.depth, text: headingText(node) });
    } else if (node.type === 'code') {
      outline.push({ kind: 'code', line: node.position?.start.line ?? 0, text: codeInfo(node) });
    }
  }
  return outline;
}

function headingText(node: Heading): string {
  const flatten = (children: PhrasingContent[]): string =>
    children.map((child) => ('value' in child ? child.value : 'children' in child ? flatten(child.children as PhrasingContent[]) : '')).join('');
  return flatten(node.children);
}

function codeInfo(node: Code): string {
  return [node.lang, node.meta].filter(Boolean).join(' ');
}

/** 1-based line and column of an offset inside the frontmatter YAML, as file positions. */
export function frontmatterPosition(frontmatter: Frontmatter, offset: number): { line: number; column: number } {
  const { line, col } = frontmatter.lineCounter.linePos(offset);
  return { line: frontmatter.line + line - 1, column: col };
}
