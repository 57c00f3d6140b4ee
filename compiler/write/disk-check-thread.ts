// The disk check's code (output-state.ts DiskChecker): whether a bundle's
// folder is exactly what its record says. It runs in a worker thread, and a
// one-shot check's main thread takes bundles from the same list while it has
// nothing else to do. The thread can be started before the compiler's modules
// load (prestartDiskCheckThread), so that it is ready when the check starts.
//
// This module is small and imports no stage: the command line loads it first.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The check as CommonJS source text, for the thread and the main thread
 * alike: a text the bundler leaves alone, so it runs the same under the
 * TypeScript loader and in the prebuilt compiler. A bundle matches when its
 * folder holds exactly the record's files and the folders they need, nothing
 * else, each file a regular file with the recorded size, mode and mtime. A
 * thread kept for many checks (watch) keeps each bundle's listing between
 * them: a check names a bundle whose listing it holds, or brings a new one; a
 * patch (the files an update wrote or removed) brings the one it holds up to
 * date.
 */
const CHECK_CODE = String.raw`
function read(listing) {
  // A record as JSON (path → [sha256, size, mode, mtime]: a record as the state stores it); anything else trusts nothing.
  let record;
  try {
    record = JSON.parse(listing);
  } catch {
    return null;
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return null;
  const files = new Map();
  for (const file in record) {
    const entry = record[file];
    if (!Array.isArray(entry) || entry.length !== 4) return null;
    files.set(file, [entry[1], entry[2], entry[3]]);
  }
  return { files, folders: null, children: null, stamps: null, inodes: null };
}
function patch(known, key, changes) {
  const listing = known.get(key);
  if (!listing || !Array.isArray(changes)) return known.delete(key);
  for (const change of changes) {
    if (!Array.isArray(change) || typeof change[0] !== 'string') return known.delete(key);
    if (listing.inodes) listing.inodes.delete(change[0]);
    if (change[1] === null) listing.files.delete(change[0]);
    else if (Array.isArray(change[1]) && change[1].length === 3) listing.files.set(change[0], change[1]);
    else return known.delete(key);
  }
  // The record's folders may have changed; the folders an update wrote in have new stamps.
  listing.folders = null;
  listing.children = null;
}
function foldersOf(listing) {
  if (listing.folders) return listing.folders;
  const folders = new Set();
  for (const file of listing.files.keys()) for (let dir = path.posix.dirname(file); dir !== '.' && !folders.has(dir); dir = path.posix.dirname(dir)) folders.add(dir);
  return (listing.folders = folders);
}
// folder ('' for the bundle's own) → the record's files and folders directly in it.
function childrenOf(listing) {
  if (listing.children) return listing.children;
  const children = new Map();
  const of = (dir) => {
    const key = dir === '.' ? '' : dir;
    let entry = children.get(key);
    if (!entry) children.set(key, (entry = { files: [], folders: [] }));
    return entry;
  };
  for (const file of listing.files.keys()) of(path.posix.dirname(file)).files.push(file);
  for (const folder of foldersOf(listing)) of(path.posix.dirname(folder)).folders.push(folder);
  return (listing.children = children);
}
// settledBefore (ms since the epoch) or null: a folder's stamp (device, inode, mtime, ctime) is kept when it last
// changed before then, and a later check whose folder has that stamp still takes its entries to be the ones found
// (adding, removing or renaming an entry changes the folder's mtime and ctime), so reads no listing of it; and each
// file's inode, so that a file in such a folder whose inode this check has read already (a hard link: two thirds of
// the upstream output's files) is not read again. seen: device → inode → the stats read in this check.
function matches(root, listing, settledBefore, seen) {
  const record = listing.files;
  const folders = foldersOf(listing);
  const stamps = new Map();
  const inodes = settledBefore !== null ? new Map() : null;
  let fileCount = 0;
  let folderCount = 0;
  // dev: the device of the file's folder when its entries are the ones last found, else undefined.
  const fileMatches = (child, dev) => {
    const expected = record.get(child);
    if (!expected) return false;
    fileCount += 1;
    const ino = dev !== undefined && listing.inodes ? listing.inodes.get(child) : undefined;
    const known = ino !== undefined ? seen.get(dev) : undefined;
    let stats = known !== undefined ? known.get(ino) : undefined;
    if (stats === undefined) {
      // Joined by hand: the record's paths are relative, '/'-separated and normal (path.join's normalising was a third of the check).
      stats = fs.lstatSync(root + '/' + child, { throwIfNoEntry: false });
      if (!stats) return false;
      if (inodes !== null && Number.isSafeInteger(stats.ino)) {
        let byInode = seen.get(stats.dev);
        if (byInode === undefined) seen.set(stats.dev, (byInode = new Map()));
        byInode.set(stats.ino, stats);
      }
    }
    if (inodes !== null) inodes.set(child, stats.ino);
    return stats.isFile() && stats.size === expected[0] && (stats.mode & 0o777) === expected[1] && stats.mtimeMs === expected[2];
  };
  const walk = (relative) => {
    const full = relative ? root + '/' + relative : root;
    if (settledBefore !== null) {
      const stats = fs.lstatSync(full, { bigint: true, throwIfNoEntry: false });
      if (!stats || !stats.isDirectory()) return false;
      const stamp = stats.dev + ':' + stats.ino + ':' + stats.mtimeNs + ':' + stats.ctimeNs;
      const changed = stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs;
      if (Number(changed / 1000000n) < settledBefore) stamps.set(relative, stamp);
      if (listing.stamps && listing.stamps.get(relative) === stamp) {
        const own = childrenOf(listing).get(relative) || { files: [], folders: [] };
        const dev = Number(stats.dev);
        for (const file of own.files) if (!fileMatches(file, dev)) return false;
        for (const folder of own.folders) {
          folderCount += 1;
          if (!walk(folder)) return false;
        }
        return true;
      }
    }
    let entries;
    try {
      entries = fs.readdirSync(full, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const entry of entries) {
      const child = relative ? relative + '/' + entry.name : entry.name;
      if (entry.isDirectory()) {
        folderCount += 1;
        if (!folders.has(child) || !walk(child)) return false;
      } else if (entry.isFile()) {
        if (!fileMatches(child, undefined)) return false;
      } else return false;
    }
    return true;
  };
  const ok = walk('') && fileCount === record.size && folderCount === folders.size;
  // Stamps vouch for entries found as recorded, so only a match keeps them.
  listing.stamps = ok && settledBefore !== null ? stamps : null;
  listing.inodes = ok ? inodes : null;
  return ok;
}
// Whether a bundle of a check is on disk as the listing it brings says (read, then its patch applied), or the one held (known).
function checkOne(known, outRoot, job, settledBefore, seen) {
  if (typeof job.listing === 'string') {
    const listing = read(job.listing);
    if (listing) known.set(job.key, listing);
    else known.delete(job.key);
    if (listing && job.patch !== undefined) patch(known, job.key, job.patch);
  }
  const listing = known.get(job.key);
  try {
    return !!listing && matches(path.join(outRoot, job.key), listing, typeof settledBefore === 'number' ? settledBefore : null, seen);
  } catch {
    return false;
  }
}
`;

