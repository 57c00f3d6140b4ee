// Splits a Markdown document into frontmatter and body with remark
// (remark-frontmatter finds the block), parses the frontmatter with `yaml`
// keeping positions, and records the body's outline. Nothing is rewritten:
// the raw text stays the single source of the bytes.
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkFrontmatter from 'remark-frontmatter';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { Root, Heading, Code, PhrasingContent } from 'mdast';

/**
 * Block structure is all the IR takes from remark (frontmatter, headings,
 * code blocks), so inline constructs are switched off: on a 4 MB corpus that
 * cuts parsing time several-fold. Heading text then keeps its inline markup.
 */
const INLINE_CONSTRUCTS = [
  'attention',
  'autolink',
  'characterEscape',
  'characterReference',
  'codeText',
  'hardBreakEscape',
  'htmlText',
  'labelStartImage',
  'labelStartLink',
  'labelEnd',
];
const markdown = unified()
  .use(remarkParse)
  .use(remarkFrontmatter, ['yaml'])
  .use(function disableInlineConstructs(this: { data: () => unknown }) {
    const data = this.data() as { micromarkExtensions?: unknown[] };
    (data.micromarkExtensions ??= []).push({ disable: { null: INLINE_CONSTRUCTS } });
  })
  .freeze();

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

export function parseMarkdownDocument(text: string, withFrontmatter: boolean): ParsedDocument {
  const tree = markdown.parse(text) as Root;
  const first = tree.children[0];
  let frontmatter: Frontmatter | null = null;
  let bodyStart = 0;
  let bodyLine = 1;
  if (withFrontmatter && first?.type === 'yaml' && first.position) {
    const raw = first.value;
    const lineCounter = new LineCounter();
    const document = parseDocument(raw, { lineCounter, keepSourceTokens: false, prettyErrors: false, uniqueKeys: true });
    frontmatter = { raw, line: 2, document, lineCounter };
    const endOffset = first.position.end.offset ?? 0;
    const eol = text.startsWith('\r\n', endOffset) ? 2 : text.startsWith('\n', endOffset) ? 1 : 0;
    bodyStart = endOffset + eol;
    bodyLine = first.position.end.line + (eol > 0 ? 1 : 0);
  }
  const outline: OutlineEntry[] = [];
  for (const node of tree.children) {
    if (node.type === 'heading') {
      outline.push({ kind: 'heading', line: node.position?.start.line ?? 0, depth: node.depth, text: headingText(node) });
    } else if (node.type === 'code') {
      outline.push({ kind: 'code', line: node.position?.start.line ?? 0, text: codeInfo(node) });
    }
  }
  return { frontmatter, bodyStart, bodyLine, outline };
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
