// The runtime CLI and the hooks print commands for the user or the agent to
// run next ("next_command": "/gsd-verify-work 3", "consider /gsd-quick").
// Each one must be a command the corpus ships, as check-references makes sure
// for the Markdown. This reads the TypeScript under the layout's code folders
// (the CLI table's folder and the hook registry's), tests and type
// declarations aside, for the same invocation forms: `/gsd-<name>`,
// `/gsd:<name>` and `Skill(skill="gsd-<name>")`. A name built at run time
// (`/gsd-${step}`) is refused too: no check could follow it, so the code
// spells each command out (a table of literal names is fine).
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';
import { SKILL, SLASH } from '../load/extract-references.ts';
import { splitLines } from '../load/scan-lines.ts';
import { isList, textFact } from '../util/text-facts.ts';

/** `/gsd-` or `/gsd:` followed by a template-literal substitution. */
const COMPUTED = /(?<=^|[\s`'"(\[])\/gsd[-:]\$\{/g;

export function isCodeFile(file: string, roots: readonly string[]): boolean {
  if (!roots.some((root) => file.startsWith(root))) return false;
  if (!/\.(?:ts|mts|cts)$/.test(file) || /\.d\.ts$/.test(file)) return false;
  return !/(?:^|\/)test\//.test(file) && !/\.test\.ts$/.test(file);
}

/** The names a command can be invoked by: its file stem and its frontmatter name without the gsd prefix. */
export function shippedCommandNames(nodes: readonly IrNode[]): Set<string> {
  const names = new Set<string>();
  for (const node of nodes) {
    if (node.kind !== 'command') continue;
    names.add(node.name);
    const declared = node.frontmatter?.data?.['name'];
    if (typeof declared === 'string') names.add(declared.replace(/^gsd[:-]/, ''));
  }
  return names;
}

/** A command named in code: how (slash, Skill(...), or a name built at run time), the name, the text found, and where. */
interface CodeMention {
  kind: 'slash' | 'skill' | 'computed';
  /** The command name, without its gsd prefix ('' for a name built at run time). */
  name: string;
  found: string;
  line: number;
  column: number;
}

/** Every command named in a code file's text, line by line. */
function codeMentions(text: string): CodeMention[] {
  const mentions: CodeMention[] = [];
  for (const [index, line] of splitLines(text).entries()) {
    const content = line.content;
    for (const match of content.matchAll(SLASH)) mentions.push({ kind: 'slash', name: match[1]!, found: match[0], line: index + 1, column: match.index + 1 });
    for (const match of content.matchAll(SKILL)) mentions.push({ kind: 'skill', name: match[1]!.replace(/^gsd[:-]/, ''), found: match[1]!, line: index + 1, column: match.index + 1 });
    for (const match of content.matchAll(COMPUTED)) mentions.push({ kind: 'computed', name: '', found: content.slice(match.index, match.index + 24), line: index + 1, column: match.index + 1 });
  }
  return mentions;
}

export function checkCodeCommands(files: readonly { path: string; bytes: Uint8Array }[], roots: readonly string[], commands: ReadonlySet<string>): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const decoder = new TextDecoder();
  const expected = 'expected a command in commands/gsd/';
  for (const file of files) {
    if (!isCodeFile(file.path, roots)) continue;
    const text = decoder.decode(file.bytes);
    // A function of the text alone: a rebuild reuses the mentions of unchanged files (util/text-facts.ts).
    for (const mention of textFact('code-commands', text, () => codeMentions(text), isList<CodeMention>)) {
      const at = [file.path, mention.line, mention.column, 'ref-code-command-unknown'] as const;
      if (mention.kind === 'computed') diagnostics.push(diagnostic(...at, `${expected} spelled out, found a name built at run time ("${mention.found}…")`));
      else if (!commands.has(mention.name)) diagnostics.push(diagnostic(...at, `${expected}, found "${mention.found}"`));
    }
  }
  return diagnostics;
}

/**
 * The bare form: a Markdown table cell that is only `gsd-<name>` (with
 * arguments or not, backticked or not), as the routers and next-step tables
 * write the command to invoke. It must name a command, or an agent or hook
 * (tables of those use the same shape). Code fences are skipped.
 */
/** A `gsd-<name>` table cell: its name, line and column. */
interface CommandCell {
  name: string;
  line: number;
  column: number;
}

export function checkCommandCells(nodes: readonly IrNode[], known: ReadonlySet<string>): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const node of nodes) {
    if (!node.path.endsWith('.md')) continue;
    // A function of the text alone: a rebuild reuses the cells of unchanged texts (util/text-facts.ts).
    for (const cell of textFact('command-cells', node.text, () => commandCells(node.text), isList<CommandCell>)) {
      if (known.has(cell.name) || known.has(`gsd-${cell.name}`)) continue;
      diagnostics.push(diagnostic(node.path, cell.line, cell.column, 'ref-command-unknown', `expected the name of a command in commands/gsd/ (or of an agent or hook), found "gsd-${cell.name}"`));
    }
  }
  return diagnostics;
}

/** Every table cell outside fences that holds only a `gsd-<name>` (with arguments, in backticks or not). */
function commandCells(text: string): CommandCell[] {
  const cells: CommandCell[] = [];
  const CELL = /\|([^|]*)(?=\|)/g;
  const BARE = /^\s*`?gsd-([a-z0-9]+(?:-[a-z0-9]+)*)(?:\s[^`|]*)?`?\s*$/;
  let fenced = false;
  for (const [index, line] of splitLines(text).entries()) {
    const content = line.content;
    if (/^\s*(```|~~~)/.test(content)) fenced = !fenced;
    if (fenced || !/^\s*\|/.test(content)) continue;
    for (const cell of content.matchAll(CELL)) {
      const bare = BARE.exec(cell[1]!);
      if (bare) cells.push({ name: bare[1]!, line: index + 1, column: cell.index + 1 + cell[1]!.indexOf('gsd-') + 1 });
    }
  }
  return cells;
}
