// Exclusive lock files. A lock is created with O_EXCL and holds
// `pid\nstart\nnonce\n`, where `start` is the holder's process start time as
// the OS reports it (see processStart). It is stolen only when its holder is
// provably gone (the pid is dead, or alive but started at another time, so the
// pid was reused; or the pid is our own and we do not hold the lock), its body
// never appeared within a grace period, or it outlived a dead-man ceiling.
// Stealing renames the lock aside and checks it took exactly the inode it
// judged stale; a fresh lock taken by mistake is linked back at once.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CliError } from './errors.ts';
import { safeUnlink, sleepSync } from './fs.ts';

export interface LockOptions {
  /** Total time to keep trying, in ms. */
  timeoutMs?: number;
  /** A lock whose body is still empty after this long is abandoned. */
  emptyGraceMs?: number;
  /** A lock older than this is stolen even from a live pid (pid reuse, hung holder). */
  deadmanMs?: number;
}

const held = new Map<string, string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [file, token] of held) releaseIfOurs(file, token);
  });
}

/**
 * When a live process started, in a form that survives its pid being reused:
 * `linux:<ticks since boot>` from /proc/<pid>/stat, `epoch:<seconds>` from
 * `ps -o lstart=` elsewhere on POSIX (for this process, from its uptime, no
 * spawn), null where neither is available (Windows), in which case only the
 * dead-man ceiling catches a reused pid.
 */
const startCache = new Map<number, string | null>();
export function processStart(pid: number): string | null {
  if (startCache.has(pid)) return startCache.get(pid)!;
  let start: string | null = null;
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (/^\d+$/.test(fields[19] ?? '')) start = `linux:${fields[19]}`;
    } catch {
      start = null;
    }
  } else if (process.platform !== 'win32') {
    if (pid === process.pid) start = `epoch:${Math.round(Date.now() / 1000 - process.uptime())}`;
    else {
      const r = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 5_000, windowsHide: true });
      const t = r.status === 0 ? Date.parse(r.stdout.trim()) : Number.NaN;
      start = Number.isFinite(t) ? `epoch:${Math.round(t / 1000)}` : null;
    }
  }
  // Only `ps` readings are cached (a spawn each); /proc is cheap and always current.
  if (start !== null && process.platform !== 'linux') startCache.set(pid, start);
  return start;
}

/** Whether two start readings name different processes (false when either is unknown). */
function startsDiffer(recorded: string | undefined, current: string | null): boolean {
  if (!recorded || recorded === '-' || current === null) return false;
  const [kr, vr] = recorded.split(':');
  const [kc, vc] = current.split(':');
  if (kr !== kc) return false;
  if (kr === 'epoch') return Math.abs(Number(vr) - Number(vc)) > 2;
  return vr !== vc;
}

/** Whether the process that wrote `pid` and `start` into a lock or record is still running. */
export function holderAlive(pid: number, start: string | undefined): boolean {
  if (!pidAlive(pid)) return false;
  return !startsDiffer(start, processStart(pid));
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): { body: string; ino: number; mtimeMs: number } | null {
  try {
    const st = fs.statSync(file);
    const body = fs.readFileSync(file, 'utf8');
    return { body, ino: st.ino, mtimeMs: st.mtimeMs };
  } catch {
    return null;
  }
}

function tryCreate(file: string, token: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'ENOENT') {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      return false;
    }
    throw error;
  }
  try {
    fs.writeSync(fd, token);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Judge an existing lock; returns why it may be stolen, or null. */
function staleReason(file: string, info: { body: string; mtimeMs: number }, opts: Required<LockOptions>): string | null {
  const age = Date.now() - info.mtimeMs;
  const [pidText = '', start] = info.body.split('\n');
  const pid = Number.parseInt(pidText, 10);
  if (info.body.trim() === '') return age > opts.emptyGraceMs ? 'empty' : null;
  if (!Number.isInteger(pid) || pid <= 0) return age > opts.emptyGraceMs ? 'garbage' : null;
  // Our own pid on a lock we do not hold: an earlier process that had this pid left it.
  if (pid === process.pid && held.get(file) !== info.body) return 'pid-reused';
  if (!pidAlive(pid)) return 'dead-holder';
  if (startsDiffer(start, processStart(pid))) return 'pid-reused';
  if (age > opts.deadmanMs) return 'deadman';
  return null;
}

let stealSeq = 0;
function steal(file: string, ino: number): void {
  stealSeq += 1;
  const aside = `${file}.stale-${process.pid}-${stealSeq}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // someone else stole or released it first
  }
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(aside);
  } catch {
    st = null;
  }
  if (st && st.ino !== ino) {
    // We took a lock created after our judgement: give it back untouched.
    try {
      fs.linkSync(aside, file);
    } catch {
      // another process holds a newer lock already; the aside copy is dropped
    }
  }
  safeUnlink(aside);
}

function releaseIfOurs(file: string, token: string): void {
  const info = readLock(file);
  if (info && info.body === token) safeUnlink(file);
  held.delete(file);
}

function envNumber(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Run `fn` holding the lock file; the lock is released even if `fn` throws. */
export function withLock<T>(file: string, fn: () => T, options: LockOptions = {}): T {
  const opts: Required<LockOptions> = {
    timeoutMs: options.timeoutMs ?? envNumber('GSD_LOCK_TIMEOUT_MS') ?? 30_000,
    emptyGraceMs: options.emptyGraceMs ?? 1_000,
    deadmanMs: options.deadmanMs ?? envNumber('GSD_LOCK_DEADMAN_MS') ?? 60_000,
  };
  if (held.has(file)) return fn(); // re-entrant within one process
  const token = `${process.pid}\n${processStart(process.pid) ?? '-'}\n${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}\n`;
  const start = Date.now();
  let delay = 5;
  for (;;) {
    if (tryCreate(file, token)) break;
    const info = readLock(file);
    if (info) {
      const reason = staleReason(file, info, opts);
      if (reason) {
        steal(file, info.ino);
        continue;
      }
    }
    if (Date.now() - start >= opts.timeoutMs) {
      const holder = info ? Number.parseInt(info.body, 10) : NaN;
      throw new CliError(
        'locked',
        `${file}: lock held by ${Number.isInteger(holder) ? `live process ${holder}` : 'another process'}; gave up after ${opts.timeoutMs} ms`,
      );
    }
    sleepSync(delay + Math.floor(Math.random() * delay));
    delay = Math.min(delay * 2, 100);
  }
  installExitHook();
  held.set(file, token);
  try {
    return fn();
  } finally {
    releaseIfOurs(file, token);
  }
}

/** For health: describe a lock file without touching it. */
export function inspectLock(file: string): { pid: number | null; alive: boolean; ageMs: number } | null {
  const info = readLock(file);
  if (!info) return null;
  const [pidText = '', start] = info.body.split('\n');
  const pid = Number.parseInt(pidText, 10);
  const ok = Number.isInteger(pid) && pid > 0;
  return { pid: ok ? pid : null, alive: ok && holderAlive(pid, start), ageMs: Date.now() - info.mtimeMs };
}

/** Whether this process holds `file` right now (inside withLock). */
export function holdsLock(file: string): boolean {
  return held.has(file);
}
