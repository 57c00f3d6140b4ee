// The Bash side of the secret guard: a tree-sitter-bash syntax tree walked
// statement by statement. Each word is evaluated to the set of strings it can
// become (quotes, escapes, $'...', brace expansion, globs, variables assigned
// earlier in the same command line, command substitutions), and each simple
// command is judged by what it does with its words (commands.ts).
import type { Node } from 'web-tree-sitter';
import { ANY, MAX_ALTERNATIVES, MAX_DEPTH, OPAQUE, addVar, checkClock, refuse, type Ctx } from './context.ts';
import { bracket, literal, type Atom, type Pattern } from './patterns.ts';
import { judgeCommand, type Stdin } from './commands.ts';
import { HOME_TEXT } from './context.ts';

/** A character of a word before brace expansion: `brace` when it is unquoted source text. */
interface Piece {
  a: Atom;
  brace?: boolean;
}

type Alts = Piece[][];

const lit = (s: string, brace = false): Piece[] => [...s].map((ch) => ({ a: { k: 'c', c: ch.codePointAt(0)! }, ...(brace ? { brace } : {}) }) as Piece);
const cap = (alts: Alts): Alts => (alts.length > MAX_ALTERNATIVES ? [[{ a: ANY }]] : alts);

function cross(a: Alts, b: Alts): Alts {
  const out: Alts = [];
  for (const x of a) for (const y of b) out.push([...x, ...y]);
  return cap(out);
}

/** Unquoted source text: glob characters become glob atoms, `{ , }` stay eligible for brace expansion. */
function unquotedText(text: string, ctx: Ctx, fromExpansion = false): Piece[] {
  const chars = [...text];
  const out: Piece[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\' && !fromExpansion) {
      if (chars[i + 1] === '\n') i++;
      else if (i + 1 < chars.length) out.push(...lit(chars[++i]!));
      continue;
    }
    if (ch === '*') out.push({ a: { k: 'star', dot: !ctx.dotglob } });
    else if (ch === '?') out.push({ a: { k: 'one', dot: !ctx.dotglob } });
    else if (ch === '[') {
      const b = bracket(chars, i);
      if (b) {
        out.push({ a: { k: 'set', set: b.set } });
        i = b.end;
      } else out.push(...lit(ch));
    } else out.push(...lit(ch, !fromExpansion && (ch === '{' || ch === '}' || ch === ',' || ch === '.')));
  }
  return out;
}

/** Brace expansion over eligible `{a,b}` and `{x..y}` pieces. */
function braces(word: Piece[], budget = { n: 0 }): Piece[][] {
  if (++budget.n > 200) return [[{ a: ANY }]];
  for (let i = 0; i < word.length; i++) {
    const p = word[i]!;
    if (!(p.brace && p.a.k === 'c' && p.a.c === 123)) continue;
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i + 1; j < word.length; j++) {
      const q = word[j]!;
      if (!q.brace || q.a.k !== 'c') continue;
      if (q.a.c === 123) depth++;
      else if (q.a.c === 125) {
        if (depth === 0) {
          close = j;
          break;
        }
        depth--;
      } else if (q.a.c === 44 && depth === 0) commas.push(j);
    }
    if (close < 0) return [word];
    const head = word.slice(0, i);
    const tail = word.slice(close + 1);
    let parts: Piece[][] = [];
    if (commas.length > 0) {
      let from = i + 1;
      for (const c of [...commas, close]) {
        parts.push(word.slice(from, c));
        from = c + 1;
      }
    } else {
      const inner = word.slice(i + 1, close);
      const text = inner.every((x) => x.a.k === 'c') ? inner.map((x) => String.fromCodePoint((x.a as { c: number }).c)).join('') : '';
      const m = /^(-?\d{1,6})\.\.(-?\d{1,6})$/.exec(text) ?? /^([A-Za-z])\.\.([A-Za-z])$/.exec(text);
      if (!m) continue;
      const num = /\d/.test(m[1]!);
      const a = num ? Number(m[1]) : m[1]!.charCodeAt(0);
      const b = num ? Number(m[2]) : m[2]!.charCodeAt(0);
      if (Math.abs(b - a) > MAX_ALTERNATIVES) return [[{ a: ANY }]];
      for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? 1 : -1) parts.push(lit(num ? String(v) : String.fromCharCode(v)));
    }
    const out: Piece[][] = [];
    for (const part of parts) for (const rest of braces([...head, ...part, ...tail], budget)) out.push(rest);
    return out.length > MAX_ALTERNATIVES ? [[{ a: ANY }]] : out;
  }
  return [word];
}

