// The text passes every emitted document goes through, in one order:
// strip gsd:section marker lines (and the lines a skill profile drops), rewrite the typed spans (install root,
// command mentions, $ARGUMENTS, a nested router's rows) for the target and scope, apply the target's
// literal replacements to the text between spans, and end every line in LF.
import type { IrNode, RewriteSpan } from '../ir/types.ts';
import { extractReferences } from '../load/extract-references.ts';
import { scanLines, splitLines } from '../load/scan-lines.ts';
import type { TargetDefinition, TargetScope } from '../targets/target-types.ts';
import { escapeRegExp } from '../util/text.ts';

export interface RenderContext {
  target: TargetDefinition;
  scope: TargetScope;
  /** The release version, for {version} in target data. */
  version: string;
  /** A router rendered in a nested layout: its rows name files to read. */
  routes?: RouterReads;
}

export interface RouterReads {
  /** Routed command stem → its file, relative to the router's folder. */
  files: ReadonlyMap<string, string>;
  /** The target's words for the table's action column and the sentence after it (nested surface). */
  header: string;
  instruction: string;
}

interface Cut {
  start: number;
  end: number;
  replacement: string;
}

/** Renders node.text[from, to) for the target: markers stripped, other runtimes' passages removed. */
export function renderText(node: IrNode, context: RenderContext, from = node.body.start, to = node.text.length): string {
  const removed = removedLines(node, context.target.id);
  const inRemoved = (offset: number) => removed.some((cut) => offset >= cut.start && offset < cut.end);
  const cuts = [...removed, ...spanCuts(node.spans, context).filter((cut) => !inRemoved(cut.start))].filter((cut) => cut.start >= from && cut.end <= to);
  return applyCuts(node.text, cuts, context, from, to);
}

/** Renders a free-standing string, such as a frontmatter description, with the same span passes. */
export function renderString(text: string, context: RenderContext): string {
  return applyCuts(text, spanCuts(extractReferences(scanLines(text)).spans, context), context, 0, text.length);
}

function spanCuts(spans: readonly RewriteSpan[], context: RenderContext): Cut[] {
  return spans.flatMap((span) => {
    const replacement = renderSpan(span, context);
    return replacement === null ? [] : [{ start: span.start, end: span.end, replacement }];
  });
}

function applyCuts(text: string, cuts: Cut[], context: RenderContext, from: number, to: number): string {
  cuts.sort((a, b) => a.start - b.start);
  let output = '';
  let cursor = from;
  for (const cut of cuts) {
    output += replaceLiterals(text.slice(cursor, cut.start), context.target) + cut.replacement;
    cursor = cut.end;
  }
  output += replaceLiterals(text.slice(cursor, to), context.target);
  return output.replace(/\r\n/g, '\n');
}

/** Whole lines that never reach this runtime's bundle: markers, and gsd:only passages for other runtimes. */
function removedLines(node: IrNode, targetId: string): Cut[] {
  if (node.markerLines.length === 0 && node.onlyBlocks.length === 0 && !node.droppedLines) return [];
  const lines = new Set([...node.markerLines, ...(node.droppedLines ?? [])]);
  for (const block of node.onlyBlocks) {
    if (block.runtimes.includes(targetId)) {
      lines.add(block.openLine).add(block.closeLine);
    } else {
      for (let line = block.openLine; line <= block.closeLine; line += 1) lines.add(line);
    }
  }
  return splitLines(node.text)
    .filter((_, index) => lines.has(index + 1))
    .map((line) => ({ start: line.start, end: line.start + line.content.length + line.eol.length, replacement: '' }));
}

/** The span's text for this bundle, or null to keep it as written (a router's table outside a nested layout). */
export function renderSpan(span: RewriteSpan, { target, scope, routes }: RenderContext): string | null {
  switch (span.kind) {
    case 'route': {
      const [stem = '', ...flags] = span.value.split(' ');
      const file = routes?.files.get(stem);
      return file === undefined ? null : `Read \`${file}\`${flags.length > 0 ? ` (${flags.join(' ')})` : ''}`;
    }
    case 'route-header':
      return routes ? routes.header : null;
    case 'route-instruction':
      return routes ? routes.instruction : null;
    case 'slash':
      return (target.slash ?? '/gsd-{name}').replace('{name}', span.value);
    case 'arguments':
      return target.arguments ?? '$ARGUMENTS';
    case 'root':
      return renderRoot(span.value, target, scope);
  }
}

/**
 * The canonical root `~/.claude` (or `$HOME/.claude`, `./.claude`, `.claude`)
 * becomes this bundle's root: home-relative in global bundles, project-relative
 * in local ones. `./.claude` always means the project's own folder.
 */
export function renderRoot(anchor: string, target: TargetDefinition, scope: TargetScope): string {
  const projectRoot = target.scopes.local?.root ?? scope.root;
  if (anchor === '.') return `./${projectRoot}`;
  if (anchor === '') return scope.root;
  return scope.base === 'home' ? `${anchor}/${scope.root}` : scope.root;
}

function replaceLiterals(text: string, target: TargetDefinition): string {
  let output = text;
  for (const { find, replace, word } of target.replacements ?? []) {
    // A whole-word find is bounded only on the edges that are word characters, so `Bash(` matches `Bash(cat …)`.
    const before = word && /^\w/.test(find) ? '(?<![\\w.-])' : '';
    const after = word && /\w$/.test(find) ? '(?![\\w-])' : '';
    const pattern = new RegExp(`${before}${escapeRegExp(find)}${after}`, 'g');
    output = output.replace(pattern, () => replace);
  }
  return output;
}
