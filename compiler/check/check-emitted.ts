// Checks on built bundles: no other runtime's root leaks into this one, and
// every file and frontmatter value is within the limits the runtime documents.
import { LineCounter, parseDocument, isMap, isPair, isScalar } from 'yaml';
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { splitLines } from '../load/scan-lines.ts';
import type { VirtualTree } from '../emit/emit-bundle.ts';
import type { IrNode } from '../ir/types.ts';
import type { Limit, Target, TargetScope } from '../targets/target-types.ts';

/** Folders under another runtime's root that only a GSD install puts there. */
const GSD_PAYLOAD = '(?:gsd-core|skills/gsd-|agents/gsd-|agents/subagents|commands/gsd|command/gsd|hooks/gsd|workflows/gsd-)';

interface ForeignRoot {
  pattern: RegExp;
  owner: string;
}

/**
 * What counts as a leak in `own`'s bundles: the canonical source root
 * `.claude` anywhere (outside the claude target), and any other target's root
 * followed by a GSD payload folder.
 */
export function foreignRoots(own: Target, all: readonly Target[]): ForeignRoot[] {
  const ownRoots = new Set(Object.values(own.definition.scopes).map((scope) => (scope as TargetScope).root));
  const roots: ForeignRoot[] = [];
  if (!ownRoots.has('.claude')) roots.push({ pattern: /(?<![\w-])\.claude(?=\/|(?![\w.-]))/g, owner: 'the canonical source (Claude Code)' });
  const seen = new Set<string>(['.claude', '.', '']);
  for (const target of all) {
    if (target === own) continue;
    for (const scope of Object.values(target.definition.scopes) as TargetScope[]) {
      if (ownRoots.has(scope.root) || seen.has(scope.root)) continue;
      seen.add(scope.root);
      roots.push({ pattern: new RegExp(`(?<![\\w.-])(?:~/|\\$HOME/|\\./)?${escapeRegExp(scope.root)}/${GSD_PAYLOAD}`, 'g'), owner: target.definition.name });
    }
  }
  return roots;
}

export function checkEmittedPaths(
  bundle: string,
  tree: VirtualTree,
  roots: readonly ForeignRoot[],
  nodesByPath: ReadonlyMap<string, IrNode>,
  allowed: readonly RegExp[] = [],
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [path, file] of tree) {
    // Only text rendered from the corpus: the runtime CLI and hooks are runtime-neutral code, never rewritten.
    if (typeof file.contents !== 'string' || file.source === undefined) continue;
    for (const [index, line] of splitLines(file.contents).entries()) {
      for (const root of roots) {
        for (const match of line.content.matchAll(root.pattern)) {
          if (allowed.some((pattern) => [...line.content.matchAll(new RegExp(pattern.source, 'g'))].some((hit) => hit.index <= match.index && match.index < hit.index + hit[0].length))) continue;
          const token = wordAround(line.content, match.index);
          const origin = file.source ? sourcePosition(nodesByPath.get(file.source), token.text) : '';
          diagnostics.push(
            diagnostic(`${bundle}/${path}`, index + 1, token.column, 'emit-foreign-path', `expected paths under this bundle's own root, found "${token.text}" (a root of ${root.owner})${origin}`),
          );
        }
      }
    }
  }
  return diagnostics;
}

/** " from <source>:line:col" where the token (or its last path part) appears in the source. */
function sourcePosition(node: IrNode | undefined, token: string): string {
  if (!node) return '';
  for (const needle of [token, token.slice(token.lastIndexOf('/') + 1)]) {
    const offset = needle ? node.text.indexOf(needle) : -1;
    if (offset >= 0) {
      const before = node.text.slice(0, offset);
      return ` from ${node.path}:${before.split('\n').length}:${offset - before.lastIndexOf('\n')}`;
    }
  }
  return ` from ${node.path}`;
}

/** The whitespace-delimited word containing `index`, e.g. `/etc/.claude/settings.json`. */
function wordAround(text: string, index: number): { text: string; column: number } {
  let start = index;
  while (start > 0 && !/[\s`'"(]/.test(text[start - 1]!)) start -= 1;
  let end = index;
  while (end < text.length && !/[\s`'")]/.test(text[end]!)) end += 1;
  return { text: text.slice(start, end).replace(/[.,;:]+$/, ''), column: start + 1 };
}

export function checkLimits(bundle: string, tree: VirtualTree, limits: readonly Limit[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const limit of limits) {
    const files = new RegExp(limit.files);
    for (const [path, file] of tree) {
      if (!files.test(path)) continue;
      const bytes = typeof file.contents === 'string' ? Buffer.byteLength(file.contents) : file.contents.byteLength;
      if (limit.maxBytes !== undefined && bytes > limit.maxBytes) {
        diagnostics.push(diagnostic(`${bundle}/${path}`, 1, 1, 'limit-exceeded', `expected at most ${limit.maxBytes} bytes (${limit.reason}), found ${bytes}`));
      }
      if (limit.frontmatterKey && limit.maxChars !== undefined && typeof file.contents === 'string') {
        const value = frontmatterValue(file.contents, limit.frontmatterKey);
        if (value && [...value.text].length > limit.maxChars) {
          diagnostics.push(
            diagnostic(`${bundle}/${path}`, value.line, value.column, 'limit-exceeded', `expected "${limit.frontmatterKey}" of at most ${limit.maxChars} characters (${limit.reason}), found ${[...value.text].length}`),
          );
        }
      }
    }
  }
  return diagnostics;
}

function frontmatterValue(text: string, key: string): { text: string; line: number; column: number } | null {
  const match = /^---\n([\s\S]*?\n)---\n/.exec(text);
  if (!match) return null;
  const lineCounter = new LineCounter();
  const document = parseDocument(match[1]!, { lineCounter });
  if (!isMap(document.contents)) return null;
  const pair = document.contents.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
  if (!pair || !isScalar(pair.value) || typeof pair.value.value !== 'string') return null;
  const { line, col } = lineCounter.linePos(pair.value.range?.[0] ?? 0);
  return { text: pair.value.value, line: line + 1, column: col };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