/** Values of `$name` / `${name}`: assigned in this command line, or the environment (unknown). */
function lookup(ctx: Ctx, name: string): Pattern[] {
  const known = ctx.vars.get(name);
  if (known) return known;
  switch (name) {
    case 'HOME':
      return [literal(HOME_TEXT())];
    case 'PWD':
      return [literal(ctx.cwd)];
    case 'USER': case 'LOGNAME': case 'SHELL': case 'HOSTNAME': case 'PATH': case 'LANG': case 'TERM': case 'RANDOM': case 'UID': case 'EUID': case 'PPID': case 'SECONDS': case 'LINENO': case '$': case '?': case '#': case '!': case 'CI': case 'NODE_ENV': case 'OSTYPE': case 'BASH_VERSION':
      return [OPAQUE];
    default:
      return [[ANY]];
  }
}

/** An expansion's values as pieces; unquoted ones may be split into words and globbed. */
function expansionPieces(ctx: Ctx, values: Pattern[], quoted: boolean): Alts {
  const out: Alts = [];
  for (const v of values) {
    if (quoted) out.push(v.map((a) => ({ a })));
    else {
      const text = v.every((a) => a.k === 'c') ? v.map((a) => String.fromCodePoint((a as { c: number }).c)).join('') : null;
      out.push(text !== null ? unquotedText(text, ctx, true) : v.map((a) => ({ a })));
      if (ctx.ifs || v.some((a) => a.k === 'any')) out.push([{ a: ANY }]);
    }
  }
  return cap(out);
}

const ANSI: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** $'...' with its escapes decoded. */
export function ansiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\' || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const n = body[++i]!;
    const hex = (len: number) => {
      let j = i + 1;
      while (j < body.length && j <= i + len && /[0-9a-fA-F]/.test(body[j]!)) j++;
      const digits = body.slice(i + 1, j);
      i = j - 1;
      return digits ? String.fromCodePoint(parseInt(digits, 16)) : '';
    };
    if (n === 'x') out += hex(2);
    else if (n === 'u') out += hex(4);
    else if (n === 'U') out += hex(8);
    else if (n >= '0' && n <= '7') {
      let j = i;
      while (j < body.length && j < i + 3 && body[j]! >= '0' && body[j]! <= '7') j++;
      out += String.fromCharCode(parseInt(body.slice(i, j), 8));
      i = j - 1;
    } else if (n === 'c' && i + 1 < body.length) out += String.fromCharCode(body.charCodeAt(++i) & 31);
    else out += ANSI[n] ?? `\\${n}`;
  }
  return out;
}

