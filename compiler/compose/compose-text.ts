// A document's text for one bundle, the passes in one order: strip the lines
// this runtime does not get (strip-lines), rewrite the typed spans
// (rewrite-spans), replace the target's literals between spans
// (replace-literals), and end every line in LF.
import type { IrNode } from '../ir/types.ts';
import { extractReferences } from '../load/extract-references.ts';
import { scanLines } from '../load/scan-lines.ts';
import type { ComposeContext } from './compose-context.ts';
import { applyCuts } from './cuts.ts';
import { replaceLiterals } from './replace-literals.ts';
import { spanCuts } from './rewrite-spans.ts';
import { strippedLines } from './strip-lines.ts';

/** node.text[from, to) for the target: markers stripped, other runtimes' passages removed, spans and literals rewritten. */
export function composeText(node: IrNode, context: ComposeContext, from = node.body.start, to = node.text.length): string {
  const removed = strippedLines(node, context.target.id);
  const inRemoved = (offset: number) => removed.some((cut) => offset >= cut.start && offset < cut.end);
  const cuts = [...removed, ...spanCuts(node.spans, context).filter((cut) => !inRemoved(cut.start))].filter((cut) => cut.start >= from && cut.end <= to);
  return toLf(applyCuts(node.text, cuts, (gap) => replaceLiterals(gap, context.target), from, to));
}

/** A free-standing string, such as a frontmatter description, through the same span and literal passes. */
export function composeString(text: string, context: ComposeContext): string {
  const cuts = spanCuts(extractReferences(scanLines(text)).spans, context);
  return toLf(applyCuts(text, cuts, (gap) => replaceLiterals(gap, context.target)));
}

function toLf(text: string): string {
  // Most texts have no CR: a search for one character costs less than the pattern's scan.
  return text.includes('\r') ? text.replace(/\r\n/g, '\n') : text;
}
