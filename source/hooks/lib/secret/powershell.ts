// The PowerShell side of the secret guard: a tree-sitter-powershell syntax
// tree walked the same way as Bash's. PowerShell is a full language, so next
// to commands (Get-Content and its aliases, Copy-Item, Select-String, native
// programs) it also looks at .NET calls ([IO.File]::ReadAllText), provider
// variables (${C:\app\.env}), Invoke-Expression and script blocks. String
// values are followed through '...', "..." ($var, $(...), `escapes),
// here-strings, + concatenation, -join and -f, and $x = ... assignments.
import type { Node } from 'web-tree-sitter';
import { ANY, MAX_ALTERNATIVES, addVar, checkClock, checkRead, checkTree, refuse, type Ctx } from './context.ts';
import { bracket, isLiteral, literal, textOf, type Pattern } from './patterns.ts';
import { cmdExe, judgeCommand, powershell as pwshCommand } from './commands.ts';
import { absolute } from './fsview.ts';
import { HOME_TEXT } from './context.ts';

/** Cmdlets and aliases, by what they do with the paths they are given. */
const READERS = new Set(['get-content', 'gc', 'cat', 'type', 'select-string', 'sls', 'import-csv', 'ipcsv', 'import-clixml', 'format-hex', 'fhx', 'get-filehash', 'import-powershelldatafile', 'invoke-item', 'ii', 'start-process', 'saps', 'start', 'import-module', 'ipmo', 'more', 'out-string']);
const COPIERS = new Set(['copy-item', 'cpi', 'cp', 'copy', 'move-item', 'mi', 'mv', 'move', 'rename-item', 'rni', 'ren']);
/** Never read what they are given: test, delete, create, write, change folder, print their own words. */
const SAFE = new Set(['test-path', 'remove-item', 'ri', 'rm', 'del', 'erase', 'rd', 'rmdir', 'new-item', 'ni', 'md', 'mkdir', 'set-content', 'add-content', 'ac', 'out-file', 'clear-content', 'clc', 'write-host', 'write-output', 'echo', 'write', 'write-error', 'write-warning', 'write-verbose', 'write-debug', 'set-location', 'cd', 'sl', 'chdir', 'push-location', 'pushd', 'pop-location', 'popd', 'get-location', 'gl', 'pwd', 'split-path', 'join-path', 'start-sleep', 'sleep', 'out-null', 'out-host', 'get-date', 'get-process', 'ps', 'stop-process', 'kill', 'get-command', 'gcm', 'get-help', 'clear-host', 'cls', 'measure-object', 'measure', 'sort-object', 'sort', 'format-table', 'ft', 'format-list', 'fl', 'format-wide', 'select-object', 'select', 'where-object', 'where', '?', 'foreach-object', 'foreach', '%', 'tee-object', 'set-variable', 'set', 'get-variable', 'new-variable', 'exit', 'return', 'set-strictmode', 'get-acl']);
/** List files: harmless on their own, a read when their output feeds another command. */
const LISTERS = new Set(['get-childitem', 'gci', 'ls', 'dir', 'get-item', 'gi', 'resolve-path', 'rvpa', 'get-itemproperty', 'gp']);
const DISPLAY = new Set(['select-object', 'select', 'format-table', 'ft', 'format-list', 'fl', 'format-wide', 'measure-object', 'measure', 'sort-object', 'sort', 'out-host', 'out-null', 'where-object', 'where', '?']);
const IEX = new Set(['invoke-expression', 'iex']);
const NETWORK = new Set(['invoke-restmethod', 'irm', 'invoke-webrequest', 'iwr', 'curl', 'wget']);
/** .NET methods that take a path and do not return its contents. */
const SAFE_METHODS = new Set(['exists', 'getfilename', 'getextension', 'getdirectoryname', 'getfilenamewithoutextension', 'delete', 'getattributes', 'getlastwritetime', 'getcreationtime', 'combine', 'join', 'getfullpath', 'changeextension', 'hasextension', 'ispathrooted', 'writealltext', 'writealllines', 'writeallbytes', 'appendalltext', 'appendalllines', 'createdirectory']);