/** What a command substitution prints, when that is known: echo/printf of known words, or a value that is never a file name. */
function substitutionValue(ctx: Ctx, node: Node): Pattern[] {
  const stmts = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
  if (stmts.length === 1 && stmts[0]!.type === 'command') {
    const cmd = stmts[0]!;
    const name = cmd.childForFieldName('name')?.text ?? '';
    const args = cmd.childrenForFieldName('argument');
    if (name === 'echo' || (name === 'printf' && args.length >= 1 && args[0]!.text.replace(/['"]/g, '') === '%s')) {
      const words = (name === 'printf' ? args.slice(1) : args).filter((a) => !/^-[neE]+$/.test(a.text));
      let acc: Alts = [[]];
      words.forEach((w, i) => {
        acc = cross(acc, wordAlts(ctx, w));
        if (i < words.length - 1) acc = cross(acc, [lit(' ')]);
      });
      return acc.map((x) => x.map((p) => p.a));
    }
    if (OPAQUE_PRODUCERS.has(name) || (name === 'git' && /^git (rev-parse|branch --show-current|describe)\b/.test(cmd.text))) return [OPAQUE];
  }
  return [[ANY]];
}

const OPAQUE_PRODUCERS = new Set(['pwd', 'date', 'whoami', 'id', 'uname', 'hostname', 'nproc', 'mktemp', 'pgrep', 'seq', 'expr', 'getconf', 'tput', 'sw_vers', 'arch']);

/** The values a word node can take. */
export function wordAlts(ctx: Ctx, node: Node, quoted = false): Alts {
  switch (node.type) {
    case 'word': {
      const text = node.text;
      if (!quoted && (text === '~' || text.startsWith('~/'))) return [[...lit(HOME_TEXT()), ...unquotedText(text.slice(1), ctx)]];
      if (!quoted && text.startsWith('~')) return [[{ a: ANY }]];
      return [quoted ? lit(text) : unquotedText(text, ctx)];
    }
    case 'number':
    case 'string_content':
    case 'heredoc_content':
      return [lit(quoted ? unescapeDouble(node.text) : node.text)];
    case 'raw_string':
      return [lit(node.text.slice(1, -1))];
    case 'ansi_c_string':
      return [lit(ansiC(node.text.slice(2, -1)))];
    case 'string':
    case 'translated_string': {
      let acc: Alts = [[]];
      const src = node.type === 'translated_string' ? (node.namedChildren[0] ?? node) : node;
      if (src !== node) return wordAlts(ctx, src, quoted);
      for (const c of node.children) {
        if (!c || c.type === '"' || c.type === '$"') continue;
        acc = cross(acc, wordAlts(ctx, c, true));
      }
      return acc;
    }
    case 'concatenation': {
      let acc: Alts = [[]];
      let first = true;
      // Adjacent bare words are one stretch of text (`.[e]nv` arrives as `.`, `[`, `e`, `]`, `nv`).
      let buffer = '';
      const flush = () => {
        if (buffer) acc = cross(acc, [quoted ? lit(buffer) : unquotedText(buffer, ctx)]);
        buffer = '';
      };
      for (const c of node.children) {
        if (!c) continue;
        if (first && c.type === 'word' && (c.text === '~' || c.text.startsWith('~/'))) acc = cross(acc, wordAlts(ctx, c, quoted));
        else if (c.type === 'word') buffer += c.text;
        else {
          flush();
          acc = cross(acc, wordAlts(ctx, c, quoted));
        }
        first = false;
      }
      flush();
      return acc;
    }
    case 'simple_expansion': {
      const name = node.namedChildren[0]?.text ?? node.text.slice(1);
      if (name === '@' || name === '*') return expansionPieces(ctx, positional(ctx), quoted);
      return expansionPieces(ctx, lookup(ctx, name), quoted);
    }
    case 'expansion':
      return expansionPieces(ctx, expansionValues(ctx, node), quoted);
    case 'command_substitution':
      walkStatements(ctx, node);
      return expansionPieces(ctx, substitutionValue(ctx, node), quoted);
    case 'process_substitution':
      walkStatements(ctx, node);
      return [lit('/dev/fd/63')];
    case 'arithmetic_expansion':
      walkStatements(ctx, node);
      return [OPAQUE.map((a) => ({ a }))];
    case 'brace_expression':
      return braces(unquotedText(node.text, ctx).map((p) => (p.a.k === 'c' && (p.a.c === 123 || p.a.c === 125) ? { ...p, brace: true } : p)));
    default:
      walkStatements(ctx, node);
      return [[{ a: ANY }]];
  }
}

function positional(ctx: Ctx): Pattern[] {
  const out: Pattern[] = [];
  for (let i = 1; i < 10; i++) out.push(...(ctx.vars.get(String(i)) ?? []));
  return out.length ? [...out, [ANY]] : [[ANY]];
}

function unescapeDouble(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length && '$`"\\\n'.includes(s[i + 1]!)) {
      if (s[i + 1] !== '\n') out += s[i + 1];
      i++;
    } else out += s[i];
  }
  return out;
}

/** `${name}`, `${name:-default}` and friends; anything cleverer is unknown. */
function expansionValues(ctx: Ctx, node: Node): Pattern[] {
  const kids = node.children.filter((c): c is Node => c !== null);
  const nameNode = kids.find((c) => c.type === 'variable_name' || c.type === 'special_variable_name' || c.type === 'subscript');
  const inner = kids.filter((c) => c.type !== '${' && c.type !== '}');
  if (!nameNode) {
    walkStatements(ctx, node);
    return [[ANY]];
  }
  const name = nameNode.type === 'subscript' ? (nameNode.childForFieldName('name')?.text ?? nameNode.text) : nameNode.text;
  const base = name === '@' || name === '*' ? positional(ctx) : lookup(ctx, name);
  if (inner.length === 1) return base;
  const op = inner[1]?.text ?? '';
  if (kids[1]?.type === '#' || kids[1]?.type === '!') return kids[1].type === '#' ? [OPAQUE] : [[ANY]];
  if ([':-', '-', ':=', '=', ':+', '+', ':?', '?'].includes(op)) {
    const rest = inner.slice(2);
    let acc: Alts = [[]];
    for (const r of rest) acc = cross(acc, wordAlts(ctx, r, true));
    return [...base, ...acc.map((x) => x.map((p) => p.a))];
  }
  for (const r of inner.slice(1)) walkStatements(ctx, r);
  return [[ANY]];
}

/** A word node as finished words: brace-expanded patterns. */
export function wordValues(ctx: Ctx, node: Node): Pattern[] {
  const out: Pattern[] = [];
  for (const alt of wordAlts(ctx, node)) for (const w of braces(alt)) out.push(w.map((p) => p.a));
  return out.length > MAX_ALTERNATIVES ? [[ANY]] : out;
}

// ---------------------------------------------------------------------------
// Statements.

/** Walk every statement under `node` (commands, pipelines, lists, loops, functions...). */
export function walkStatements(ctx: Ctx, node: Node, stdin?: Stdin): void {
  checkClock();
  if (node.type === 'ERROR' || node.isMissing) {
    const hit = ctx.patterns.textMatch(node.text);
    if (hit) refuse(ctx, `the command line does not parse here (${JSON.stringify(node.text.slice(0, 60))}) and names a secret file (${hit})`);
  }
  switch (node.type) {
    case 'command':
      return command(ctx, node, [], stdin);
    case 'redirected_statement':
      return redirected(ctx, node, stdin);
    case 'pipeline':
      return pipeline(ctx, node);
    case 'variable_assignment':
      return assignment(ctx, node);
    case 'variable_assignments':
      for (const c of node.namedChildren) if (c) assignment(ctx, c);
      return;
    case 'declaration_command':
      return declaration(ctx, node);
    case 'for_statement': {
      const variable = node.childForFieldName('variable');
      const values = node.childrenForFieldName('value');
      if (variable) addVar(ctx, variable.text, values.length ? values.flatMap((v) => wordValues(ctx, v)) : [[ANY]]);
      for (const c of node.namedChildren) if (c && c !== variable && !values.includes(c)) walkStatements(ctx, c);
      return;
    }
    case 'file_redirect':
    case 'heredoc_redirect':
    case 'herestring_redirect':
      redirect(ctx, node);
      return;
    case 'heredoc_body':
    case 'heredoc_start':
    case 'heredoc_end':
    case 'comment':
      return;
    default:
      for (const c of node.namedChildren) if (c) walkStatements(ctx, c, stdin);
  }
}

function assignment(ctx: Ctx, node: Node): void {
  const name = node.childForFieldName('name');
  const value = node.childForFieldName('value');
  const key = name?.type === 'subscript' ? (name.childForFieldName('name')?.text ?? name.text) : (name?.text ?? '');
  if (key === 'IFS') ctx.ifs = true;
  if (!value) return addVar(ctx, key, [literal('')]);
  if (value.type === 'array') {
    const vals = value.namedChildren.filter((c): c is Node => c !== null).flatMap((c) => wordValues(ctx, c));
    return addVar(ctx, key, vals.length ? vals : [literal('')]);
  }
  const alts = wordAlts(ctx, value, true).map((x) => x.map((p) => p.a));
  addVar(ctx, key, node.text.includes('+=') ? [...alts, [ANY]] : alts);
}

function declaration(ctx: Ctx, node: Node): void {
  // declare -n: a name that stands for another variable, whatever it holds later.
  const nameref = node.namedChildren.some((c) => c?.type === 'word' && c.text.startsWith('-') && c.text.includes('n'));
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === 'variable_assignment' && nameref) addVar(ctx, c.childForFieldName('name')?.text ?? '', [[ANY]]);
    else if (c.type === 'variable_assignment') assignment(ctx, c);
    else if (c.type === 'word' && /^-/.test(c.text) && /[fF]/.test(c.text)) continue;
    else walkStatements(ctx, c);
  }
}

