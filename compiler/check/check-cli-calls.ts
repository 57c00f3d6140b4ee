// Every call of the runtime CLI in the corpus names a verb it has, and only
// flags that verb takes, as the CLI's own command table (data) says.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';
import { splitLines } from '../load/scan-lines.ts';

interface FlagSpec {
  type: string;
}

interface CommandSpec {
  flags?: Record<string, FlagSpec>;
  extraFlags?: string;
  subcommands?: Record<string, CommandSpec>;
}

export interface CommandTable {
  globalFlags: Record<string, FlagSpec>;
  aliases?: Record<string, string[]>;
  commands: Record<string, CommandSpec>;
}

/** `node "<root>/gsd-core/bin/gsd-tools.cjs" <verb> …`, the form the corpus uses. */
const INVOCATION = /gsd-tools\.cjs["']?\s+(.*)$/;

export function checkCliCalls(nodes: readonly IrNode[], table: CommandTable): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const node of nodes) {
    if (node.kind === 'hook' || !node.path.endsWith('.md')) continue;
    for (const [index, line] of splitLines(node.text).entries()) {
      const match = INVOCATION.exec(line.content);
      if (!match) continue;
      const start = match.index + match[0].length - match[1]!.length;
      diagnostics.push(...checkCall(node.path, index + 1, start, match[1]!, table));
    }
  }
  return diagnostics;
}

interface Word {
  text: string;
  column: number;
}

function checkCall(file: string, line: number, offset: number, rest: string, table: CommandTable): Diagnostic[] {
  const words = shellWords(rest, offset);
  const first = words[0];
  if (!first || !/^[a-z][a-z-]*$/.test(first.text)) return [];
  const report = (word: Word, code: 'cli-unknown-command' | 'cli-unknown-flag', message: string) => [diagnostic(file, line, word.column, code, message)];
  let spec = table.commands[first.text];
  let name = first.text;
  let argumentsFrom = 1;
  if (!spec) {
    const alias = table.aliases?.[first.text];
    if (!alias) return report(first, 'cli-unknown-command', `expected a gsd-tools command (${Object.keys(table.commands).join(', ')}), found "${first.text}"`);
    return [];
  }
  if (spec.subcommands) {
    const sub = words[1];
    if (!sub || !spec.subcommands[sub.text]) {
      return report(sub ?? first, 'cli-unknown-command', `expected a subcommand of "${name}" (${Object.keys(spec.subcommands).join(', ')}), found ${sub ? `"${sub.text}"` : 'none'}`);
    }
    spec = spec.subcommands[sub.text]!;
    name = `${name} ${sub.text}`;
    argumentsFrom = 2;
  }
  const diagnostics: Diagnostic[] = [];
  for (const word of words.slice(argumentsFrom)) {
    if (!word.text.startsWith('--') || word.text === '--') continue;
    const flag = word.text.split('=')[0]!;
    if (spec.flags?.[flag] || table.globalFlags[flag] || spec.extraFlags) continue;
    const known = [...Object.keys(spec.flags ?? {}), ...Object.keys(table.globalFlags)];
    diagnostics.push(...report(word, 'cli-unknown-flag', `expected a flag of "gsd-tools ${name}" (${known.join(', ')}), found "${flag}"`));
  }
  return diagnostics;
}

/** Words of a shell command line up to its end (`;`, `&&`, `||`, `|`, `)`, a comment or a redirection). */
function shellWords(text: string, offset: number): Word[] {
  const words: Word[] = [];
  let index = 0;
  while (index < text.length) {
    while (index < text.length && /\s/.test(text[index]!)) index += 1;
    if (index >= text.length || /[;&|)#<>`]/.test(text[index]!)) break;
    const start = index;
    let word = '';
    while (index < text.length && !/[\s;&|)<>`]/.test(text[index]!)) {
      const quote = text[index];
      if (quote === '"' || quote === "'") {
        const close = text.indexOf(quote, index + 1);
        const end = close === -1 ? text.length : close;
        word += text.slice(index + 1, end);
        index = end + 1;
      } else {
        word += quote;
        index += 1;
      }
    }
    words.push({ text: word, column: offset + start + 1 });
  }
  return words;
}
