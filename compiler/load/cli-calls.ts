// The runtime-CLI calls a Markdown document makes, read with a real shell
// parser (tree-sitter-bash, through the secret guard's one loader): a call is
// a simple command with a word that names gsd-tools.cjs, and its words are the
// ones after that word, as the shell passes them (quotes and escapes removed,
// expansions kept as written), each at its line and column in the file.
// Quoting, $(...), pipes, &&, heredocs and line continuations are the
// parser's to read; only shell text that mentions gsd-tools.cjs is parsed.
import type { Node } from 'web-tree-sitter';
import { loadParsers, parseNow } from '../../source/hooks/lib/secret/parsers.ts';
import { fencedBlocks, scanLines, splitLines } from './scan-lines.ts';
import { isList, textFact } from '../util/text-facts.ts';
import data from '../data/shell-literals.json' with { type: 'json' };

const SHELL_INFO: ReadonlySet<string> = new Set(data.shellInfo);

/** Which program's calls to read: how a snippet mentions it, and which word runs it. */
export interface CliProgram {
  /** Text a snippet must hold to be parsed at all; each mention in prose is a snippet. */
  mentions: readonly string[];
  /** Whether a word, as the program receives it, is the one that runs the CLI. */
  runs: (word: string) => boolean;
}

/** The word that runs the CLI; a quote may close it when the call sits in a quoted YAML string. */
const PROGRAM_WORD = /gsd-tools\.cjs["']?$/;
/** Our runtime CLI, as this corpus calls it (node <path>/gsd-tools.cjs …): the build's default. */
export const GSD_TOOLS: CliProgram = { mentions: ['gsd-tools.cjs'], runs: (word) => PROGRAM_WORD.test(word) };

export interface ShellWord {
  /** The word as the program receives it, expansions ($X, ${X}, $(…)) as written. */
  text: string;
  /** The word as the source writes it, quotes included. */
  raw: string;
  /** 1-based file line and column (UTF-16 code units) of the word's first character. */
  line: number;
  column: number;
}

export interface CliCall {
  /** The word that names the program. */
  program: ShellWord;
  /** The words after it: the verb, its arguments and flags. */
  words: ShellWord[];
}

/** Loads the Bash parser; once per process, before the first cliCalls. */
export function loadShellParser(): Promise<void> {
  return loadParsers(['bash']);
}

/** Every runtime-CLI call in `text`, in file order (of `program`, our CLI unless named). Callers only read the result. */
export function cliCalls(text: string, program: CliProgram = GSD_TOOLS): CliCall[] {
  // The parse is the slowest part of the checks, and two checks read every text: our CLI's calls are kept by text (util/text-facts.ts).
  return program === GSD_TOOLS ? textFact('cli-calls', text, () => readCalls(text, GSD_TOOLS), isList<CliCall>) : readCalls(text, program);
}

function readCalls(text: string, program: CliProgram): CliCall[] {
  const mentioned = (t: string) => program.mentions.some((m) => t.includes(m));
  if (!mentioned(text)) return [];
  const lines = scanLines(text);
  const starts = lines.map((line) => line.start);
  const calls: CliCall[] = [];
  const inShellFence = new Set<number>();
  // A shell fence is parsed whole, so a call may span lines (continuations, heredocs).
  for (const block of fencedBlocks(lines)) {
    if (!SHELL_INFO.has(block.info.split(/\s/)[0]!.toLowerCase()) || block.body.length === 0) continue;
    const first = block.body[0]!;
    const last = block.body[block.body.length - 1]!;
    const source = text.slice(first.start, last.start + last.content.length + last.eol.length);
    for (const line of block.body) inShellFence.add(line.line);
    if (mentioned(source)) calls.push(...callsIn(source, first.start, starts, program));
  }
  // Anywhere else (prose, inline code, other fences, frontmatter): the snippet around each mention on its line.
  for (const [index, line] of splitLines(text).entries()) {
    if (inShellFence.has(index + 1) || !mentioned(line.content)) continue;
    const seen = new Set<number>();
    for (const at of mentionsIn(line.content, program.mentions)) {
      const { from, to } = snippetAround(line.content, at);
      if (seen.has(from)) continue;
      seen.add(from);
      calls.push(...callsIn(line.content.slice(from, to), line.start + from, starts, program));
    }
  }
  return calls.sort((a, b) => a.program.line - b.program.line || a.program.column - b.program.column);
}

/** Where each mention starts on a line, in order (a spot two mentions share counts once). */
function mentionsIn(content: string, mentions: readonly string[]): number[] {
  const at = new Set<number>();
  for (const mention of mentions) {
    for (let i = content.indexOf(mention); i !== -1; i = content.indexOf(mention, i + 1)) at.add(i);
  }
  return [...at].sort((a, b) => a - b);
}

/**
 * The shell text around a mention on a line: the inline code span holding it,
 * else from the last `node ` before it (a call inside prose or a YAML string)
 * to the end of the line.
 */
function snippetAround(content: string, at: number): { from: number; to: number } {
  const open = content.lastIndexOf('`', at);
  const close = content.indexOf('`', at);
  if (open !== -1 && close !== -1 && backticksBefore(content, open) % 2 === 0) return { from: open + 1, to: close };
  const node = content.lastIndexOf('node ', at);
  return { from: node === -1 ? 0 : node, to: content.length };
}

/** How many backticks stand before `at`: an even count means the one at `at` opens a span. */
function backticksBefore(content: string, at: number): number {
  let count = 0;
  for (let i = content.indexOf('`'); i !== -1 && i < at; i = content.indexOf('`', i + 1)) count += 1;
  return count;
}

/** The calls of one shell snippet that starts at `offset` of the file text. */
function callsIn(source: string, offset: number, starts: readonly number[], program: CliProgram): CliCall[] {
  const tree = parseNow('bash', source);
  if (!tree) throw new Error(`internal: the shell parser gave up on ${JSON.stringify(source.slice(0, 60))}`);
  const place = (node: Node) => position(offset + node.startIndex, starts);
  const calls: CliCall[] = [];
  try {
    for (const command of tree.rootNode.descendantsOfType('command')) {
      if (!command) continue;
      const words = commandWords(command);
      const at = words.findIndex((word) => program.runs(wordText(word)));
      if (at === -1) continue;
      const word = (node: Node): ShellWord => ({ text: wordText(node), raw: node.text, ...place(node) });
      calls.push({ program: word(words[at]!), words: words.slice(at + 1).map(word) });
    }
  } finally {
    tree.delete();
  }
  return calls;
}

/** The command's name and arguments, in order (assignments, redirections and comments left out). */
function commandWords(command: Node): Node[] {
  const words: Node[] = [];
  for (const child of command.namedChildren) {
    if (!child) continue;
    if (child.type === 'command_name') words.push(child.namedChildren[0] ?? child);
    else if (child.type !== 'variable_assignment' && child.type !== 'comment' && !child.type.endsWith('redirect')) words.push(child);
  }
  return words;
}

/** A word as the program receives it: quotes and backslashes removed, expansions kept as written. */
function wordText(node: Node): string {
  switch (node.type) {
    case 'word':
      return node.text.replace(/\\(\n|.)/g, (_, ch: string) => (ch === '\n' ? '' : ch));
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string':
      return node.text.slice(1, -1).replace(/\\([$`"\\\n])/g, (_, ch: string) => (ch === '\n' ? '' : ch));
    case 'concatenation':
      return node.namedChildren.map((child) => (child ? wordText(child) : '')).join('');
    default:
      return node.text;
  }
}

/** 1-based line and column of a file offset, from the sorted line starts. */
function position(offset: number, starts: readonly number[]): { line: number; column: number } {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - (starts[low] ?? 0) + 1 };
}
