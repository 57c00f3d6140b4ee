// One install, update or uninstall at a time per root. The lock is
// <root>/gsd-install.lock, taken with core/lock.ts (O_EXCL; the body names the
// holder's pid, start time and a nonce; a lock whose holder is gone, or whose
// pid now belongs to another process, is taken over; the wait is bounded).
//
// The root may not exist yet, and the lock must live in it. A root GSD has to
// create is made in one rename: the missing folders are built under a
// temporary name beside the outermost one, with a note inside listing them
// (gsd-install-journal/dirs.json), then renamed into place, so a kill at any
// point leaves either nothing of the root or a root that says GSD made it.
// Taking the root away again at the end of an uninstall is the same rename in
// reverse. Leftover temporary folders (`.<name>.gsd-new-<pid>-…`,
// `.<name>.gsd-old-<pid>-…`) of a process that is gone are removed by the
// next run; they hold nothing but the installer's own files.
import fs from 'node:fs';
import path from 'node:path';
import { CliError } from '../core/errors.ts';
import { withLock } from '../core/lock.ts';
import { JOURNAL_DIR, LOCK_FILE, makeDirs, mkdir, readJournal, readRootDirs, rename, rmdirIfEmpty, unlink, writeRootDirs, clearJournalDir } from './journal.ts';

const INSTALLED_FILE = 'gsd-install-manifest.json';

const insideOrSame = (parent: string, child: string) => child === parent || child.startsWith(parent + path.sep);

/** The root and the folders above it, up to (not including) `base` when the root is inside it, else up to the file system's root. */
function chainOf(root: string, base: string): string[] {
  const chain: string[] = [];
  const stop = insideOrSame(base, root) && root !== base ? base : path.parse(root).root;
  for (let dir = root; dir !== stop && path.dirname(dir) !== dir; dir = path.dirname(dir)) chain.unshift(dir);
  return chain;
}

const nonce = () => `${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

function pidGone(pid: number): boolean {
  if (pid === process.pid) return true; // ours, from a run of this process that did not finish (nothing runs in parallel here)
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/** Only the installer's own files: folders, the lock, the journal folder. */
function onlyOurs(dir: string): boolean {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === JOURNAL_DIR || entry.name === LOCK_FILE) continue;
    if (!entry.isDirectory() || !onlyOurs(path.join(dir, entry.name))) return false;
  }
  return true;
}

/** Removes the temporary folders a killed run left beside the root or a folder above it. */
export function cleanStrays(root: string, base: string): void {
  for (const dir of chainOf(root, base)) {
    const parent = path.dirname(dir);
    let names: string[];
    try {
      names = fs.readdirSync(parent);
    } catch {
      continue;
    }
    const prefix = `.${path.basename(dir)}.gsd-`;
    for (const name of names) {
      const match = name.startsWith(prefix) ? /^(?:new|old)-(\d+)-[a-z0-9]+$/.exec(name.slice(prefix.length)) : null;
      if (!match || !pidGone(Number(match[1]))) continue;
      const stray = path.join(parent, name);
      if (fs.lstatSync(stray).isDirectory() && onlyOurs(stray)) fs.rmSync(stray, { recursive: true, force: true });
    }
  }
}

/** Creates the root (and the folders above it that are missing) in one rename, noting inside that GSD made them. */
export function ensureRoot(root: string, base: string): void {
  if (fs.existsSync(root)) return;
  const chain = chainOf(root, base);
  const missing = chain.filter((dir) => !fs.existsSync(dir));
  const outer = missing[0] ?? root;
  const temp = path.join(path.dirname(outer), `.${path.basename(outer)}.gsd-new-${nonce()}`);
  makeDirs(path.dirname(outer));
  mkdir(temp);
  const tempRoot = path.join(temp, path.relative(outer, root));
  makeDirs(tempRoot);
  writeRootDirs(tempRoot, missing, nonce());
  try {
    rename(temp, outer);
  } catch (error) {
    // Another run made the folder first: ours goes, theirs is used.
    fs.rmSync(temp, { recursive: true, force: true });
    if (!fs.existsSync(root)) throw error;
  }
}

/** Inode of each folder of the chain (absent: -1): a folder taken away and made again while we waited shows up as changed. */
function inodes(chain: readonly string[]): number[] {
  return chain.map((dir) => {
    try {
      return fs.statSync(dir).ino;
    } catch {
      return -1;
    }
  });
}

export interface LockedRoot {
  /** Folders GSD created to hold the root, as far as known now. */
  rootDirs: string[];
}

/**
 * Runs `fn` holding the root's lock. The root is created first when `create`;
 * otherwise it must exist. When another run took the root away while we
 * waited (its uninstall), the lock helper made it again: those folders are
 * noted as GSD's.
 */
export function withRootLock<T>(root: string, base: string, create: boolean, fn: (locked: LockedRoot) => T): T {
  cleanStrays(root, base);
  if (create) ensureRoot(root, base);
  const chain = chainOf(root, base);
  const seen = inodes(chain);
  const timeoutMs = Number(process.env.GSD_INSTALL_LOCK_TIMEOUT_MS) || 60_000;
  try {
    return withLock(
      path.join(root, LOCK_FILE),
      () => {
        const now = inodes(chain);
        const remade = chain.filter((_, index) => seen[index] !== now[index] && now[index] !== -1);
        if (remade.length > 0) writeRootDirs(root, [...readRootDirs(root), ...remade], nonce());
        return fn({ rootDirs: readRootDirs(root).filter((dir) => chain.includes(dir)) });
      },
      { timeoutMs, deadmanMs: Math.max(timeoutMs * 2, 120_000) },
    );
  } catch (error) {
    if (error instanceof CliError && error.reason === 'locked') {
      throw new CliError(
        'locked',
        `another gsd-tools install or uninstall is working on ${root} (${error.message}); waited ${Math.round(timeoutMs / 1000)} s. Run again when it has finished; if no gsd-tools is running, the lock ${path.join(root, LOCK_FILE)} is left from a process whose pid is in use again: remove it, then run again`,
      );
    }
    throw error;
  }
}

/**
 * The end of a run, still holding the lock. With a record, the journal folder
 * goes. With none (an uninstall, or a rolled-back first install that was not
 * redone), a root GSD created goes too, when it holds nothing but the
 * installer's files: renamed aside in one step (the lock with it), then
 * emptied.
 */
export function settleRoot(root: string, base: string, noted: readonly string[]): void {
  if (readJournal(root)) return; // an unfinished run: the next one rolls it back
  // Only folders between the base and the root, whatever the note says.
  const chain = chainOf(root, base);
  const rootDirs = noted.filter((dir) => chain.includes(dir));
  const recorded = fs.existsSync(path.join(root, INSTALLED_FILE));
  if (recorded || !rootDirs.includes(root)) {
    clearJournalDir(root, false);
    return;
  }
  if (!onlyOurs(root)) {
    clearJournalDir(root, false);
    return;
  }
  // The outermost folder of the unbroken run of GSD-made folders ending at the root.
  let outer = root;
  while (rootDirs.includes(path.dirname(outer)) && fs.readdirSync(path.dirname(outer)).length === 1) outer = path.dirname(outer);
  const aside = path.join(path.dirname(outer), `.${path.basename(outer)}.gsd-old-${nonce()}`);
  rename(outer, aside);
  removeOurs(aside);
}

function removeOurs(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) removeOurs(full);
    else unlink(full);
  }
  rmdirIfEmpty(dir);
}
