// JSON that comes from users and files: size-capped, refusing keys that could
// reach an object's prototype, and with errors that name a line and column.
import { CliError } from './errors.ts';

export const MAX_JSON_BYTES = 1024 * 1024;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/** Line and column (1-based) of a character offset. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      last = i;
    }
  }
  return { line, col: offset - last };
}

/** Offset of the first syntax error in `text` (a small JSON grammar walk; only used after JSON.parse failed). */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && /[ \t\r\n]/.test(text[i]!)) i++;
  };
  const lit = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) (i--, fail());
  };
  const str = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (text[i] !== '"') fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      ws();
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (c === '{') {
          if (text[i] !== '"') fail();
          str();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === (c === '{' ? '}' : ']')) {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '"') str();
    else if (c === 't') lit('true');
    else if (c === 'f') lit('false');
    else if (c === 'n') lit('null');
    else {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(i));
      if (!m) fail();
      i += m![0].length;
    }
  };
  try {
    value();
    ws();
    return i < text.length ? i : text.length;
  } catch (at) {
    return typeof at === 'number' ? at : 0;
  }
}

/** Why JSON text was not taken, with the place where the text says where. */
export type JsonProblem =
  | { kind: 'too-large'; maxBytes: number }
  /** `detail` is JSON.parse's own message; `near` the text at the error. */
  | { kind: 'syntax'; line: number; col: number; near: string; detail: string }
  /** `line` is null when the key's text cannot be found (an escaped spelling). */
  | { kind: 'forbidden-key'; key: string; path: string; line: number | null }
  /** What the caller's check expected, in its words. */
  | { kind: 'shape'; expected: string };

export type JsonResult<T> = { value: T; problem: null } | { value: null; problem: JsonProblem };

/**
 * The one way built code reads JSON it did not just make: size-capped, parsed,
 * free of keys that reach a prototype, then held to `expect` (null when the
 * value fits, else what was expected). Callers word the problem for their user.
 */
export function decodeJson<T>(text: string, expect: (value: unknown) => string | null = () => null, maxBytes = MAX_JSON_BYTES): JsonResult<T> {
  if (Buffer.byteLength(text, 'utf8') > maxBytes) return { value: null, problem: { kind: 'too-large', maxBytes } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const offset = jsonErrorOffset(text);
    const near = text.slice(offset, offset + 12).split('\n')[0] || 'end of input';
    return { value: null, problem: { kind: 'syntax', ...lineCol(text, offset), near, detail: (error as Error).message } };
  }
  const bad = findForbiddenKey(value, '');
  if (bad !== null) {
    const offset = text.indexOf(`"${bad.key}"`);
    return { value: null, problem: { kind: 'forbidden-key', ...bad, line: offset < 0 ? null : lineCol(text, offset).line } };
  }
  const expected = expect(value);
  return expected === null ? { value: value as T, problem: null } : { value: null, problem: { kind: 'shape', expected } };
}

/** The problem as `label[:line[:col]]: what` (the wording of parseJson's errors). */
export function describeJsonProblem(problem: JsonProblem, label: string): string {
  switch (problem.kind) {
    case 'too-large':
      return `${label}: JSON input is over the ${problem.maxBytes}-byte limit`;
    case 'syntax':
      return `${label}:${problem.line}:${problem.col}: invalid JSON near ${JSON.stringify(problem.near)}`;
    case 'forbidden-key':
      return `${problem.line === null ? label : `${label}:${problem.line}`}: key "${problem.key}" is not allowed (at ${problem.path || '/'})`;
    case 'shape':
      return `${label}: expected ${problem.expected}`;
  }
}

/** Parse JSON text or throw a CliError naming `label:line:col`. */
export function parseJson(text: string, label: string, maxBytes = MAX_JSON_BYTES): unknown {
  const { value, problem } = decodeJson(text, undefined, maxBytes);
  if (problem) throw new CliError('invalid-args', describeJsonProblem(problem, label));
  return value;
}

function findForbiddenKey(value: unknown, at: string): { key: string; path: string } | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const r = findForbiddenKey(value[i], `${at}/${i}`);
      if (r) return r;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) return { key, path: at };
      const r = findForbiddenKey((value as Record<string, unknown>)[key], `${at}/${key}`);
      if (r) return r;
    }
  }
  return null;
}

/**
 * Line of a JSON pointer (`/workflow/research`) in already-valid JSON `text`,
 * found by a small position-tracking walk. Used only to point errors at a line:
 * an object member reports the line of its key.
 */
export function lineOfPointer(text: string, pointer: string): number | undefined {
  let i = 0;
  let found: number | undefined;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    let s = '';
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        s += text[i + 1] ?? '';
        i += 2;
      } else s += text[i++];
    }
    i++;
    return s;
  };
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  const value = (at: string, line?: number): void => {
    ws();
    if (found === undefined && at === pointer) found = line ?? lineCol(text, i).line;
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (let index = 0; i < text.length; index++) {
        ws();
        if (ch === '{') {
          const keyLine = lineCol(text, i).line;
          const key = str();
          ws();
          i++; // ':'
          value(`${at}/${esc(key)}`, keyLine);
        } else value(`${at}/${index}`);
        ws();
        const sep = text[i++];
        if (sep !== ',') return;
      }
    } else if (ch === '"') str();
    else while (i < text.length && !/[,\]}\s]/.test(text[i]!)) i++;
  };
  value('');
  return found;
}
