// Finds the typed references of a document body: @-includes, lazy reads,
// agent spawns, command mentions and Skill calls, plus the spans that emit
// rewrites per runtime (install-root prefixes, command mentions, $ARGUMENTS).
// Resolution against the corpus happens later, in buildIr.
import type { Edge, RewriteSpan } from '../ir/types.ts';
import type { ScannedLine } from './scan-lines.ts';
import { DEFAULT_PAYLOAD } from './layout.ts';
import { escapeRegExp } from '../util/text.ts';

export interface ExtractedReferences {
  edges: Omit<Edge, 'resolved'>[];
  spans: RewriteSpan[];
}

/**
 * The canonical install root: `~/.claude`, `$HOME/.claude`, `./.claude` or a
 * bare `.claude`, where a path starts (after space, a quote, `(`, `=`, `@`, a
 * shell default `:-` or a `${VAR}/` prefix), never inside another path.
 */
const ROOT = /(?<=^|[\s"'`(\[=@,]|:-|\}\/)(?:(~|\$HOME|\$\{HOME\})\/|(\.)\/)?\.claude(?=\/|(?![\w.-]))/g;
/** A path into the installed payload folder (the layout's `payload`), with or without the root in front. */
const treePaths = new Map<string, RegExp>();
function treePath(payload: string): RegExp {
  let pattern = treePaths.get(payload);
  if (!pattern) {
    pattern = new RegExp(`(?<![\\w.\\/$-])(?:(?:~|\\$HOME|\\$\\{HOME\\}|\\.)\\/)?(?:\\.claude\\/)?(${escapeRegExp(payload)}\\/[A-Za-z0-9_.\\/{}*<>$-]*)`, 'g');
    treePaths.set(payload, pattern);
  }
  return pattern;
}
const INCLUDE_LINE = /^@(\S+)$/;
/** A command invocation `/gsd-<name>` or `/gsd:<name>` (also read by check/check-code-commands.ts). */
export const SLASH = /(?<=^|[\s`'"(\[])\/gsd(?:-|:(?!section(?![\w-])))([a-z0-9]+(?:-[a-z0-9]+)*)(?![\w\/-])(?!\.\w)/g;
const SPAWN = /subagent_type\s*[=:]\s*["']([A-Za-z0-9_.-]+)["']/g;
export const SKILL = /Skill\(\s*skill\s*=\s*["']([A-Za-z0-9:_-]+)["']/g;
const ARGUMENTS = /\$ARGUMENTS(?![A-Za-z0-9_])/g;

export function extractReferences(lines: readonly ScannedLine[], payload: string = DEFAULT_PAYLOAD): ExtractedReferences {
  const TREE_PATH = treePath(payload);
  const payloadSlash = `${payload}/`;
  const edges: Omit<Edge, 'resolved'>[] = [];
  const spans: RewriteSpan[] = [];
  for (const scanned of lines) {
    if (scanned.kind === 'marker' || scanned.kind === 'only' || scanned.kind === 'loop') continue;
    const { content, line, start } = scanned;
    const at = (index: number) => ({ line, column: index + 1 });

    // Each pattern needs its literal: a native substring scan first skips most lines (lookbehind-led patterns try every position).
    if (content.includes('.claude')) for (const match of content.matchAll(ROOT)) {
      spans.push({ kind: 'root', start: start + match.index, end: start + match.index + match[0].length, value: match[1] ?? match[2] ?? '' });
    }
    if (content.includes('$ARGUMENTS')) for (const match of content.matchAll(ARGUMENTS)) {
      spans.push({ kind: 'arguments', start: start + match.index, end: start + match.index + match[0].length, value: '' });
    }
    if (content.includes('/gsd')) for (const match of content.matchAll(SLASH)) {
      const stem = match[1]!;
      spans.push({ kind: 'slash', start: start + match.index, end: start + match.index + match[0].length, value: stem });
      edges.push({ kind: 'slash', target: stem, ...at(match.index) });
    }
    if (content.includes('subagent_type')) for (const match of content.matchAll(SPAWN)) {
      edges.push({ kind: 'spawn', target: match[1]!, ...at(match.index + match[0].indexOf(match[1]!) - 1) });
    }
    if (content.includes('Skill(')) for (const match of content.matchAll(SKILL)) {
      edges.push({ kind: 'skill', target: match[1]!.replace(/^gsd[:-]/, ''), ...at(match.index) });
    }

    const include = scanned.kind === 'text' ? INCLUDE_LINE.exec(content.trim()) : null;
    if (include) {
      const target = stripRoot(include[1]!);
      const column = content.indexOf('@') + 1;
      edges.push(
        target.startsWith('.planning/')
          ? { kind: 'include', target, external: true, line, column }
          : { kind: 'include', target, line, column },
      );
      continue;
    }
    if (content.includes(payloadSlash)) for (const match of content.matchAll(TREE_PATH)) {
      const target = match[1]!.replace(/[.,:;)]+$/, '');
      if (/[{}*<>$]/.test(target) || target.endsWith('/')) continue;
      edges.push({ kind: 'read', target, ...at(match.index) });
    }
  }
  return { edges, spans };
}

/** `~/.claude/<payload>/x.md` → `<payload>/x.md`; other forms unchanged. */
export function stripRoot(path: string): string {
  return path.replace(/^(?:(?:~|\$HOME|\$\{HOME\}|\.)\/)?\.claude\//, '');
}