const WRAPPERS = new Set([
  'logical_expression', 'bitwise_expression', 'comparison_expression', 'additive_expression', 'multiplicative_expression', 'format_expression', 'range_expression', 'array_literal_expression', 'unary_expression',
  'logical_argument_expression', 'bitwise_argument_expression', 'comparison_argument_expression', 'additive_argument_expression', 'multiplicative_argument_expression', 'format_argument_expression', 'range_argument_expression',
  'argument_expression', 'pipeline_chain', 'expression_with_unary_operator', 'left_assignment_expression',
]);

/** Above zero while a command's output is used as a value ((gi .env).OpenText(), $x = gci): listers then feed something. */
let valueDepth = 0;

function unwrap(node: Node): Node {
  let n = node;
  for (let i = 0; i < 64 && WRAPPERS.has(n.type) && n.namedChildCount === 1; i++) n = n.namedChildren[0]!;
  return n;
}

const lit = (s: string): Pattern => literal(s);
const cap = (v: Pattern[]): Pattern[] => (v.length > MAX_ALTERNATIVES ? [[ANY]] : v);
function cross(a: Pattern[], b: Pattern[]): Pattern[] {
  const out: Pattern[] = [];
  for (const x of a) for (const y of b) out.push([...x, ...y]);
  return cap(out);
}

const ESC: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** Backtick escapes (`n, `u{2E}, `x). */
function unescape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch !== '`' || i + 1 >= s.length) {
      out += ch;
      continue;
    }
    const n = s[++i]!;
    if (n === 'u' && s[i + 1] === '{') {
      const close = s.indexOf('}', i);
      const hex = close > 0 && close - i < 10 ? s.slice(i + 2, close) : '';
      if (hex && [...hex].every((c) => /[0-9a-fA-F]/.test(c))) {
        out += String.fromCodePoint(parseInt(hex, 16));
        i = close;
        continue;
      }
    }
    out += ESC[n] ?? n;
  }
  return out;
}

function varName(text: string): string {
  let t = text.replace(/^[$@]/, '');
  if (t.startsWith('{') && t.endsWith('}')) t = t.slice(1, -1);
  return t.toLowerCase().replace(/^(global|script|local|private|using):/, '');
}

function lookup(ctx: Ctx, ctxName: string): Pattern[] {
  const known = ctx.vars.get(`ps:${ctxName}`);
  if (known) return known;
  if (ctxName === 'home' || ctxName === 'env:userprofile' || ctxName === 'env:home') return [lit(HOME_TEXT())];
  if (ctxName === 'pwd') return [lit(ctx.cwd)];
  if (ctxName === 'true' || ctxName === 'false' || ctxName === 'null' || ctxName === 'pid' || ctxName === '?' || ctxName === 'lastexitcode' || ctxName === 'env:username' || ctxName === 'env:computername') return [lit('\u0000')];
  return [[ANY]];
}

/** A variable node: its values; a provider path (${C:\app\.env}) is a file read. */
function variable(ctx: Ctx, node: Node): Pattern[] {
  const name = varName(node.text);
  const drive = /^[a-z]+:/.exec(name);
  const provider = node.text.startsWith('${') && (drive ? !['env', 'variable', 'function', 'alias', 'global', 'script', 'local', 'private', 'using'].includes(drive[0].slice(0, -1)) : /[\\/.]/.test(name));
  if (provider) checkRead(ctx, lit(node.text.slice(2, -1).replace(/^[a-z]+:(?![\\/])/i, '')), 'a ${path} variable reads the file');
  return lookup(ctx, name);
}

