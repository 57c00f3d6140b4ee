// Every call of the runtime CLI in the corpus names a verb it has, only flags
// that verb takes, and literal values the verb accepts (an enum's values, a
// config key the schema knows, a template the corpus has), as the CLI's own
// command table (data) says, and the runtime's own parser accepts
// (validateInvocation). Placeholders ({phase}, $ARGUMENTS, <name>) are the
// agent's to fill and are not checked.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';
import { cliCalls, type ShellWord } from '../load/cli-calls.ts';
import { validateInvocation } from '../../source/runtime/cli/parse.ts';
import type { CommandTable as RuntimeTable } from '../../source/runtime/cli/table.ts';

interface FlagSpec {
  type: string;
  values?: string[];
}

interface ArgSpec {
  name: string;
  variadic?: boolean;
  values?: string[];
  refersTo?: 'config-key' | 'template';
}

interface CommandSpec {
  args?: ArgSpec[];
  flags?: Record<string, FlagSpec>;
  extraFlags?: string;
  subcommands?: Record<string, CommandSpec>;
}

export interface CommandTable {
  globalFlags: Record<string, FlagSpec>;
  aliases?: Record<string, string[]>;
  commands: Record<string, CommandSpec>;
}

/** What literal values may name: the predicates come from the caller (config schema, template nodes). */
export interface CliReferents {
  isConfigKey: (key: string) => boolean;
  templates: ReadonlySet<string>;
}

/** Needs the shell parser loaded (loadShellParser, load/cli-calls.ts). */
export function checkCliCalls(nodes: readonly IrNode[], table: CommandTable, referents: CliReferents): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const node of nodes) {
    if (node.kind === 'hook' || !node.path.endsWith('.md')) continue;
    for (const call of cliCalls(node.text)) diagnostics.push(...checkCall(node.path, call.words, table, referents));
  }
  return diagnostics;
}


function checkCall(file: string, words: readonly ShellWord[], table: CommandTable, referents: CliReferents): Diagnostic[] {
  const first = words[0];
  if (!first || !/^[a-z][a-z-]*$/.test(first.text)) return [];
  const report = (word: ShellWord, code: 'cli-unknown-command' | 'cli-unknown-flag' | 'cli-bad-argument', message: string) => [diagnostic(file, word.line, word.column, code, message)];
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
  const given = words.slice(argumentsFrom);
  const positional: ShellWord[] = [];
  for (let i = 0; i < given.length; i++) {
    const word = given[i]!;
    if (!word.text.startsWith('--') || word.text === '--') {
      positional.push(word);
      continue;
    }
    const [flag, inline] = word.text.split(/=(.*)/s) as [string, string | undefined];
    const flagSpec = spec.flags?.[flag] ?? table.globalFlags[flag];
    if (!flagSpec && !spec.extraFlags) {
      const known = [...Object.keys(spec.flags ?? {}), ...Object.keys(table.globalFlags)];
      diagnostics.push(...report(word, 'cli-unknown-flag', `expected a flag of "gsd-tools ${name}" (${known.join(', ')}), found "${flag}"`));
      continue;
    }
    // The flag's value(s): none for a boolean, up to the next flag for a list, else one word.
    if (!flagSpec) {
      if (inline === undefined) i += 1;
      continue;
    }
    if (flagSpec.type === 'boolean') continue;
    if (flagSpec.type === 'list') {
      while (i + 1 < given.length && !given[i + 1]!.text.startsWith('--')) i += 1;
      continue;
    }
    const value = inline !== undefined ? { text: inline, raw: inline, line: word.line, column: word.column + flag.length + 1 } : given[++i];
    if (value && flagSpec.values) diagnostics.push(...checkValue(value, flagSpec.values, `${flag} of "gsd-tools ${name}"`));
  }
  const args = spec.args ?? [];
  for (const [index, arg] of args.entries()) {
    const taken = arg.variadic ? positional.slice(index) : positional.slice(index, index + 1);
    for (const word of taken) {
      if (arg.values) diagnostics.push(...checkValue(word, arg.values, `<${arg.name}> of "gsd-tools ${name}"`));
      if (arg.refersTo === 'config-key' && isLiteral(word.text) && !referents.isConfigKey(word.text)) {
        diagnostics.push(...report(word, 'cli-bad-argument', `expected a config key of schemas/config.schema.json for <${arg.name}> of "gsd-tools ${name}", found "${word.text}"`));
      }
      if (arg.refersTo === 'template' && isLiteral(word.text) && !referents.templates.has(word.text)) {
        diagnostics.push(...report(word, 'cli-bad-argument', `expected a template of gsd-core/templates (${[...referents.templates].sort().join(', ')}) for <${arg.name}> of "gsd-tools ${name}", found "${word.text}"`));
      }
    }
  }
  if (diagnostics.length === 0) diagnostics.push(...runtimeVerdict(words, table, (message) => report(first, 'cli-bad-argument', message)));
  return diagnostics;

  function checkValue(word: ShellWord, values: readonly string[], what: string): Diagnostic[] {
    if (!isLiteral(word.text) || values.includes(word.text)) return [];
    return report(word, 'cli-bad-argument', `expected one of ${values.join(', ')} for ${what}, found "${word.text}"`);
  }
}

/**
 * The runtime's own parser has the last word (source/runtime/cli/parse.ts,
 * in its placeholder mode): a call it would refuse is reported even where
 * the walk above, which exists for positions, finds nothing. Placeholders
 * the agent fills become `$` values; one that stands for any number of words
 * ($ARGUMENTS, {flags}) is read as none and as one value.
 */
function runtimeVerdict(words: readonly ShellWord[], table: CommandTable, report: (message: string) => Diagnostic[]): Diagnostic[] {
  const refusal = refusalOf(words.map((word) => word.text), table);
  return refusal === null ? [] : report(`expected a call gsd-tools accepts, found one it refuses: ${refusal}`);
}

/**
 * The runtime parser's refusal of a call's words, or null when it accepts
 * them; asked once per distinct call and table (a corpus repeats its calls,
 * and a refusal is an exception with a stack trace).
 */
const refusals = new WeakMap<CommandTable, Map<string, string | null>>();
function refusalOf(texts: readonly string[], table: CommandTable): string | null {
  let known = refusals.get(table);
  if (known === undefined) refusals.set(table, (known = new Map()));
  const key = texts.join('\u0000');
  let refusal = known.get(key);
  if (refusal === undefined) {
    const check = (spread: string[]) => {
      const tokens = texts.flatMap((text) => (SPREAD.has(text) ? spread : [isLiteral(text) ? text : `$${text}`]));
      return validateInvocation(tokens, { placeholders: true, table: table as unknown as RuntimeTable });
    };
    // A spread may hold nothing or the call's own arguments: the call stands if either reading is accepted.
    const verdict = check([]);
    refusal = verdict.ok || (texts.some((text) => SPREAD.has(text)) && check(['$ARGUMENTS']).ok) ? null : verdict.message;
    known.set(key, refusal);
  }
  return refusal;
}

/** Placeholders that stand for any number of words, flags included. */
const SPREAD = new Set(['$ARGUMENTS', '{flags}', '${flags}', '{args}', '$@']);

/** A value the corpus wrote out, not one the agent fills in ({phase}, <name>, $VAR, $(…), [a|b] choices). */
function isLiteral(text: string): boolean {
  return text !== '' && !/[{}<>$|[\]…]/.test(text);
}
