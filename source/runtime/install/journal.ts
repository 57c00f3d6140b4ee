// The install journal: what an install, update or uninstall is about to do,
// written before its first change and deleted after its last. Each step names
// one path, the hash (and mode) of what was there before and of what the step
// leaves, and the bytes that were there are kept in the journal's store before
// the step replaces or removes them. A run killed between any two writes
// leaves the journal behind; the next install or uninstall rolls it back from
// the files as they are (a step whose path still holds its `before` is
// untouched; one that holds its `after` is put back), then does what it was
// asked. Rolling back is itself safe to interrupt: it is a function of the
// journal and the files, and the journal goes only when it is done.
//
// Layout, inside the install root:
//   gsd-install-journal/journal.json   the steps (this file present = a run did not finish)
//   gsd-install-journal/bytes/<sha256> the bytes each step replaced or removed
//   gsd-install-journal/dirs.json      folders GSD created to hold the root itself,
//                                      until a record or journal lists them
import fs from 'node:fs';
import path from 'node:path';
import { failed, refused } from '../core/errors.ts';
import { decodeJson } from '../core/json.ts';
import { sha256 } from './bundle.ts';
import type { MergeFormat } from './merge.ts';

export const JOURNAL_DIR = 'gsd-install-journal';
export const LOCK_FILE = 'gsd-install.lock';
const JOURNAL_FILE = 'journal.json';
const BYTES_DIR = 'bytes';
const DIRS_FILE = 'dirs.json';

export interface StepState {
  sha256: string;
  mode: number;
}

export interface Step {
  op: 'write' | 'remove';
  /** A file GSD owns, a config file shared with the user, or one of the installer's own (its record, the backups). */
  kind: 'file' | 'config' | 'own';
  /** The bundle path (file, config), or the path under the root (own). */
  path: string;
  format?: MergeFormat;
  dest: string;
  /** What the path held before the step (null: nothing). */
  before: StepState | null;
  /** What the step leaves there (null: nothing). */
  after: StepState | null;
}

export interface Journal {
  journalVersion: 1;
  action: 'install' | 'update' | 'uninstall';
  token: string;
  startedAt: string;
  target: string;
  scope: 'global' | 'local';
  base: string;
  root: string;
  bundleRoot: string;
  relocation: { from: string; to: string; by: string; tilde: string; home: string } | null;
  steps: Step[];
  /** Folders the run creates, outermost first: removed again when a rollback leaves them empty. */
  dirs: string[];
  /** Folders the run removes when empty once its steps are done. */
  prune: string[];
}

// ---------------------------------------------------------------- crash points (tests)

/** Thrown in place of a kill in in-process tests: it skips every cleanup, as a kill would. */
export class SimulatedCrash extends Error {}

const crashEnv = process.env.GSD_TEST_INSTALL_CRASH_AFTER;
let crashAfter: number | null = crashEnv !== undefined && /^\d+$/.test(crashEnv) ? Number(crashEnv) : null;
let crashKills = crashAfter !== null;
let writes = 0;

/**
 * Test hook: stop the installer after `n` more writes (every created folder,
 * temporary file, rename, removal counts one). In-process it throws
 * SimulatedCrash; a gsd-tools started with GSD_TEST_INSTALL_CRASH_AFTER=n
 * sends itself SIGKILL instead. null turns it off; the count restarts.
 */
export function crashAfterWrites(n: number | null): void {
  crashAfter = n;
  crashKills = false;
  writes = 0;
}

/** Writes since the last crashAfterWrites (tests size their crash points with it). */
export const writesSoFar = () => writes;

function beforeWrite(): void {
  if (crashAfter !== null && writes >= crashAfter) {
    if (crashKills) {
      process.kill(process.pid, 'SIGKILL');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
    }
    throw new SimulatedCrash(`simulated crash after ${writes} writes`);
  }
  writes += 1;
}

export const isCrash = (error: unknown) => error instanceof SimulatedCrash;

let durable = true;
/**
 * Test hook: skip fsync. A killed process loses nothing the kernel already
 * has, so interruption tests in one process keep their meaning without it;
 * only a power cut needs the fsync, and the shipped installer always does it.
 */
export function fsyncForTests(on: boolean): void {
  durable = on;
}

// ---------------------------------------------------------------- counted file system writes

export function mkdir(dir: string): void {
  beforeWrite();
  fs.mkdirSync(dir, { mode: 0o755 });
}

/** mkdir -p, returning the folders it created, outermost first. */
export function makeDirs(dir: string): string[] {
  const created: string[] = [];
  for (let current = dir; !fs.existsSync(current); current = path.dirname(current)) created.unshift(current);
  for (const folder of created) {
    try {
      mkdir(folder);
    } catch (error) {
      // Another process made it between the look and the mkdir: it is not ours.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !fs.statSync(folder).isDirectory()) throw error;
      created.splice(created.indexOf(folder), 1);
    }
  }
  return created;
}