/** The string values an expression can have; commands inside are judged on the way. */
export function values(ctx: Ctx, node: Node): Pattern[] {
  const n = unwrap(node);
  switch (n.type) {
    case 'generic_token': {
      const parts = unescape(n.text).split(',');
      return cap(parts.map((p) => (p.includes('$') ? [ANY] : lit(p))));
    }
    case 'string_literal':
      return n.namedChildren[0] ? values(ctx, n.namedChildren[0]) : [lit('')];
    case 'verbatim_string_characters':
      return [lit(n.text.slice(1, -1).replace(/''/g, "'"))];
    case 'verbatim_here_string_characters':
      return [lit(n.text.slice(2, -2).replace(/^\r?\n/, '').replace(/\r?\n$/, ''))];
    case 'expandable_string_literal':
    case 'expandable_here_string_literal': {
      const here = n.type === 'expandable_here_string_literal';
      const open = here ? 2 : 1;
      const text = n.text;
      let acc: Pattern[] = [[]];
      let pos = open;
      for (const c of n.namedChildren) {
        if (!c) continue;
        const start = c.startIndex - n.startIndex;
        const end = c.endIndex - n.startIndex;
        acc = cross(acc, [lit(unescape(text.slice(pos, start)))]);
        acc = cross(acc, c.type === 'variable' ? variable(ctx, c) : c.type === 'sub_expression' ? subValues(ctx, c) : (walk(ctx, c), [[ANY]]));
        pos = end;
      }
      acc = cross(acc, [lit(unescape(text.slice(pos, text.length - open)))]);
      // "$x" inside a bare string: the tree may not split it; fall back to unknown.
      if (n.namedChildCount === 0 && /\$[A-Za-z_{(]/.test(text)) return [[ANY]];
      return acc;
    }
    case 'variable':
      return variable(ctx, n);
    case 'additive_expression':
    case 'additive_argument_expression': {
      const kids = n.children.filter((c): c is Node => c !== null);
      const op = kids.find((c) => !c.isNamed)?.text;
      if (op === '+' && kids.length === 3) return cross(values(ctx, kids[0]!), values(ctx, kids[2]!));
      for (const c of kids) if (c.isNamed) values(ctx, c);
      return [[ANY]];
    }
    case 'array_literal_expression': {
      const out: Pattern[] = [];
      for (const c of n.namedChildren) if (c) out.push(...values(ctx, c));
      return cap(out);
    }
    case 'comparison_expression':
    case 'comparison_argument_expression':
    case 'format_expression':
    case 'format_argument_expression': {
      const kids = n.children.filter((c): c is Node => c !== null);
      const op = kids[1]?.text.toLowerCase();
      if (kids.length === 3 && (op === '-join' || op === '-f')) {
        const left = values(ctx, kids[0]!);
        const right = listValues(ctx, kids[2]!);
        if (op === '-join' && right.length === 1 && isLiteral(right[0]!) && left.every(isLiteral)) return [lit(left.map(textOf).join(textOf(right[0]!)))];
        if (op === '-f' && left.length === 1 && isLiteral(left[0]!) && right.every(isLiteral)) return [lit(textOf(left[0]!).replace(/\{(\d)\}/g, (_, d: string) => (right[Number(d)] ? textOf(right[Number(d)]!) : '')))];
      }
      if (kids.length === 2 && kids[0]!.text.toLowerCase() === '-join') {
        const parts = listValues(ctx, kids[1]!);
        if (parts.every(isLiteral)) return [lit(parts.map(textOf).join(''))];
      }
      for (const c of kids) if (c.isNamed) values(ctx, c);
      return [[ANY]];
    }
    case 'parenthesized_expression':
    case 'sub_expression':
    case 'array_expression':
      return subValues(ctx, n);
    case 'integer_literal':
    case 'real_literal':
      return [lit(n.text)];
    default:
      valueDepth++;
      try {
        walk(ctx, n);
      } finally {
        valueDepth--;
      }
      return [[ANY]];
  }
}

/** The elements of a list ('.e','nv'): each a literal where known. */
function listValues(ctx: Ctx, node: Node): Pattern[] {
  const n = unwrap(node);
  if (n.type === 'array_literal_expression') return n.namedChildren.filter((c): c is Node => c !== null).flatMap((c) => values(ctx, c));
  if (n.type === 'parenthesized_expression' || n.type === 'array_expression') {
    const inner = n.namedChildren.find((c) => c !== null);
    if (inner) return listValues(ctx, inner.type === 'statement_list' ? (inner.namedChildren[0] ?? inner) : inner);
  }
  if (n.type === 'pipeline') {
    const only = n.namedChildren.filter((c): c is Node => c !== null);
    if (only.length === 1) return listValues(ctx, only[0]!);
  }
  return values(ctx, n);
}

/** (...) / $(...) / @(...): a pipeline whose value is a plain expression keeps it; anything with commands is unknown. */
function subValues(ctx: Ctx, n: Node): Pattern[] {
  const inner = n.namedChildren.filter((c): c is Node => c !== null);
  const stmts = inner.length === 1 && inner[0]!.type === 'statement_list' ? inner[0]!.namedChildren.filter((c): c is Node => c !== null && c.type !== 'empty_statement') : inner;
  if (stmts.length === 1) {
    const p = unwrap(stmts[0]!);
    const only = p.type === 'pipeline' ? p.namedChildren.filter((c): c is Node => c !== null) : [p];
    if (only.length === 1 && unwrap(only[0]!).type !== 'command') return values(ctx, only[0]!);
  }
  valueDepth++;
  try {
    for (const s of stmts) walk(ctx, s);
  } finally {
    valueDepth--;
  }
  return [[ANY]];
}

interface Arg {
  param?: string;
  values: Pattern[];
  raw: string;
}

function commandParts(ctx: Ctx, cmd: Node): { name: Pattern[]; args: Arg[] } {
  const nameNode = cmd.childForFieldName('command_name');
  const name = nameNode ? (nameNode.type === 'command_name' ? [lit(nameNode.text)] : values(ctx, nameNode.namedChildren[0] ?? nameNode)) : [[ANY]];
  const args: Arg[] = [];
  const elements = cmd.childForFieldName('command_elements');
  let param: string | undefined;
  for (const el of elements?.namedChildren ?? []) {
    if (!el || el.type === 'command_argument_sep' || el.type === 'comment') continue;
    if (el.type === 'ERROR' || el.hasError) {
      if (el.type === 'ERROR') walk(ctx, el);
      else {
        const hit = ctx.patterns.textMatch(el.text);
        if (hit) refuse(ctx, `the PowerShell does not parse here (${JSON.stringify(el.text.slice(0, 60))}) and names a secret file (${hit})`);
      } // the words there are read again by the fallback tokenizer
      continue;
    }
    if (el.type === 'command_parameter') {
      param = el.text.toLowerCase().replace(/:$/, '');
      args.push({ param, values: [], raw: el.text });
      continue;
    }
    if (el.type === 'redirection' || el.type === 'file_redirection' || el.type.endsWith('redirection')) {
      const target = el.namedChildren[el.namedChildCount - 1];
      if (target && el.text.trimStart().startsWith('<')) for (const v of values(ctx, target)) checkRead(ctx, v, 'input redirection reads');
      continue;
    }
    args.push({ values: values(ctx, el).map(globify), raw: el.text });
    param = undefined;
  }
  return { name, args };
}

/**
 * PowerShell wildcards in a path argument: `*` and `?`. PowerShell's `*`
 * matches a leading dot; the name check treats it as Bash does (so `*.ts` is
 * not taken for `.env.ts`) and the expansion against the folder, which
 * matches dot files, finds the secrets that are really there.
 */
function globify(p: Pattern): Pattern {
  if (!isLiteral(p)) return p;
  const chars = [...textOf(p)];
  const out: Pattern = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '*') out.push({ k: 'star', dot: true });
    else if (ch === '?') out.push({ k: 'one', dot: true });
    else if (ch === '[' && bracket(chars, i)) {
      const b = bracket(chars, i)!;
      out.push({ k: 'set', set: b.set });
      i = b.end;
    } else out.push({ k: 'c', c: ch.codePointAt(0)! });
  }
  return out;
}

