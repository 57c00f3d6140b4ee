// Turn argv into an Invocation using the command table: resolve the verb
// (accepting upstream spellings: a leading `query`, dotted verbs, aliases),
// then match positional arguments and flags by the declared types. Every
// mismatch is a usage error naming the command.
import { CliError } from '../core/errors.ts';
import { parseJson } from '../core/json.ts';
import { TABLE, type ArgSpec, type CommandSpec, type CommandTable, type FlagSpec } from './table.ts';

export type Value = string | number | boolean | string[] | unknown;

export interface GlobalOptions {
  raw: boolean;
  pick?: string;
  cwd?: string;
  /** `--ws <name>`: the workstream this call works in (planning/layout.ts). */
  ws?: string;
  jsonErrors: boolean;
  help: boolean;
}

export interface Invocation {
  /** Resolved command path, e.g. ['state', 'update']. */
  path: string[];
  spec: CommandSpec;
  /** Positional arguments by name; variadic ones joined with spaces. */
  args: Record<string, string>;
  /** Variadic arguments as their separate words. */
  words: Record<string, string[]>;
  /** Flags by name with leading dashes: boolean, string, number, string[] or parsed JSON. */
  flags: Record<string, Value>;
  /** Undeclared `--name value` pairs, for commands with extraFlags. */
  extra: [string, string][];
  global: GlobalOptions;
}

const PHASE_RE = /^(?:[A-Z][A-Z0-9_]*-)?\d{1,4}[A-Z]?(?:\.\d{1,3})*$/;

export interface ParseOptions {
  /** Accept any token containing `$` as a value of any type (for checking prompt text). */
  placeholders?: boolean;
  table?: CommandTable;
}

function usageError(path: string[], message: string): CliError {
  const name = path.length ? `${path.join(' ')}: ` : '';
  return new CliError('invalid-args', `${name}${message}`);
}

function checkValue(path: string[], what: string, type: string, raw: string, values: string[] | undefined, opts: ParseOptions): Value {
  if (opts.placeholders && raw.includes('$')) return raw;
  switch (type) {
    case 'phase':
      if (!PHASE_RE.test(raw)) throw usageError(path, `${what} must be a phase number like 3, 03, 12A or 2.1, found "${raw}"`);
      return raw;
    case 'integer':
      if (!/^-?\d{1,12}$/.test(raw)) throw usageError(path, `${what} must be an integer, found "${raw}"`);
      return Number(raw);
    case 'enum':
      if (!values?.includes(raw)) throw usageError(path, `${what} must be one of ${values?.join(', ')}, found "${raw}"`);
      return raw;
    case 'json':
      try {
        return parseJson(raw, what);
      } catch (error) {
        throw usageError(path, (error as Error).message);
      }
    case 'path':
      if (raw === '' || raw.includes('\0')) throw usageError(path, `${what} must be a non-empty path`);
      return raw;
    default:
      return raw;
  }
}

const HELP = new Set(['--help', '-h', '-?', '--usage']);

/** Pull global flags out of argv wherever they are. */
function extractGlobals(argv: string[]): { rest: string[]; global: GlobalOptions } {
  const global: GlobalOptions = { raw: false, jsonErrors: false, help: false };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (tok === '--raw') global.raw = true;
    else if (tok === '--json-errors') global.jsonErrors = true;
    else if (HELP.has(tok)) global.help = true;
    else if (tok === '--version' || tok === '-v') {
      throw new CliError('invalid-args', `${tok} is not supported (refused so an invented flag cannot run a command)`);
    } else if (tok === '--pick' || tok === '--cwd' || tok === '--ws') {
      const v = argv[i + 1];
      if (v === undefined || (tok === '--ws' && v.startsWith('--'))) throw new CliError('invalid-args', `${tok} needs a value`);
      if (tok === '--pick') global.pick = v;
      else if (tok === '--cwd') global.cwd = v;
      else global.ws = v;
      i++;
    } else if (tok.startsWith('--pick=')) global.pick = tok.slice(7);
    else if (tok.startsWith('--cwd=')) global.cwd = tok.slice(6);
    else if (tok.startsWith('--ws=')) global.ws = tok.slice(5);
    else rest.push(tok);
  }
  return { rest, global };
}

