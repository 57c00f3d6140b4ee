// File primitives every state write goes through. A write is: unique temp file
// in the target's directory, fsync, rename over the target, fsync the
// directory. A crash at any point leaves either the old or the new file, never
// a torn one; a leftover temp file is harmless and `health --repair` removes it.
import fs from 'node:fs';
import path from 'node:path';
import { failed } from './errors.ts';

export const MAX_TEXT_BYTES = 8 * 1024 * 1024;

let tempCounter = 0;

/** Temp files are dot-files named after the target so health can find ours. */
export function tempNameFor(target: string): string {
  tempCounter += 1;
  const rand = Math.random().toString(36).slice(2, 8);
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${tempCounter}${rand}.gsd-tmp`);
}

export const TEMP_PATTERN = /^\..+\.\d+\.\d+[a-z0-9]*\.gsd-tmp$/;

export function readText(file: string): string {
  const st = fs.statSync(file);
  if (st.size > MAX_TEXT_BYTES) throw failed(`${file}: file is ${st.size} bytes, over the ${MAX_TEXT_BYTES}-byte limit`);
  return fs.readFileSync(file, 'utf8');
}

export function readTextIfExists(file: string): string | null {
  try {
    return readText(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export function exists(p: string): boolean {
  try {
    fs.statSync(p);
    return true;
  } catch {
    return false;
  }
}

export function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function listDir(p: string): string[] {
  try {
    return fs.readdirSync(p).sort();
  } catch {
    return [];
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Atomically replace (or create) `file` with `text`. */
export function writeAtomic(file: string, text: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const temp = tempNameFor(file);
  const fd = fs.openSync(temp, 'wx', 0o644);
  try {
    const data = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < data.length) offset += fs.writeSync(fd, data, offset, data.length - offset);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    safeUnlink(temp);
    throw error;
  }
  fs.closeSync(fd);
  // Test seam: simulate a crash between the temp write and the rename.
  if (process.env.GSD_FAULT === 'kill-before-rename') process.kill(process.pid, 'SIGKILL');
  try {
    renameWithRetry(temp, file);
  } catch (error) {
    safeUnlink(temp);
    throw error;
  }
  fsyncDir(dir);
}

const TRANSIENT = new Set(['EPERM', 'EBUSY', 'EACCES']);

function renameWithRetry(from: string, to: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      fs.renameSync(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!TRANSIENT.has(code) || attempt >= 3) throw error;
      sleepSync(50);
    }
  }
}

export function safeUnlink(p: string): void {
  try {
    fs.unlinkSync(p);
  } catch {
    // already gone
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, Math.max(0, ms));
}

/**
 * Write several files as one set: unchanged files are skipped, and if any
 * write fails the files already written are put back as they were, newest first.
 */
export function writeSet(entries: { file: string; before: string | null; after: string }[]): string[] {
  const done: { file: string; before: string | null }[] = [];
  try {
    for (const entry of entries) {
      if (entry.before === entry.after) continue;
      writeAtomic(entry.file, entry.after);
      done.push(entry);
    }
  } catch (error) {
    for (const entry of done.reverse()) {
      try {
        if (entry.before === null) safeUnlink(entry.file);
        else writeAtomic(entry.file, entry.before);
      } catch {
        // best effort: the original error is what the caller needs to see
      }
    }
    throw error;
  }
  return done.map((d) => d.file);
}