function pipeline(ctx: Ctx, node: Node): void {
  const stages = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
  let prev: Stdin | undefined;
  for (const stage of stages) {
    walkStatements(ctx, stage, prev);
    prev = { kind: 'pipe', from: stage, ctx };
  }
}

function redirected(ctx: Ctx, node: Node, stdin?: Stdin): void {
  const body = node.childForFieldName('body');
  let input = stdin;
  const extra: Node[] = [];
  for (const r of node.childrenForFieldName('redirect')) {
    input = redirect(ctx, r) ?? input;
    extra.push(...extraWords(r));
  }
  if (body) {
    if (body.type === 'command') command(ctx, body, extra, input);
    else {
      walkStatements(ctx, body, input);
      for (const w of extra) for (const v of wordValues(ctx, w)) checkRead(ctx, v, 'a command is given');
    }
  }
}

/** `cat </dev/null .env`: the grammar hangs the words after a redirection's target on the redirection; they are the command's. */
function extraWords(r: Node): Node[] {
  if (r.type !== 'file_redirect') return [];
  return r.childrenForFieldName('destination').slice(1);
}

/** Check one redirection; what it gives the command as standard input, if anything. */
function redirect(ctx: Ctx, r: Node): Stdin | undefined {
  if (r.type === 'file_redirect') {
    const op = r.children.find((c) => c && !c.isNamed)?.text ?? '';
    const dest = r.childForFieldName('destination') ?? r.namedChildren.find((c) => c?.type !== 'file_descriptor');
    if (!dest) return undefined;
    const values = wordValues(ctx, dest);
    const reads = op.startsWith('<') && op !== '<<<';
    if (reads && op !== '<&' ) for (const v of values) checkReadSafe(ctx, v, `input redirection ${op}`);
    if (op === '<&' || op === '>&' || op === '&>' || op === '&>>') for (const v of values) if (!/^[0-9-]+$/.test(v.map((a) => (a.k === 'c' ? String.fromCodePoint(a.c) : '?')).join('')) && op === '<&') checkReadSafe(ctx, v, 'input redirection <&');
    return reads ? { kind: 'file' } : undefined;
  }
  if (r.type === 'heredoc_redirect') {
    const body = r.namedChildren.find((c) => c?.type === 'heredoc_body');
    const quotedDelim = /^['"\\]/.test(r.namedChildren.find((c) => c?.type === 'heredoc_start')?.text ?? '');
    for (const c of r.namedChildren) if (c && c.type !== 'heredoc_body' && c.type !== 'heredoc_start' && c.type !== 'heredoc_end') walkStatements(ctx, c);
    if (body && !quotedDelim) for (const c of body.namedChildren) if (c && c.type !== 'heredoc_content') wordAlts(ctx, c, true);
    return { kind: 'text', text: body?.text ?? '', dynamic: !quotedDelim && (body?.namedChildren.some((c) => c && c.type !== 'heredoc_content') ?? false) };
  }
  if (r.type === 'herestring_redirect') {
    const w = r.namedChildren.find((c) => c !== null);
    const values = w ? wordValues(ctx, w) : [];
    const text = values.length === 1 && values[0]!.every((a) => a.k === 'c') ? values[0]!.map((a) => String.fromCodePoint((a as { c: number }).c)).join('') : null;
    return text !== null ? { kind: 'text', text, dynamic: false } : { kind: 'text', text: '', dynamic: true };
  }
  walkStatements(ctx, r);
  return undefined;
}

import { checkRead } from './context.ts';
function checkReadSafe(ctx: Ctx, v: Pattern, what: string): void {
  checkRead(ctx, v, what);
}

function command(ctx: Ctx, node: Node, extra: Node[], stdin?: Stdin): void {
  let input = stdin;
  const more = [...extra];
  for (const c of node.childrenForFieldName('redirect')) {
    input = redirect(ctx, c) ?? input;
    more.push(...extraWords(c));
  }
  for (const c of node.namedChildren) if (c?.type === 'variable_assignment') assignment(ctx, c);
  const nameNode = node.childForFieldName('name');
  if (!nameNode) return;
  const nameWord = nameNode.namedChildren[0] ?? nameNode;
  const names = wordValues(ctx, nameWord);
  const args = [...node.childrenForFieldName('argument'), ...more].map((a) => ({ node: a, values: wordValues(ctx, a) }));
  judgeCommand(ctx, { names, args: args.map((a) => a.values), text: node.text }, input);
}

/** The top level: parse errors count, then every statement. */
export function analyzeBash(ctx: Ctx, root: Node): void {
  if (ctx.depth > MAX_DEPTH) return refuse(ctx, 'the command nests shells too deeply to check');
  walkStatements(ctx, root);
}