export function unlink(file: string): void {
  beforeWrite();
  fs.rmSync(file, { force: true });
}

export function rmdirIfEmpty(dir: string): boolean {
  try {
    if (fs.readdirSync(dir).length > 0) return false;
  } catch {
    return false;
  }
  beforeWrite();
  try {
    fs.rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

export function rename(from: string, to: string): void {
  beforeWrite();
  fs.renameSync(from, to);
}

/** A file reached through a symbolic link (dotfile setups) is written where the link points. */
export function realTarget(file: string): string {
  try {
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return fs.realpathSync(file);
  } catch {
    // a new file
  }
  return file;
}

export const tempName = (target: string, token: string) => path.join(path.dirname(target), `.${path.basename(target)}.gsd-tmp-${token}`);

/** Writes through a temporary file beside the target and a rename: the target holds the old bytes or the new, never a part. */
export function writeAtomic(file: string, bytes: Uint8Array, mode: number, token: string): void {
  const target = realTarget(file);
  const temp = tempName(target, token);
  beforeWrite();
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    fs.writeSync(fd, bytes);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(temp, mode);
  rename(temp, target);
}

export function modeOf(file: string): number {
  try {
    return fs.statSync(file).mode & 0o777;
  } catch {
    return 0o644;
  }
}

function stateOf(file: string): { bytes: Buffer; sha256: string; mode: number } | null {
  try {
    const bytes = fs.readFileSync(realTarget(file));
    return { bytes, sha256: sha256(bytes), mode: modeOf(file) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

// ---------------------------------------------------------------- the journal on disk

const journalDir = (root: string) => path.join(root, JOURNAL_DIR);
const journalFile = (root: string) => path.join(root, JOURNAL_DIR, JOURNAL_FILE);
const storeFile = (root: string, hash: string) => path.join(root, JOURNAL_DIR, BYTES_DIR, hash);

export function readJournal(root: string): Journal | null {
  let text: string;
  try {
    text = fs.readFileSync(journalFile(root), 'utf8');
  } catch {
    return null;
  }
  const { value, problem } = decodeJson<Journal>(text, (value) => (isJournal(value as Journal) ? null : 'an install journal'));
  if (problem?.kind === 'syntax') throw refused(`${journalFile(root)}: not valid JSON (${problem.detail}); the journal of an interrupted install is damaged, nothing was changed`);
  if (problem) throw refused(`${journalFile(root)}: not an install journal this gsd-tools can read; nothing was changed`);
  return value;
}

function isJournal(value: Journal | null): boolean {
  const strings = ['action', 'token', 'target', 'scope', 'base', 'root', 'bundleRoot'] as const;
  const stepOk = (step: Step) =>
    (step?.op === 'write' || step?.op === 'remove') &&
    (step.kind === 'file' || step.kind === 'config' || step.kind === 'own') &&
    typeof step.path === 'string' &&
    typeof step.dest === 'string' &&
    [step.before, step.after].every((state) => state === null || (typeof state?.sha256 === 'string' && /^[0-9a-f]{64}$/.test(state.sha256) && Number.isInteger(state.mode)));
  return (
    value?.journalVersion === 1 &&
    strings.every((key) => typeof value[key] === 'string') &&
    /^[A-Za-z0-9-]+$/.test(value.token) &&
    Array.isArray(value.steps) &&
    value.steps.every(stepOk) &&
    Array.isArray(value.dirs) &&
    Array.isArray(value.prune)
  );
}

export function hasJournalDir(root: string): boolean {
  return fs.existsSync(journalDir(root));
}

/** The folders GSD created to hold the root, kept until a record or journal lists them. */
export function readRootDirs(root: string): string[] {
  try {
    const value = decodeJson<{ dirs?: unknown }>(fs.readFileSync(path.join(journalDir(root), DIRS_FILE), 'utf8')).value;
    const resolved = path.resolve(root);
    // Only the root and folders above it, never the file system's root.
    return Array.isArray(value?.dirs) ? value.dirs.filter((dir): dir is string => typeof dir === 'string' && path.isAbsolute(dir) && path.dirname(dir) !== dir && (resolved === dir || resolved.startsWith(dir + path.sep))) : [];
  } catch {
    return [];
  }
}

export function writeRootDirs(root: string, dirs: readonly string[], token: string): void {
  makeDirs(journalDir(root));
  writeAtomic(path.join(journalDir(root), DIRS_FILE), Buffer.from(`${JSON.stringify({ dirs: [...new Set(dirs)].sort() }, null, 2)}\n`), 0o600, token);
}

export function writeJournal(root: string, journal: Journal): void {
  makeDirs(journalDir(root));
  writeAtomic(journalFile(root), Buffer.from(`${JSON.stringify(journal, null, 2)}\n`), 0o600, journal.token);
}

/** Keeps the bytes a step is about to replace; a removal moves the file in (no copy). */
function keep(root: string, step: Step, token: string, kept: Set<string>): void {
  if (!step.before) return;
  const stored = storeFile(root, step.before.sha256);
  if (kept.has(stored)) return;
  if (fs.existsSync(stored)) {
    if (sha256(fs.readFileSync(stored)) === step.before.sha256) return;
    unlink(stored);
  }
  if (kept.size === 0) makeDirs(path.dirname(stored));
  kept.add(stored);
  const target = realTarget(step.dest);
  if (step.op === 'remove' && target === step.dest) {
    try {
      rename(target, stored);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    }
  }
  writeAtomic(stored, fs.readFileSync(target), 0o600, token);
}

/** Runs the journal's steps, each after keeping what it replaces. `bytes` holds what the writes write. */
export function runSteps(root: string, journal: Journal, bytes: ReadonlyMap<string, Buffer>): void {
  const made = new Set<string>();
  const kept = new Set<string>();
  for (const step of journal.steps) {
    keep(root, step, journal.token, kept);
    if (step.op === 'write') {
      const dir = path.dirname(step.dest);
      if (!made.has(dir)) {
        makeDirs(dir);
        made.add(dir);
      }
      writeAtomic(step.dest, bytes.get(step.dest)!, step.after!.mode, journal.token);
    } else if (fs.existsSync(step.dest) || isLink(step.dest)) unlink(step.dest);
  }
}

const isFileOrLink = (file: string) => {
  try {
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    return stat !== undefined && !stat.isDirectory();
  } catch {
    return false;
  }
};

const isLink = (file: string) => {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch {
    return false;
  }
};

/** The journal is done with: the commit point (the journal file goes first), then its store. */
export function commitJournal(root: string): void {
  if (fs.existsSync(journalFile(root))) unlink(journalFile(root));
  const store = path.join(journalDir(root), BYTES_DIR);
  if (fs.existsSync(store)) {
    for (const name of fs.readdirSync(store)) unlink(path.join(store, name));
    rmdirIfEmpty(store);
  }
}

/** Removes the journal folder once nothing in it is needed (the root folders' list goes when a record holds them). */
export function clearJournalDir(root: string, keepRootDirs: boolean): void {
  const dir = journalDir(root);
  if (!fs.existsSync(dir)) return;
  commitJournal(root);
  for (const name of fs.readdirSync(dir)) {
    if (name === DIRS_FILE && keepRootDirs) continue;
    const full = path.join(dir, name);
    if (fs.lstatSync(full).isDirectory()) fs.rmSync(full, { recursive: true, force: true });
    else unlink(full);
  }
  rmdirIfEmpty(dir);
}

/**
 * Puts back what an unfinished run changed, from its journal: every step in
 * reverse, then the folders it created (when empty). A path that holds
 * neither the step's before nor its after was changed by someone since, and
 * is left as it is (named in the notes).
 */
export function rollBack(root: string, journal: Journal): string[] {
  const notes: string[] = [];
  let restored = 0;
  const rollToken = `${journal.token}-r`;
  for (const step of [...journal.steps].reverse()) {
    const target = realTarget(step.dest);
    for (const temp of [tempName(target, journal.token), tempName(target, rollToken)]) if (isFileOrLink(temp)) unlink(temp);
    const current = stateOf(step.dest);
    const want = step.before;
    if (want === null) {
      if (current === null) continue;
      if (step.after && current.sha256 === step.after.sha256) {
        unlink(step.dest);
        restored += 1;
      } else notes.push(`${step.dest} changed after the interrupted ${journal.action}; left as it is`);
      continue;
    }
    if (current && current.sha256 === want.sha256) {
      if (current.mode !== want.mode) {
        beforeWrite();
        fs.chmodSync(target, want.mode);
      }
      continue;
    }
    if (current !== null && !(step.after && current.sha256 === step.after.sha256)) {
      notes.push(`${step.dest} changed after the interrupted ${journal.action}; left as it is`);
      continue;
    }
    const stored = storeFile(root, want.sha256);
    const bytes = fs.existsSync(stored) ? fs.readFileSync(stored) : null;
    if (bytes === null || sha256(bytes) !== want.sha256) {
      throw failed(`cannot roll back the interrupted ${journal.action}: the saved copy of ${step.dest} (${stored}) is missing or damaged; nothing more was changed`);
    }
    makeDirs(path.dirname(step.dest));
    writeAtomic(step.dest, bytes, want.mode, rollToken);
    restored += 1;
  }
  const rootChain = (dir: string) => root === dir || root.startsWith(dir + path.sep);
  for (const dir of [...journal.dirs].filter((dir) => !rootChain(dir)).sort((a, b) => b.length - a.length)) rmdirIfEmpty(dir);
  commitJournal(root);
  notes.unshift(`an interrupted ${journal.action} (started ${journal.startedAt}) was rolled back first: ${restored} path(s) put back as they were`);
  return notes;
}