/** Resolve the command path from the leading tokens. */
export function resolveCommand(tokens: string[], table: CommandTable = TABLE): { path: string[]; spec: CommandSpec | null; consumed: number } {
  let toks = tokens;
  let skipped = 0;
  if (toks[0] === 'query') {
    toks = toks.slice(1);
    skipped = 1;
  }
  if (toks.length && toks[0]!.includes('.') && !toks[0]!.startsWith('-')) {
    const [head, ...tail] = toks[0]!.split('.');
    toks = [head!, tail.join('.'), ...toks.slice(1)];
    skipped -= 1;
  }
  const two = toks.length > 1 ? `${toks[0]} ${toks[1]}` : '';
  let path: string[] = [];
  let used = 0;
  if (two && table.aliases?.[two]) {
    path = [...table.aliases[two]!];
    used = 2;
  } else if (toks[0] !== undefined && table.aliases?.[toks[0]]) {
    path = [...table.aliases[toks[0]]!];
    used = 1;
  } else if (toks[0] !== undefined && !toks[0].startsWith('-')) {
    path = [toks[0]];
    used = 1;
  }
  if (path.length === 0) return { path, spec: null, consumed: skipped };
  let spec = table.commands[path[0]!] ?? null;
  if (!spec || !Object.prototype.hasOwnProperty.call(table.commands, path[0]!)) return { path, spec: null, consumed: used + skipped };
  for (let i = 1; i < path.length; i++) spec = spec?.subcommands?.[path[i]!] ?? null;
  while (spec?.subcommands) {
    const next = toks[used];
    if (next === undefined || next.startsWith('-') || !Object.prototype.hasOwnProperty.call(spec.subcommands, next)) break;
    spec = spec.subcommands[next]!;
    path.push(next);
    used++;
  }
  return { path, spec, consumed: used + skipped };
}

