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

function offsetFromMessage(text: string, message: string): number | null {
  const pos = /position (\d+)/.exec(message);
  if (pos) return Number(pos[1]);
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) {
    const lines = text.split('\n');
    let off = 0;
    for (let i = 0; i < Number(lc[1]) - 1 && i < lines.length; i++) off += (lines[i]?.length ?? 0) + 1;
    return off + Number(lc[2]) - 1;
  }
  if (/Unexpected end of JSON input/.test(message)) return text.length;
  return null;
}

/** Parse JSON text or throw a CliError naming `label:line:col`. */
export function parseJson(text: string, label: string, maxBytes = MAX_JSON_BYTES): unknown {
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw new CliError('invalid-args', `${label}: JSON input is over the ${maxBytes}-byte limit`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const offset = offsetFromMessage(text, message);
    const where = offset === null ? label : `${label}:${lineCol(text, offset).line}:${lineCol(text, offset).col}`;
    throw new CliError('invalid-args', `${where}: invalid JSON (${message.replace(/^.*?JSON[^:]*: ?/, '') || message})`);
  }
  const bad = findForbiddenKey(value, '');
  if (bad !== null) {
    const offset = text.indexOf(`"${bad.key}"`);
    const where = offset < 0 ? label : `${label}:${lineCol(text, offset).line}`;
    throw new CliError('invalid-args', `${where}: key "${bad.key}" is not allowed (at ${bad.path || '/'})`);
  }
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
