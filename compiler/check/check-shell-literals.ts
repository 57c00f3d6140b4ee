// Shell examples in agents and workflows are copied, not read: a weaker model
// runs `--phase 3` in phase 7 because the example said so. Every phase
// number, phase folder, plan id, commit scope or commit hash in a fenced shell
// block must be a placeholder the agent fills (<phase>, {phase}, $PHASE;
// {commit}), not a value.
// Lines come from the one line scanner, CLI calls from the shell parser; the
// patterns are linear (no nested quantifiers over the same characters).
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';
import { cliCalls } from '../load/cli-calls.ts';
import { fencedBlocks, scanLines } from '../load/scan-lines.ts';
import { isList, textFact } from '../util/text-facts.ts';
import data from '../data/shell-literals.json' with { type: 'json' };

const CHECKED_KINDS: ReadonlySet<string> = new Set(data.kinds);
const SHELL_INFO: ReadonlySet<string> = new Set(data.shellInfo);

/** A phase number as the corpus writes it: 3, 03, 02.1, 12A. */
const PHASE = '\\d{1,3}(?:\\.\\d{1,3})?[A-Z]?';
const PADDED = '\\d{2}(?:\\.\\d{1,3})?[A-Z]?';
/** Not inside a longer word, path segment, version or date. */
const START = '(?<![\\w.-])';

interface LiteralPattern {
  what: string;
  pattern: RegExp;
  /** Capture group holding the literal (its column is reported). */
  group: number;
  /** The placeholders the message offers instead. */
  placeholder?: string;
  /** A further test of the literal, where a pattern alone would take words for values. */
  accept?: (text: string) => boolean;
}

const PHASE_PLACEHOLDER = '<phase>, {phase}, $PHASE';

const PATTERNS: readonly LiteralPattern[] = [
  { what: 'a phase or plan number after a flag', pattern: new RegExp(`--(?:phase|plan|id)(?:=|[ \\t]+)(${PHASE})(?![\\w.])`, 'g'), group: 1 },
  { what: 'a plan id', pattern: new RegExp(`${START}(${PADDED}-\\d{2,3})(?=-[A-Za-z]|[^\\w.-]|$)`, 'g'), group: 1 },
  { what: 'a phase folder', pattern: new RegExp(`${START}(${PADDED}-[a-z][a-z0-9]*(?:-[a-z0-9]+)*)`, 'g'), group: 1 },
  { what: 'a phase in a commit scope', pattern: new RegExp(`\\((${PADDED})\\):`, 'g'), group: 1 },
  // A short or full commit hash (a1b2c3d): hex with a digit and a letter, so that "defaced" or "1234567" is not one.
  { what: 'a commit hash', pattern: new RegExp(`${START}([0-9a-f]{7,40})(?![\\w.-])`, 'g'), group: 1, placeholder: '{commit}, $COMMIT', accept: (text) => /\d/.test(text) && /[a-f]/.test(text) },
];

const BARE_NUMBER = new RegExp(`^${PHASE}$`);

export function checkShellLiterals(nodes: readonly IrNode[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const node of nodes) {
    if (!CHECKED_KINDS.has(node.kind) || !node.path.endsWith('.md')) continue;
    // A function of the text alone: a rebuild reuses the literals of unchanged texts (util/text-facts.ts).
    for (const found of textFact('shell-literals', node.text, () => shellLiterals(node.text), isList<Literal & { line: number }>)) {
      diagnostics.push(
        diagnostic(node.path, found.line, found.column, 'shell-literal-value', `expected a placeholder (${found.placeholder ?? PHASE_PLACEHOLDER}) for ${found.what} in a shell example, found the literal "${found.text}"`),
      );
    }
  }
  return diagnostics;
}

/** Every literal in the text's fenced shell blocks, in order, with its line. */
function shellLiterals(text: string): (Literal & { line: number })[] {
  const found: (Literal & { line: number })[] = [];
  const numbers = positionalNumbers(text);
  for (const block of fencedBlocks(scanLines(text))) {
    if (!SHELL_INFO.has(block.info.split(/\s/)[0]!.toLowerCase())) continue;
    for (const line of block.body) for (const literal of literalsOf(line.content, numbers.get(line.line) ?? [])) found.push({ ...literal, line: line.line });
  }
  return found;
}

interface Literal {
  what: string;
  text: string;
  placeholder?: string;
  /** 1-based. */
  column: number;
}

/** Every literal of one shell line, left to right, one per position; `numbers`: the line's bare CLI arguments. */
function literalsOf(content: string, numbers: readonly Literal[]): Literal[] {
  const byColumn = new Map<number, Literal>();
  for (const { what, pattern, group, placeholder, accept } of PATTERNS) {
    for (const match of content.matchAll(pattern)) {
      const text = match[group]!;
      if (accept && !accept(text)) continue;
      const column = match.index + match[0].indexOf(text) + 1;
      if (!byColumn.has(column)) byColumn.set(column, { what, text, column, ...(placeholder ? { placeholder } : {}) });
    }
  }
  for (const word of numbers) if (!byColumn.has(word.column)) byColumn.set(word.column, word);
  return [...byColumn.values()].sort((a, b) => a.column - b.column);
}

/**
 * Bare numbers given to a runtime-CLI verb as positional arguments
 * (`phase plan-index 3`): phase numbers. A quoted word or a flag's value is
 * not one. Calls come from the shell parser (load/cli-calls.ts), by file line.
 */
function positionalNumbers(text: string): Map<number, Literal[]> {
  const byLine = new Map<number, Literal[]>();
  for (const call of cliCalls(text)) {
    let previous = '';
    for (const word of call.words) {
      if (BARE_NUMBER.test(word.raw) && !previous.startsWith('--')) byLine.set(word.line, [...(byLine.get(word.line) ?? []), { what: 'a phase number', text: word.raw, column: word.column }]);
      previous = word.raw;
    }
  }
  return byLine;
}
