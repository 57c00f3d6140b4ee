// A small, dependency-free renderer for the Handlebars subset GSD templates
// use, with Handlebars semantics and `noEscape` (output is Markdown):
//   {{path}} {{{path}}} {{a.b}} {{this}} {{../x}} {{@index}} {{@key}} {{@first}} {{@last}}
//   {{#if x}}…{{else}}…{{/if}}  {{#unless x}}…{{/unless}}
//   {{#each list}}…{{else}}…{{/each}}  {{#with obj}}…{{/with}}
//   {{! comment }} {{!-- comment --}}  {{~ trims whitespace ~}}  \{{ escapes
// Block tags alone on a line take the whole line with them ("standalone"),
// as Handlebars does. Anything else (helpers with arguments, partials) is an
// error naming the template and line, never silently dropped.
import { CliError } from '../core/errors.ts';

type Node =
  | { kind: 'text'; value: string }
  | { kind: 'var'; path: string; line: number }
  | { kind: 'block'; helper: 'if' | 'unless' | 'each' | 'with'; path: string; body: Node[]; inverse: Node[]; line: number };

interface Token {
  kind: 'text' | 'tag';
  value: string;
  line: number;
  /** For tags: the inner text; strip flags. */
  stripLeft?: boolean;
  stripRight?: boolean;
  standaloneCandidate?: boolean;
}

function tokenize(src: string, name: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let text = '';
  let textLine = 1;
  const push = () => {
    if (text) tokens.push({ kind: 'text', value: text, line: textLine });
    text = '';
  };
  const closeAt = (from: number, closer: string, what: string): number => {
    const end = src.indexOf(closer, from);
    if (end < 0) throw new CliError('failed', `${name}:${line}: "${what}" is never closed`);
    return end;
  };
  while (i < src.length) {
    if (src.startsWith('\\{{', i)) {
      if (!text) textLine = line;
      text += '{{';
      i += 3;
      continue;
    }
    if (src.startsWith('{{', i)) {
      push();
      let inner: string;
      let end: number;
      const afterTilde = src[i + 2] === '~' ? i + 3 : i + 2;
      if (src.startsWith('!--', afterTilde)) {
        end = closeAt(afterTilde, '--', '{{!--');
        const close = closeAt(end, '}}', '{{!--');
        inner = src.slice(i + 2, close);
        end = close + 2;
      } else if (src[afterTilde] === '{') {
        const close = closeAt(afterTilde, '}}}', '{{{');
        inner = src.slice(i + 2, close + 1).replace(/^~?\{/, (m) => m.replace('{', '')).replace(/\}$/, '');
        end = close + 3;
      } else {
        const close = closeAt(i + 2, '}}', '{{');
        inner = src.slice(i + 2, close);
        end = close + 2;
      }
      let body = inner;
      const stripLeft = body.startsWith('~');
      if (stripLeft) body = body.slice(1);
      const stripRight = body.endsWith('~');
      if (stripRight) body = body.slice(0, -1);
      tokens.push({ kind: 'tag', value: body.trim(), line, stripLeft, stripRight });
      line += (src.slice(i, end).match(/\n/g) ?? []).length;
      i = end;
      continue;
    }
    if (!text) textLine = line;
    text += src[i];
    if (src[i] === '\n') line++;
    i++;
  }
  push();
  return tokens;
}