function judge(ctx: Ctx, cmd: Node, consumed: boolean, upstream: Node | null): void {
  const { name, args } = commandParts(ctx, cmd);
  judgeParts(ctx, name, args, cmd.text, consumed, upstream, false);
}

function judgeParts(ctx: Ctx, name: Pattern[], args: Arg[], cmdText: string, consumed: boolean, upstream: Node | null, piped: boolean): void {
  const operands = args.filter((a) => !a.param || a.values.length > 0);
  for (const alt of name) {
    if (!isLiteral(alt)) {
      checkRead(ctx, alt, 'a command whose name is only known at run time, run as');
      for (const a of operands) for (const v of a.values) checkRead(ctx, v, 'a command whose name is known only at run time is given');
      continue;
    }
    const raw = textOf(alt);
    const nm = (raw.split(/[\\/]/).pop() ?? raw).toLowerCase().replace(/\.exe$/, '');
    if (IEX.has(nm)) {
      if (operands.length === 0) {
        if (upstream) feedCode(ctx, upstream, nm);
        else if (piped) refuse(ctx, `${nm} runs code piped from a command that could not be parsed`);
        continue;
      }
      for (const a of operands) for (const v of a.values) {
        if (!isLiteral(v)) refuse(ctx, `${nm} runs code that is only known at run time`);
        else ctx.nested('powershell', textOf(v), ctx);
      }
      continue;
    }
    if (['set-location', 'cd', 'sl', 'chdir', 'push-location', 'pushd'].includes(nm)) {
      const to = operands.find((a) => !a.param)?.values[0];
      if (to && isLiteral(to) && ctx.cwds.length < 16) ctx.cwds.push(absolute(textOf(to), ctx.cwd));
    }
    if (SAFE.has(nm)) continue;
    if (LISTERS.has(nm)) {
      if (!consumed && valueDepth === 0) continue;
      for (const a of operands) for (const v of a.values) checkRead(ctx, v, `${nm} feeds the next command`);
      const filter = args.find((a, i) => (a.param === '-filter' || a.param === '-include') && args[i + 1]);
      if (!filter) {
        const path = operands.find((a) => !a.param || a.param === '-path' || a.param === '-literalpath');
        checkTree(ctx, path?.values[0] ?? lit('.'), `${nm} feeds the next command the files of`, { followLinks: true });
      }
      continue;
    }
    if (COPIERS.has(nm)) {
      const dest = args.find((a) => a.param && '-destination'.startsWith(a.param) && a.param.length > 2);
      const positional = args.filter((a) => !a.param);
      const destVals = dest ? (args[args.indexOf(dest) + 1]?.values ?? []) : positional.length >= 2 ? positional[positional.length - 1]!.values : [];
      const destSecret = destVals.length > 0 && destVals.every((v) => isLiteral(v) && ctx.patterns.pathMatch(textOf(v)) !== null);
      for (const a of args) {
        if (a.values === destVals) continue;
        for (const v of a.values) {
          if (destSecret && isLiteral(v) && ctx.patterns.pathMatch(textOf(v))) continue;
          checkRead(ctx, v, `${nm} copies`);
        }
      }
      continue;
    }
    if (READERS.has(nm)) {
      for (const a of args) for (const v of a.values) checkRead(ctx, v, `${nm} reads`);
      if (operands.length === 0 && upstream) upstreamNames(ctx, upstream, nm);
      else if (operands.length === 0 && piped) refuse(ctx, `${nm} reads names piped from a command that could not be parsed`);
      continue;
    }
    if (nm === 'compress-archive') {
      for (const a of args) for (const v of a.values) {
        checkRead(ctx, v, `${nm} packs`);
        checkTree(ctx, v, `${nm} packs the folder`, { followLinks: true });
      }
      continue;
    }
    if (nm === 'cmd') {
      cmdExe(ctx, args.map((a) => (a.param ? [lit(a.raw)] : a.values)));
      continue;
    }
    if (nm === 'pwsh' || nm === 'powershell') {
      pwshCommand(ctx, nm, args.map((a) => (a.param ? [lit(a.raw)] : a.values)));
      continue;
    }
    if (nm === 'new-object') {
      for (const a of args) for (const v of a.values) checkRead(ctx, v, 'New-Object is given');
      continue;
    }
    if (nm === 'invoke-command' || nm === 'icm' || nm === 'start-job' || nm === 'sajb') {
      for (const a of args) for (const v of a.values) checkRead(ctx, v, `${nm} is given`);
      continue;
    }
    if (nm.includes('-') && !nm.includes('.')) {
      // Another cmdlet: whatever it is given may be read.
      for (const a of args) for (const v of a.values) checkRead(ctx, v, `${raw} is given`);
      if (operands.length === 0 && upstream && !DISPLAY.has(nm)) upstreamNames(ctx, upstream, nm);
      continue;
    }
    // A native program (git, node, tar, bash, wsl ...): the shared rules.
    judgeCommand({ ...ctx }, { names: [lit(nm === 'wsl' ? 'env' : raw)], args: args.map((a) => (a.param ? [lit(a.raw)] : a.values)), text: cmdText });
  }
}