/** The thread: CHECK_CODE and its messages (a check, answered bundle by bundle, or patches). */
const DISK_CHECK = String.raw`
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
${CHECK_CODE}
// bundle key → { files: Map(path → [size, mode, mtime]), folders: Set | null (made when first needed) }; absent: trust nothing.
const known = new Map();
parentPort.on('message', (message) => {
  if (message.patches) {
    for (const [key, changes] of message.patches) patch(known, key, changes);
    return;
  }
  const claims = message.claims instanceof SharedArrayBuffer ? new Int32Array(message.claims) : null;
  // The files read in this check, for the hard links to them in the bundles checked after (matches).
  const seen = new Map();
  for (let next = 0; ; next += 1) {
    // The next place in the list: from the count this thread shares with the main thread, or simply the next.
    const at = claims ? Atomics.add(claims, 0, 1) : next;
    if (at >= message.bundles.length) break;
    const job = message.bundles[at];
    // Each bundle as soon as it is checked: a build may start writing it while the next is checked.
    parentPort.postMessage({ id: message.id, key: job.key, ok: checkOne(known, message.outRoot, job, message.settledBefore, seen) });
  }
  parentPort.postMessage({ id: message.id, done: true });
});
`;

/** A bundle's files as the disk check reads them: its record as JSON (as the state stores it), and changes since. */
export interface DiskListing {
  listing: string;
  /** Each file written since ([size, mode, mtime]) or removed (null). */
  patch?: [string, [number, number, number] | null][];
}

/** A bundle a check asks about: its key, and its listing (absent: the thread holds it). */
export interface DiskCheckJob extends Partial<DiskListing> {
  key: string;
}

interface MainThreadCheck {
  checkOne(known: Map<string, unknown>, outRoot: string, job: DiskCheckJob, settledBefore: null, seen: null): boolean;
}
let mainThreadCheck: MainThreadCheck | undefined;

/**
 * Takes bundles of a check from `claims`, which the thread that was sent the
 * same jobs shares, and checks them here until none is left; `answer` gets
 * each. Only jobs that bring their listing: the thread holds no listing for
 * the main thread.
 */
export function checkClaimed(outRoot: string, jobs: readonly DiskCheckJob[], claims: Int32Array, answer: (key: string, ok: boolean) => void): void {
  // The same source text as the thread's, made into functions once (our own constant, never input).
  mainThreadCheck ??= new Function('fs', 'path', `${CHECK_CODE}\nreturn { checkOne };`)(fs, path) as MainThreadCheck;
  const known = new Map<string, unknown>();
  for (;;) {
    const at = Atomics.add(claims, 0, 1);
    if (at >= jobs.length) return;
    const job = jobs[at]!;
    answer(job.key, mainThreadCheck.checkOne(known, outRoot, job, null, null));
    known.clear();
  }
}

/** A thread started ahead (prestartDiskCheckThread), idle until a check takes it. */
let spare: Worker | null = null;

function startThread(): Worker {
  return new Worker(DISK_CHECK, { eval: true });
}

/**
 * Starts a disk check thread now, before the compiler's modules load: a thread
 * takes about as long to start as the main thread takes to read the build's
 * last state, so the check starts as soon as that state is read. It holds
 * nothing alive, and the first check takes it (diskCheckThread).
 */
export function prestartDiskCheckThread(): Worker {
  if (spare) return spare;
  const started = startThread();
  started.unref();
  // One that fails before a check takes it is not handed out.
  const lost = () => {
    if (spare === started) spare = null;
  };
  started.on('error', lost);
  started.on('exit', lost);
  return (spare = started);
}

/** A disk check thread: the one started ahead, or a new one. */
export function diskCheckThread(): Worker {
  const taken = spare ?? startThread();
  spare = null;
  return taken;
}

/** Stops the thread started ahead, when no check will take it (a build with no last state). */
export function dropSpareDiskCheckThread(): void {
  const dropped = spare;
  spare = null;
  void dropped?.terminate();
}
