// A built bundle for another runtime never names Claude Code's root: every
// canonical `~/.claude` path must have been rewritten by the root pass.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { splitLines } from '../load/scan-lines.ts';
import type { VirtualTree } from '../emit/emit-bundle.ts';

const FOREIGN_ROOT = /(?<![\w-])\.claude(?=\/|(?![\w.-]))/g;

export function checkEmittedPaths(bundle: string, tree: VirtualTree, ownRoot: string): Diagnostic[] {
  if (ownRoot === '.claude') return [];
  const diagnostics: Diagnostic[] = [];
  for (const [path, file] of tree) {
    if (typeof file.contents !== 'string') continue;
    for (const [index, line] of splitLines(file.contents).entries()) {
      for (const match of line.content.matchAll(FOREIGN_ROOT)) {
        const token = wordAround(line.content, match.index);
        diagnostics.push(diagnostic(`${bundle}/${path}`, index + 1, token.column, 'emit-foreign-path', `expected paths under this bundle's root "${ownRoot}", found "${token.text}"`));
      }
    }
  }
  return diagnostics;
}

/** The whitespace-delimited word containing `index`, e.g. `/etc/.claude/settings.json`. */
function wordAround(text: string, index: number): { text: string; column: number } {
  let start = index;
  while (start > 0 && !/[\s`'"(]/.test(text[start - 1]!)) start -= 1;
  let end = index;
  while (end < text.length && !/[\s`'")]/.test(text[end]!)) end += 1;
  return { text: text.slice(start, end).replace(/[.,;:]+$/, ''), column: start + 1 };
}