/** A reader fed by the pipeline: the names it gets come from upstream. */
function upstreamNames(ctx: Ctx, upstream: Node, who: string): void {
  const up = unwrap(upstream);
  if (up.type === 'command') {
    const { name, args } = commandParts({ ...ctx, refusals: [] }, up);
    const nm = name.length === 1 && isLiteral(name[0]!) ? textOf(name[0]!).toLowerCase() : '';
    if (LISTERS.has(nm) || SAFE.has(nm) || DISPLAY.has(nm)) {
      // Already judged as consumed (listers) or they print their own words, which become names here.
      for (const a of args) for (const v of a.values) checkRead(ctx, v, `${who} reads the names piped from ${nm}:`);
      return;
    }
    return;
  }
  for (const v of values({ ...ctx }, up)) checkRead(ctx, v, `${who} reads a name piped to it:`);
}

function feedCode(ctx: Ctx, upstream: Node, who: string): void {
  const up = unwrap(upstream);
  if (up.type === 'command') {
    const nm = (up.childForFieldName('command_name')?.text ?? '').toLowerCase();
    if (NETWORK.has(nm)) return; // remote code: out of this guard's sight
    return refuse(ctx, `${who} runs code piped from ${nm || 'a command'}, known only at run time`);
  }
  for (const v of values(ctx, up)) {
    if (!isLiteral(v)) return refuse(ctx, `${who} runs code that is only known at run time`);
    ctx.nested('powershell', textOf(v), ctx);
  }
}

