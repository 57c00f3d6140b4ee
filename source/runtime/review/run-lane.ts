// Run one reviewer lane headless with bounded time and output. The program is
// started without a shell (argv words as they are), in its own process group
// so a timeout or an oversized answer stops it and everything it started.
// Whatever the program does (hangs, floods, writes binary, exits non-zero,
// is not executable) ends as a LaneRun; this never throws.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Env } from '../core/context.ts';

export type LaneStatus = 'ok' | 'timeout' | 'failed' | 'empty' | 'garbage';

export interface LaneRun {
  status: LaneStatus;
  /** The answer as text (ok only; otherwise empty). */
  text: string;
  exit: number | null;
  signal: string | null;
  ms: number;
  /** Bytes of answer received (up to the cap). */
  bytes: number;
  /** The answer reached the cap and the lane was stopped there. */
  truncated: boolean;
  /** The end of stderr, cleaned, for the record. */
  stderr: string;
  /** One line: why the lane is not ok, or null. */
  note: string | null;
}

export interface LaneSpawn {
  program: string;
  argv: string[];
  cwd: string;
  env: Env;
  /** Written to stdin, then stdin is closed; null closes it at once. */
  stdin: string | null;
  /** Read the answer from this file after exit instead of stdout. */
  outputFile: string | null;
  timeoutMs: number;
  maxBytes: number;
  stderrTail: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as UTF-8 text, or null when they are not text (NUL bytes, invalid sequences). A cut at the cap may split one character: that tail is dropped. */
export function decodeAnswer(buf: Buffer, truncated: boolean): string | null {
  if (buf.includes(0)) return null;
  for (let cut = 0; cut <= (truncated ? 3 : 0) && cut <= buf.length; cut++) {
    try {
      return utf8.decode(buf.subarray(0, buf.length - cut));
    } catch {
      continue;
    }
  }
  return null;
}

/** At most `max` bytes of a file (the answer of an output-file lane). */
function readCapped(file: string, max: number): { buf: Buffer; truncated: boolean } | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    if (!fs.fstatSync(fd).isFile()) return null;
    const buf = Buffer.alloc(max + 1);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return got > max ? { buf: buf.subarray(0, max), truncated: true } : { buf: buf.subarray(0, got), truncated: false };
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function runLane(spec: LaneSpawn): Promise<LaneRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let outBytes = 0;
    let truncated = false;
    let errTail: Buffer = Buffer.alloc(0);
    let timedOut = false;
    let spawnError: string | null = null;
    let settled = false;
    const group = process.platform !== 'win32';
    let child: ReturnType<typeof spawn>;
    let timer: NodeJS.Timeout | undefined;
    try {
      child = spawn(spec.program, spec.argv, { cwd: spec.cwd, env: spec.env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: group, windowsHide: true, shell: false });
    } catch (error) {
      done(null, null, `could not start ${spec.program}: ${(error as Error).message}`);
      return;
    }
    const stop = () => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, spec.timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (truncated) return;
      const room = spec.maxBytes - outBytes;
      if (chunk.length > room) {
        out.push(chunk.subarray(0, room));
        outBytes += room;
        truncated = true;
        stop();
        return;
      }
      out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      errTail = Buffer.concat([errTail, chunk]);
      if (errTail.length > spec.stderrTail) errTail = errTail.subarray(errTail.length - spec.stderrTail);
    });
    child.stdin!.on('error', () => {
      // a lane that never reads its stdin closes the pipe: not our failure
    });
    child.on('error', (error) => {
      spawnError = `could not start ${spec.program}: ${error.message}`;
      if (child.pid === undefined) done(null, null, spawnError); // never started: no close follows for sure
    });
    // The lane's own process is done: stop whatever it left behind holding the pipes.
    child.on('exit', () => {
      if (group && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // nothing left
        }
      }
    });
    child.on('close', (code, signal) => done(code, signal, spawnError));
    if (spec.stdin !== null) child.stdin!.end(spec.stdin);
    else child.stdin!.end();

    function done(code: number | null, signal: NodeJS.Signals | null, error: string | null): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(finish(code, signal, error));
    }

    function finish(code: number | null, signal: NodeJS.Signals | null, error: string | null): LaneRun {
      const ms = Date.now() - started;
      const stderr = (decodeAnswer(errTail, true) ?? errTail.toString('latin1')).replace(/[^\t\n\x20-\x7e\u00a0-\uffff]/g, '');
      const base = { text: '', exit: code, signal: signal ?? null, ms, bytes: outBytes, truncated, stderr };
      if (error) return { ...base, status: 'failed', note: error };
      if (timedOut) return { ...base, status: 'timeout', note: `no answer within ${Math.round(spec.timeoutMs / 1000)} s; stopped` };
      if (!truncated && (code !== 0 || signal)) return { ...base, status: 'failed', note: signal ? `stopped by ${signal}` : `exited with code ${code}` };
      let buf: Buffer = Buffer.concat(out);
      let cut = truncated;
      if (spec.outputFile !== null) {
        const read = readCapped(spec.outputFile, spec.maxBytes);
        if (!read) return { ...base, status: 'empty', note: 'wrote no answer file' };
        buf = read.buf;
        cut = read.truncated;
      }
      const text = decodeAnswer(buf, cut);
      if (text === null) return { ...base, bytes: buf.length, truncated: cut, status: 'garbage', note: 'the answer is not UTF-8 text' };
      if (text.trim() === '') return { ...base, bytes: buf.length, truncated: cut, status: 'empty', note: 'the answer is empty' };
      return { ...base, text, bytes: buf.length, truncated: cut, status: 'ok', note: cut ? `answer cut at ${spec.maxBytes} bytes` : null };
    }
  });
}
