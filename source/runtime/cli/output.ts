// How results leave the process: 2-space JSON without a trailing newline (the
// upstream contract prompts rely on), a bare value with --raw, or one field
// with --pick.
import fs from 'node:fs';

export interface Result {
  data: unknown;
  /** The bare value printed with --raw; commands without one print JSON. */
  raw?: string;
  /** Exit code for an answer that is printed but is a failure (commit not made, merge conflict); default 0. */
  exitCode?: number;
}

/** Follow `a.b[0].c` / `x[-1]` through own properties; undefined when missing. */
export function pick(value: unknown, path: string): unknown {
  const parts: (string | number)[] = [];
  for (const seg of path.split('.')) {
    const m = /^([^[\]]*)((?:\[-?\d+\])*)$/.exec(seg);
    if (!m) return undefined;
    if (m[1]) parts.push(m[1]);
    for (const idx of m[2]!.matchAll(/\[(-?\d+)\]/g)) parts.push(Number(idx[1]));
  }
  let cur: unknown = value;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (typeof part === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[part < 0 ? cur.length + part : part];
    } else {
      if (!Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
  }
  return cur;
}

export function scalarString(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function render(result: Result, opts: { raw: boolean; pick?: string }): string {
  if (opts.pick !== undefined) return scalarString(pick(result.data, opts.pick));
  if (opts.raw && result.raw !== undefined) return result.raw;
  return JSON.stringify(result.data, null, 2) ?? 'null';
}

/** Write all of `text` to a file descriptor, retrying short and EAGAIN writes. */
export function writeFd(fd: number, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  let spins = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off, buf.length - off);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'EAGAIN' || code === 'EINTR') && spins++ < 1000) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      throw error;
    }
  }
}