/** Script-block cmdlets see each object as $_ and may open it. */
const PER_OBJECT = new Set(['foreach-object', 'foreach', '%', 'where-object', 'where', '?']);

/** Does the next stage do something with the files a lister hands it? Deleting, testing or displaying them does not read them. */
function consumes(nextName: string, nextText: string): boolean {
  if (PER_OBJECT.has(nextName)) return true;
  if (DISPLAY.has(nextName)) return /expandproperty/i.test(nextText);
  return !SAFE.has(nextName);
}

function pipeline(ctx: Ctx, node: Node): void {
  const stages = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
  if (stages.length === 1 && unwrap(stages[0]!).type === 'pipeline_chain') return pipeline(ctx, unwrap(stages[0]!));
  stages.forEach((stage, i) => {
    const s = unwrap(stage);
    const next = stages[i + 1] ? unwrap(stages[i + 1]!) : null;
    const nextName = next?.type === 'command' ? (next.childForFieldName('command_name')?.text ?? '').toLowerCase() : '';
    const consumed = next !== null && consumes(nextName, next.text);
    if (s.type === 'command') judge(ctx, s, consumed, i > 0 ? stages[i - 1]! : null);
    else if (i === 0 && next) {
      // A value piped on: its strings become what the next command reads.
      for (const v of values(ctx, s)) if (nextName && !SAFE.has(nextName)) checkRead(ctx, v, `a value piped to ${nextName}:`);
    } else walk(ctx, s);
  });
}

function assignment(ctx: Ctx, node: Node): void {
  const left = node.namedChildren[0];
  const value = node.childForFieldName('value') ?? node.namedChildren[node.namedChildCount - 1];
  const leftVar = left ? unwrap(left) : null;
  const vals = value ? listValues(ctx, value) : [[ANY]];
  if (leftVar?.type === 'variable') addVar(ctx, `ps:${varName(leftVar.text)}`, vals);
  else if (left) walk(ctx, left);
}