export function parseArgv(argv: string[], opts: ParseOptions = {}): Invocation {
  const table = opts.table ?? TABLE;
  const { rest, global } = extractGlobals(argv);
  const { path, spec, consumed } = resolveCommand(rest, table);
  if (!spec) {
    if (global.help && path.length === 0) return { path: [], spec: { summary: '' }, args: {}, words: {}, flags: {}, extra: [], global };
    if (path.length === 0) throw new CliError('invalid-args', `no command given; try --help`);
    throw new CliError('unknown-command', `unknown command "${path.join(' ')}"; available: ${Object.keys(table.commands).join(', ')}`);
  }
  if (spec.subcommands) {
    if (global.help) return { path, spec, args: {}, words: {}, flags: {}, extra: [], global };
    const next = rest[consumed];
    const available = Object.keys(spec.subcommands).join(', ');
    if (next === undefined || next.startsWith('-')) throw usageError(path, `a subcommand is required: ${available}`);
    throw new CliError('unknown-command', `unknown ${path.join(' ')} subcommand "${next}"; available: ${available}`);
  }
  const inv: Invocation = { path, spec, args: {}, words: {}, flags: {}, extra: [], global };
  if (global.help) return inv;
  const flagSpecs = spec.flags ?? {};
  const positional: string[] = [];
  const tokens = rest.slice(consumed);
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (tok === '--') {
      positional.push(...tokens.slice(i + 1));
      break;
    }
    if (!tok.startsWith('--') || tok === '--') {
      positional.push(tok);
      continue;
    }
    const eq = tok.indexOf('=');
    const name = eq > 0 ? tok.slice(0, eq) : tok;
    const inline = eq > 0 ? tok.slice(eq + 1) : undefined;
    const fs: FlagSpec | undefined = Object.prototype.hasOwnProperty.call(flagSpecs, name) ? flagSpecs[name] : undefined;
    if (!fs) {
      if (spec.extraFlags) {
        const v = inline ?? tokens[i + 1];
        if (v === undefined || (inline === undefined && v.startsWith('--'))) throw usageError(path, `${name} needs a value`);
        if (inline === undefined) i++;
        inv.extra.push([name.slice(2), v]);
        continue;
      }
      const known = Object.keys(flagSpecs);
      throw usageError(path, `unknown flag ${name}${known.length ? `; known flags: ${known.join(', ')}` : ' (this command takes no flags)'}`);
    }
    if (Object.prototype.hasOwnProperty.call(inv.flags, name)) throw usageError(path, `${name} given twice`);
    if (fs.type === 'boolean') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') throw usageError(path, `${name} is a switch; found "=${inline}"`);
      inv.flags[name] = inline !== 'false';
      continue;
    }
    if (fs.type === 'list') {
      const items: string[] = inline !== undefined ? [inline] : [];
      while (i + 1 < tokens.length && !tokens[i + 1]!.startsWith('--')) items.push(tokens[++i]!);
      if (items.length === 0) throw usageError(path, `${name} needs at least one value`);
      inv.flags[name] = items;
      continue;
    }
    let v = inline;
    if (v === undefined) {
      const next = tokens[i + 1];
      if (next === undefined || next.startsWith('--')) throw usageError(path, `${name} needs a value (use ${name}=VALUE for values starting with --)`);
      v = next;
      i++;
    }
    inv.flags[name] = checkValue(path, name, fs.type, v, fs.values, opts);
  }
  for (const [name, fs] of Object.entries(flagSpecs)) {
    if (fs.required && !Object.prototype.hasOwnProperty.call(inv.flags, name)) throw usageError(path, `${name} is required`);
  }
  const argSpecs: ArgSpec[] = spec.args ?? [];
  let p = 0;
  for (const a of argSpecs) {
    if (a.variadic) {
      const words = positional.slice(p);
      p = positional.length;
      if (words.length === 0) {
        if (a.required) throw usageError(path, `missing <${a.name}…>`);
        continue;
      }
      for (const w of words) checkValue(path, `<${a.name}>`, a.type, w, a.values, opts);
      inv.words[a.name] = words;
      inv.args[a.name] = words.join(' ');
      continue;
    }
    const v = positional[p];
    if (v === undefined) {
      if (a.required) throw usageError(path, `missing <${a.name}>`);
      continue;
    }
    p++;
    const checked = checkValue(path, `<${a.name}>`, a.type, v, a.values, opts);
    inv.args[a.name] = v;
    if (a.type === 'json') inv.flags[`<${a.name}>`] = checked;
  }
  if (p < positional.length) {
    throw usageError(path, `unexpected argument "${positional[p]}"${argSpecs.length ? '' : ' (this command takes no arguments)'}`);
  }
  return inv;
}

/** Check one gsd-tools call (its words after the program name) against the table. */
export function validateInvocation(
  tokens: string[],
  opts: ParseOptions = {},
): { ok: true; path: string[] } | { ok: false; reason: 'unknown-command' | 'invalid-args'; message: string } {
  try {
    const inv = parseArgv(tokens, opts);
    return { ok: true, path: inv.path };
  } catch (error) {
    if (error instanceof CliError && (error.reason === 'unknown-command' || error.reason === 'invalid-args')) {
      return { ok: false, reason: error.reason, message: error.message };
    }
    return { ok: false, reason: 'invalid-args', message: (error as Error).message };
  }
}

// ------------------------------------------------------------ typed getters

export function str(inv: Invocation, name: string): string | undefined {
  const v = name.startsWith('--') ? inv.flags[name] : inv.args[name];
  return typeof v === 'string' ? v : undefined;
}

export function num(inv: Invocation, name: string): number | undefined {
  const v = inv.flags[name];
  return typeof v === 'number' ? v : undefined;
}

export function bool(inv: Invocation, name: string): boolean {
  return inv.flags[name] === true;
}

export function list(inv: Invocation, name: string): string[] | undefined {
  const v = inv.flags[name];
  return Array.isArray(v) ? (v as string[]) : undefined;
}