const isBlockish = (v: string) => /^[#/!^]/.test(v) || v === 'else';

/** Remove the line around block tags that stand alone on it, and apply ~ trimming. */
function applyWhitespace(tokens: Token[]): Token[] {
  // Standalone is judged on the original text, before any line is removed.
  const original = tokens.map((t) => t.value);
  const standalone = tokens.map((t, k) => {
    if (t.kind !== 'tag' || !isBlockish(t.value)) return false;
    const prev = k > 0 ? tokens[k - 1]! : undefined;
    const next = tokens[k + 1];
    if ((prev && prev.kind !== 'text') || (next && next.kind !== 'text')) return false;
    const before = prev ? original[k - 1]! : '';
    const after = next ? original[k + 1]! : '';
    const nl = before.lastIndexOf('\n');
    const startsLine = /^[ \t]*$/.test(before.slice(nl + 1)) && (nl >= 0 || k <= 1);
    const tail = /^[ \t]*(\r?\n|$)/.exec(after);
    return startsLine && !!tail && (tail[1] !== '' || k + 1 >= tokens.length - 1);
  });
  tokens.forEach((t, k) => {
    if (t.kind !== 'tag') return;
    const prev = tokens[k - 1];
    const next = tokens[k + 1];
    if (standalone[k]) {
      if (prev) prev.value = prev.value.replace(/[ \t]*$/, '');
      if (next) next.value = next.value.replace(/^[ \t]*(\r?\n)?/, '');
    }
    if (t.stripLeft && prev?.kind === 'text') prev.value = prev.value.replace(/\s+$/, '');
    if (t.stripRight && next?.kind === 'text') next.value = next.value.replace(/^\s+/, '');
  });
  return tokens;
}

function parse(tokens: Token[], name: string): Node[] {
  let pos = 0;
  const parseUntil = (closer: string | null): { body: Node[]; inverse: Node[] } => {
    const body: Node[] = [];
    const inverse: Node[] = [];
    let target = body;
    while (pos < tokens.length) {
      const t = tokens[pos++]!;
      if (t.kind === 'text') {
        if (t.value) target.push({ kind: 'text', value: t.value });
        continue;
      }
      const v = t.value;
      if (v.startsWith('!')) continue;
      if (v === 'else') {
        if (!closer) throw new CliError('failed', `${name}:${t.line}: {{else}} outside a block`);
        if (target === inverse) throw new CliError('failed', `${name}:${t.line}: second {{else}} in one block`);
        target = inverse;
        continue;
      }
      if (v.startsWith('/')) {
        const helper = v.slice(1).trim();
        if (helper !== closer) throw new CliError('failed', `${name}:${t.line}: {{/${helper}}} does not close ${closer ? `{{#${closer}}}` : 'any block'}`);
        return { body, inverse };
      }
      if (v.startsWith('#')) {
        const m = /^#\s*(if|unless|each|with)\s+(\S+)\s*$/.exec(v);
        if (!m) throw new CliError('failed', `${name}:${t.line}: unsupported block "{{${v}}}" (supported: #if, #unless, #each, #with with one argument)`);
        const inner = parseUntil(m[1]!);
        target.push({ kind: 'block', helper: m[1] as 'if', path: m[2]!, body: inner.body, inverse: inner.inverse, line: t.line });
        continue;
      }
      if (v.startsWith('>') || v.startsWith('^')) {
        throw new CliError('failed', `${name}:${t.line}: unsupported tag "{{${v}}}" (partials and inverse sections are not supported)`);
      }
      const path = v.startsWith('&') ? v.slice(1).trim() : v;
      if (!/^(?:\.\.\/)*(?:@?[A-Za-z_][\w-]*|this|\.)(?:\.[A-Za-z_][\w-]*|\.\d+)*$/.test(path)) {
        throw new CliError('failed', `${name}:${t.line}: unsupported expression "{{${v}}}" (only plain paths like name, a.b, this, ../x, @index)`);
      }
      target.push({ kind: 'var', path, line: t.line });
    }
    if (closer) throw new CliError('failed', `${name}: {{#${closer}}} is never closed`);
    return { body, inverse };
  };
  return parseUntil(null).body;
}

interface Frame {
  value: unknown;
  data: Record<string, unknown>;
}

function lookup(stack: Frame[], path: string, missing: Set<string>): unknown {
  let depth = stack.length - 1;
  let p = path;
  while (p.startsWith('../')) {
    depth = Math.max(0, depth - 1);
    p = p.slice(3);
  }
  const frame = stack[depth]!;
  if (p.startsWith('@')) {
    const [head, ...rest] = p.slice(1).split('.');
    let v: unknown = frame.data[head!];
    for (const r of rest) v = v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, r) ? (v as Record<string, unknown>)[r] : undefined;
    return v;
  }
  let cur: unknown = frame.value;
  const parts = p === 'this' || p === '.' ? [] : p.replace(/^this\./, '').split('.');
  for (const part of parts) {
    if (cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, part)) cur = (cur as Record<string, unknown>)[part];
    else {
      missing.add(path);
      return undefined;
    }
  }
  return cur;
}

function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  return !!v;
}

function show(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.map(show).join(',');
  if (typeof v === 'object') return '[object Object]';
  return String(v);
}

function run(nodes: Node[], stack: Frame[], missing: Set<string>, blank: Set<string> = new Set()): string {
  let out = '';
  for (const n of nodes) {
    if (n.kind === 'text') out += n.value;
    else if (n.kind === 'var') {
      const v = lookup(stack, n.path, missing);
      // Printed as nothing because it is absent or null (a "" given on purpose is a value).
      if ((v === undefined || v === null) && !n.path.startsWith('@')) blank.add(n.path);
      out += show(v);
    } else {
      const v = lookup(stack, n.path, missing);
      const top = stack[stack.length - 1]!;
      if (n.helper === 'if' || n.helper === 'unless') {
        const yes = n.helper === 'if' ? truthy(v) : !truthy(v);
        out += run(yes ? n.body : n.inverse, stack, missing, blank);
      } else if (n.helper === 'with') {
        out += truthy(v) ? run(n.body, [...stack, { value: v, data: top.data }], missing, blank) : run(n.inverse, stack, missing, blank);
      } else {
        const entries: [string | number, unknown][] = Array.isArray(v)
          ? v.map((x, i) => [i, x])
          : v !== null && typeof v === 'object'
            ? Object.entries(v as Record<string, unknown>)
            : [];
        if (entries.length === 0) out += run(n.inverse, stack, missing, blank);
        entries.forEach(([key, item], i) => {
          const data = { ...top.data, index: i, key, first: i === 0, last: i === entries.length - 1 };
          out += run(n.body, [...stack, { value: item, data }], missing, blank);
        });
      }
    }
  }
  return out;
}

export interface Rendered {
  text: string;
  /** Paths referenced by the template that the context did not have (conditions included). */
  missing: string[];
  /** Paths printed as nothing: absent or null where the template puts a value (conditions excluded). */
  unfilled: string[];
}

/** Compile and render `source` (named `name` in errors) against `context`. */
export function renderTemplate(source: string, context: unknown, name: string): Rendered {
  const nodes = parse(applyWhitespace(tokenize(source, name)), name);
  const missing = new Set<string>();
  const blank = new Set<string>();
  const text = run(nodes, [{ value: context, data: {} }], missing, blank);
  return { text, missing: [...missing].sort(), unfilled: [...blank].sort() };
}