function invocation(ctx: Ctx, node: Node): void {
  const method = node.namedChildren.find((c) => c?.type === 'member_name')?.text.toLowerCase() ?? '';
  const argList = node.namedChildren.find((c) => c?.type === 'argument_list');
  const target = node.namedChildren[0];
  if (target && target.type !== 'type_literal') values(ctx, target);
  const argVals = argList ? argList.namedChildren.filter((c): c is Node => c !== null).flatMap((c) => listValues(ctx, c)) : [];
  if (method === 'create' && /scriptblock/i.test(target?.text ?? '')) {
    for (const v of argVals) {
      if (!isLiteral(v)) refuse(ctx, '[scriptblock]::Create runs code that is only known at run time');
      else ctx.nested('powershell', textOf(v), ctx);
    }
    return;
  }
  if (SAFE_METHODS.has(method)) return;
  for (const v of argVals) checkRead(ctx, v, `the .NET call ${method || node.text.slice(0, 40)} is given`);
  if (/^(readall|open|readlines|readtoend|copy)/.test(method) && argVals.length === 0 && target && target.type !== 'type_literal') {
    // (Get-Item x).OpenText(): the object came from a command judged above as consumed.
  }
}

export function walk(ctx: Ctx, node: Node): void {
  checkClock();
  if (node.type === 'ERROR' || node.isMissing) {
    const hit = ctx.patterns.textMatch(node.text);
    if (hit) refuse(ctx, `the PowerShell does not parse here (${JSON.stringify(node.text.slice(0, 60))}) and names a secret file (${hit})`);
  }
  switch (node.type) {
    case 'pipeline':
      return pipeline(ctx, node);
    case 'command':
      return judge(ctx, node, false, null);
    case 'assignment_expression':
      return assignment(ctx, node);
    case 'invokation_expression':
    case 'member_access':
      return invocation(ctx, node);
    case 'variable':
      variable(ctx, node);
      return;
    case 'string_literal':
    case 'expandable_string_literal':
    case 'verbatim_string_characters':
    case 'generic_token':
      for (const v of values(ctx, node)) checkRead(ctx, v, 'PowerShell code uses the name');
      return;
    case 'comment':
      return;
    default:
      for (const c of node.namedChildren) if (c) walk(ctx, c);
  }
}

export function analyzePowerShell(ctx: Ctx, root: Node): void {
  walk(ctx, root);
  if (root.hasError) fallback(ctx, root.text);
}

// ---------------------------------------------------------------------------
// When the grammar cannot parse the text (it has gaps: `$env:X\path` and
// `a, b` lists in argument mode), the text is also read by a plain tokenizer
// as statements of words, each judged as a command.

interface Tok {
  values: Pattern[];
  raw: string;
}

function fallback(ctx: Ctx, text: string): void {
  const chars = [...text];
  let i = 0;
  const statements: { toks: Tok[]; piped: boolean }[] = [];
  let toks: Tok[] = [];
  let piped = false;
  let cur: Pattern[] = [[]];
  let raw = '';
  let started = false;
  const append = (vals: Pattern[]) => {
    cur = cross(cur, vals);
    started = true;
  };
  const endWord = () => {
    if (started) toks.push({ values: cur, raw });
    cur = [[]];
    raw = '';
    started = false;
  };
  const endStatement = (pipe: boolean) => {
    endWord();
    if (toks.length) statements.push({ toks, piped });
    toks = [];
    piped = pipe;
  };
  /** The text up to the bracket that closes the one at i (nesting counted, quotes skipped). */
  const balanced = (open: string, close: string): string => {
    let depth = 0;
    const from = i;
    for (; i < chars.length; i++) {
      const ch = chars[i]!;
      if (ch === "'" || ch === '"') {
        const q = ch;
        for (i++; i < chars.length && chars[i] !== q; i++) if (chars[i] === '`') i++;
        continue;
      }
      if (ch === open) depth++;
      else if (ch === close && --depth === 0) return chars.slice(from + 1, i).join('');
    }
    return chars.slice(from + 1).join('');
  };
  const variable = (): Pattern[] => {
    // at '$'
    let name = '';
    i++;
    if (chars[i] === '{') {
      const inner = balanced('{', '}');
      i++;
      return lookup(ctx, varName(`\${${inner}}`));
    }
    while (i < chars.length && /[A-Za-z0-9_:?]/.test(chars[i]!)) name += chars[i++]!;
    return name ? lookup(ctx, varName(`$${name}`)) : [lit('$')];
  };
  while (i < chars.length) {
    const ch = chars[i]!;
    if (ch === '\n' || ch === ';' || (ch === '&' && chars[i + 1] === '&') || (ch === '|' && chars[i + 1] === '|')) {
      endStatement(false);
      i += ch === '&' || (ch === '|' && chars[i + 1] === '|') ? 2 : 1;
      continue;
    }
    if (ch === '|') {
      endStatement(true);
      i++;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      endWord();
      i++;
      continue;
    }
    if (ch === ',') {
      // A list in argument mode: each element is a value of the same word.
      toks.push({ values: cur, raw });
      cur = [[]];
      raw = '';
      started = false;
      i++;
      const last = toks.pop()!;
      const prev = toks[toks.length - 1];
      if (prev && prev.raw.endsWith(',')) prev.values.push(...last.values);
      else toks.push({ values: last.values, raw: `${last.raw},` });
      started = false;
      continue;
    }
    raw += ch;
    if (ch === "'") {
      let s = '';
      for (i++; i < chars.length; i++) {
        if (chars[i] === "'" && chars[i + 1] === "'") {
          s += "'";
          i++;
        } else if (chars[i] === "'") break;
        else s += chars[i];
      }
      i++;
      append([lit(s)]);
      continue;
    }
    if (ch === '"') {
      let acc: Pattern[] = [[]];
      let s = '';
      for (i++; i < chars.length && chars[i] !== '"'; ) {
        if (chars[i] === '`' && i + 1 < chars.length) {
          s += unescape(`\`${chars[i + 1]}`);
          i += 2;
        } else if (chars[i] === '$' && chars[i + 1] === '(') {
          acc = cross(acc, [lit(s)]);
          s = '';
          i++;
          ctx.nested('powershell', balanced('(', ')'), ctx);
          i++;
          acc = cross(acc, [[ANY]]);
        } else if (chars[i] === '$' && /[A-Za-z_{]/.test(chars[i + 1] ?? '')) {
          acc = cross(acc, [lit(s)]);
          s = '';
          acc = cross(acc, variable());
        } else s += chars[i++];
      }
      i++;
      append(cross(acc, [lit(s)]));
      continue;
    }
    if (ch === '`' && i + 1 < chars.length) {
      append([lit(unescape(`\`${chars[i + 1]}`))]);
      i += 2;
      continue;
    }
    if (ch === '$' && chars[i + 1] === '(') {
      i++;
      ctx.nested('powershell', balanced('(', ')'), ctx);
      i++;
      append([[ANY]]);
      continue;
    }
    if (ch === '(' || ch === '{') {
      ctx.nested('powershell', balanced(ch, ch === '(' ? ')' : '}'), ctx);
      i++;
      append([[ANY]]);
      continue;
    }
    if (ch === '$') {
      append(variable());
      continue;
    }
    append([globify(lit(ch))]);
    i++;
  }
  endStatement(false);
  statements.forEach((st, k) => {
    const after = statements[k + 1];
    const consumed = after?.piped === true && consumes((after.toks[0]?.raw ?? '').toLowerCase(), after.toks.map((t) => t.raw).join(' '));
    const [first, ...rest] = st.toks;
    if (!first) return;
    if (first.raw.startsWith('$') && rest[0]?.raw === '=') {
      addVar(ctx, `ps:${varName(first.raw)}`, rest.slice(1).flatMap((t) => t.values));
      return;
    }
    const args: Arg[] = rest.map((t) => (t.raw.startsWith('-') && t.values.every(isLiteral) ? { param: t.raw.toLowerCase(), values: [], raw: t.raw } : { values: t.values.map(globify), raw: t.raw }));
    judgeParts(ctx, first.values, args, st.toks.map((t) => t.raw).join(' '), consumed, null, st.piped);
  });
}

export { pwshCommand };
