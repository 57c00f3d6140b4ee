// What the last build left in an output folder, so the next one rewrites
// only what changed. The record of a bundle lists every file it wrote with
// its SHA-256, size, mode and mtime; a bundle on disk is trusted only while
// it still matches its record exactly (same files and folders, same sizes,
// modes and mtimes): a hand edit, a deleted or an added file, and the whole
// bundle is written afresh.
import type { Worker } from 'node:worker_threads';
import { readdir as readFolder, rm, rmdir } from 'node:fs/promises';
import { close, closeSync, constants, fchmodSync, fstatSync, openSync, renameSync, rmSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { digestOf, fileMode, type VirtualTree } from '../emit/virtual-tree.ts';
import { forgetRecordMap, makeDirectorySync, recordMap, treeWriter, type BundleRecord, type TreeWriter } from './write-tree.ts';
import { SETTLED_MS } from '../util/settled.ts';
import { checkClaimed, diskCheckThread, type DiskCheckJob, type DiskListing } from './disk-check-thread.ts';

export type { BundleRecord };

export interface OutputState {
  /** Hash of every input of the build that wrote it (compiler, sources, targets, options). */
  inputKey: string;
  /** What that build printed, replayed when nothing changed. */
  messages: { out: string[]; err: string[] };
  bundles: Record<string, BundleRecord>;
}

const UMASK = process.umask();
/**
 * The records a disk check reads: the bundles' keys, each bundle's record
 * (wanted only by a checker kept for many checks), and its listing for the
 * thread, as JSON text: a string is copied to the thread whole, where the
 * record as objects took longer to clone than the check to run. The last
 * build's state gives its records as stored, parsing none (incremental.ts).
 */
export interface CheckedRecords {
  keys(): Iterable<string>;
  get(key: string): BundleRecord | undefined;
  listing(key: string): DiskListing;
}

/** Records at hand as CheckedRecords. */
export function recordsOf(records: Readonly<Record<string, BundleRecord>>): CheckedRecords {
  return { keys: () => Object.keys(records), get: (key) => records[key], listing: (key) => ({ listing: JSON.stringify(records[key]) }) };
}

/** A disk check under way (DiskChecker.checkEach). */
export interface DiskCheck {
  /** The keys of the bundles found on disk as recorded, once every answer is in. */
  all: Promise<Set<string>>;
  /** Each bundle's answer, as soon as it is known: whether it is on disk as recorded. */
  each: Map<string, Promise<boolean>>;
  /**
   * Checks here, on the calling thread, the bundles no thread has taken yet,
   * and returns when none is left: for a caller that would otherwise only
   * wait for the answers.
   */
  assist(): void;
}

/**
 * The disk check's threads (disk-check-thread.ts) and what they hold: for each bundle,
 * the record whose listing its thread has. A build in a resident process
 * (watch) keeps one for every rebuild, so a check sends only the listings its
 * threads do not hold (after an update in place, the thread has the update's
 * patch instead); any other build makes one for its check alone. Each bundle
 * is checked by one thread, always the same one.
 */
export class DiskChecker {
  /**
   * A checker kept for many checks (`keepFolderStamps`: a resident build) keeps
   * each folder's stamp once it has settled (settledMs) and lists a folder again
   * only when its stamp changed; one for a single check lists every folder.
   * `threads` (default 1) share the bundles: more than one pays where nothing
   * else runs beside the check (watch checks while it waits for quiet).
   */
  constructor(private readonly options: { keepFolderStamps?: boolean; settledMs?: number; threads?: number } = {}) {
    this.workers = new Array<Worker | null>(Math.max(1, options.threads ?? 1)).fill(null);
  }

  private readonly workers: (Worker | null)[];
  /** Bundle key → the thread that checks it. */
  private readonly owners = new Map<string, number>();
  private readonly held = new Map<string, BundleRecord>();
  private next = 0;
  /** Check id → its answers to give, and how many threads have yet to finish it. */
  private readonly waiting = new Map<number, { done: () => void; each: Map<string, (ok: boolean) => void>; threads: number }>();
  /** Each thread's checks under way. */
  private readonly outstanding = new Map<Worker, number>();

  /**
   * The keys of the bundles whose folder `<outRoot>/<key>` is exactly what its
   * record says. A thread that fails trusts nothing: every bundle is then written whole.
   */
  check(outRoot: string, records: Readonly<Record<string, BundleRecord>>): Promise<Set<string>> {
    return this.checkEach(outRoot, recordsOf(records)).all;
  }

  /** check, with each bundle's answer as soon as it is known (`each`: key → whether it is on disk as recorded). */
  checkEach(outRoot: string, records: CheckedRecords): DiskCheck {
    const shares = new Map<number, DiskCheckJob[]>();
    for (const key of records.keys()) {
      // Only a checker kept for many checks holds records (one for a single check asks for none: they may be unparsed text).
      const record = this.options.keepFolderStamps ? records.get(key) : undefined;
      const job: DiskCheckJob = record !== undefined && this.held.get(key) === record ? { key } : { key, ...records.listing(key) };
      if (record !== undefined) this.held.set(key, record);
      else this.held.delete(key);
      const owner = this.ownerOf(key);
      const share = shares.get(owner);
      if (share) share.push(job);
      else shares.set(owner, [job]);
    }
    const each = new Map<string, Promise<boolean>>();
    const trusted = new Set<string>();
    // Each bundle's answer, given once: the thread's, or false when it never came (a thread lost).
    const pending = new Map<string, (ok: boolean) => void>();
    for (const share of shares.values()) {
      for (const { key } of share) {
        each.set(key, new Promise((resolve) => pending.set(key, (ok) => {
          pending.delete(key);
          if (ok) trusted.add(key);
          resolve(ok);
        })));
      }
    }
    if (shares.size === 0) return { all: Promise.resolve(trusted), each, assist: () => {} };
    const id = (this.next += 1);
    const root = path.resolve(outRoot);
    // Each thread takes its bundles one at a time from a count it shares with the main thread (assist).
    const claims = new Map([...shares.keys()].map((owner) => [owner, new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))]));
    const all = new Promise<Set<string>>((resolve) => {
      const done = () => {
        for (const answer of [...pending.values()]) answer(false);
        resolve(trusted);
      };
      this.waiting.set(id, { done, each: pending, threads: shares.size });
      const settledBefore = this.options.keepFolderStamps ? Date.now() - (this.options.settledMs ?? SETTLED_MS) : null;
      for (const [owner, bundles] of shares) {
        const thread = this.thread(owner);
        // Kept alive while a check of it is under way, and only then.
        this.outstanding.set(thread, (this.outstanding.get(thread) ?? 0) + 1);
        thread.ref();
        thread.postMessage({ id, outRoot: root, bundles, settledBefore, claims: claims.get(owner)!.buffer });
      }
    });
    const assist = () => {
      for (const [owner, bundles] of shares) {
        // A listing the thread holds is not the main thread's to read.
        if (!bundles.every((job) => job.listing !== undefined)) continue;
        checkClaimed(root, bundles, claims.get(owner)!, (key, ok) => {
          // The thread never read this listing: the next check sends it.
          this.held.delete(key);
          pending.get(key)?.(ok);
        });
      }
    };
    return { all, each, assist };
  }

  /** After an update in place: `record` replaced `base` by `changes` (null: a file removed); without the base held, the next check sends it whole. */
  updated(key: string, base: BundleRecord, record: BundleRecord, changes: Record<string, BundleRecord[string] | null>): void {
    const worker = this.workers[this.ownerOf(key)];
    if (this.held.get(key) !== base || !worker) {
      this.held.delete(key);
      return;
    }
    this.held.set(key, record);
    const patch = Object.entries(changes).map(([file, entry]) => [file, entry === null ? null : [entry[1], entry[2], entry[3]]]);
    worker.postMessage({ patches: [[key, patch]] });
  }

  /** Forgets a bundle (written whole, or not written at all): its next check sends its listing. */
  forget(key: string): void {
    this.held.delete(key);
  }

  stop(): Promise<unknown> | undefined {
    const running = this.workers.filter((worker): worker is Worker => worker !== null);
    this.workers.fill(null);
    this.outstanding.clear();
    this.held.clear();
    this.failAll();
    return running.length > 0 ? Promise.all(running.map((worker) => worker.terminate())) : undefined;
  }

  /** A target's bundles go to one thread: its scopes share most files (hard links), which a thread reads once (disk-check-thread.ts). */
  private ownerOf(key: string): number {
    const target = key.slice(0, key.indexOf('/') >>> 0);
    let owner = this.owners.get(target);
    if (owner === undefined) this.owners.set(target, (owner = this.owners.size % this.workers.length));
    return owner;
  }

  private failAll(): void {
    for (const { done } of this.waiting.values()) done();
    this.waiting.clear();
  }

  private thread(index: number): Worker {
    const running = this.workers[index];
    if (running) return running;
    const worker = diskCheckThread();
    worker.on('message', (reply: { id: number; key?: unknown; ok?: unknown }) => {
      const waiting = this.waiting.get(reply.id);
      // Only a key this check asked about counts (`each` holds exactly those).
      if (typeof reply.key === 'string') {
        waiting?.each.get(reply.key)?.(reply.ok === true);
        return;
      }
      const left = (this.outstanding.get(worker) ?? 1) - 1;
      this.outstanding.set(worker, left);
      if (left === 0) worker.unref();
      if (!waiting || (waiting.threads -= 1) > 0) return;
      this.waiting.delete(reply.id);
      waiting.done();
    });
    const lost = () => {
      // A thread that fails trusts nothing, now and for the listings any thread held.
      if (this.workers[index] === worker) this.workers[index] = null;
      this.outstanding.delete(worker);
      this.held.clear();
      this.failAll();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    return (this.workers[index] = worker);
  }
}

/**
 * The keys of the bundles whose folder `<outRoot>/<key>` is exactly what its
 * record says (disk-check-thread.ts). The tens of thousands of lstat calls run in a
 * worker thread, beside whatever the caller does next (a build reads its
 * sources and compiles): `checker`'s (a resident build's), or one made for
 * this check alone.
 */
export async function bundlesOnDisk(outRoot: string, records: Readonly<Record<string, BundleRecord>>, checker?: DiskChecker): Promise<Set<string>> {
  return checkBundlesOnDisk(outRoot, recordsOf(records), checker).all;
}

/** bundlesOnDisk, with each bundle's answer as soon as it is known (DiskChecker.checkEach). */
export function checkBundlesOnDisk(outRoot: string, records: CheckedRecords, checker?: DiskChecker): DiskCheck {
  if (checker) return checker.checkEach(outRoot, records);
  const once = new DiskChecker();
  const check = once.checkEach(outRoot, records);
  void check.all.finally(() => void once.stop());
  return check;
}

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * A new file at `file`, open for writing. Never one that was there: a link put
 * at the temporary's name (hard or symbolic) would have this write land in
 * whatever it points at. What is there (left by a stopped process of the same
 * pid, or put there) is removed, the link itself, not its target, and the
 * file made anew.
 */
function createTemporary(file: string, mode: number): number {
  try {
    return openSync(file, CREATE_NEW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    rmSync(file, { force: true });
    return openSync(file, CREATE_NEW, mode);
  }
}

/**
 * An open descriptor of the file a rename is about to replace, or null: the
 * rename then only moves names, and the file's blocks are freed as the
 * descriptor closes, on one of libuv's threads (releaseReplaced), not in the
 * rename on this one (a third to a half of an update's time, measured on
 * ext4). Not on Windows, where a file held open may refuse the rename.
 */
function holdReplaced(file: string): number | null {
  if (process.platform === 'win32') return null;
  try {
    // Non-blocking: something put there meanwhile that is not a file (a FIFO) must not stop the build.
    return openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
}

function releaseReplaced(fd: number | null): void {
  // Nothing waits for it: a close that fails has nothing left to undo.
  if (fd !== null) close(fd, () => {});
}

/**
 * Writes `contents` to a temporary beside `target` and renames it over
 * `target` (so a link to the old file keeps the old bytes, and a reader sees
 * the old file or the new one, never part of one), with `mode` whatever the
 * umask. Its folders are made. Returns the new file's stats.
 */
export function replaceFile(target: string, contents: string | Uint8Array, mode: number): Stats {
  makeDirectorySync(path.dirname(target));
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}`);
  let stats: Stats;
  try {
    const fd = createTemporary(temporary, mode);
    try {
      writeFileSync(fd, contents);
      if ((mode & UMASK) !== 0) fchmodSync(fd, mode);
      // The temporary's stats are the file's: a rename changes neither its size, its mode nor its mtime.
      stats = fstatSync(fd);
    } finally {
      closeSync(fd);
    }
    const replaced = holdReplaced(target);
    try {
      renameSync(temporary, target);
    } finally {
      releaseReplaced(replaced);
    }
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return stats;
}

export interface WrittenBundles {
  /** Each bundle's record, whole. */
  records: Record<string, BundleRecord>;
  /** For a bundle updated in place, its record's changes: the entry of each file written, null for each file removed. */
  changes: Record<string, Record<string, BundleRecord[string] | null>>;
  written: number;
}

/**
 * Writes each bundle. One with a trusted record (the caller has checked it
 * against the disk: bundlesOnDisk) is updated in place: only files whose bytes changed are written (each to a temporary
 * sibling, then renamed over the old one), files it no longer has are removed.
 * Any other bundle is written whole and swapped in by `writer` (write-tree),
 * which may have been given it already, while the build went on. Returns the
 * records of the bundles written. The caller drops the old state before and
 * stores the new one after, so an interrupted update is never trusted.
 */
export async function writeBundles(
  outRoot: string,
  bundles: ReadonlyMap<string, VirtualTree>,
  /** The records found on disk as they say, or each bundle's when known (a check still under way: checkBundlesOnDisk). */
  trusted: Readonly<Record<string, BundleRecord>> | ((key: string) => Promise<BundleRecord | undefined>),
  writer: TreeWriter = treeWriter(outRoot),
  /** Per bundle, the only files that may differ from its trusted record (an emit delta: the tree has the record's paths). */
  changedFiles: ReadonlyMap<string, readonly string[]> = new Map(),
  /** The tree to write whole for a bundle with no trusted record that the writer does not have yet (emitted again: its reused files have no bytes). */
  whole: (key: string) => VirtualTree = (key) => bundles.get(key)!,
): Promise<WrittenBundles> {
  try {
    return await updateBundles(outRoot, bundles, typeof trusted === 'function' ? trusted : async (key) => trusted[key], writer, changedFiles, whole);
  } catch (error) {
    await writer.abandon();
    throw error;
  }
}

async function updateBundles(
  outRoot: string,
  bundles: ReadonlyMap<string, VirtualTree>,
  trustedOf: (key: string) => Promise<BundleRecord | undefined>,
  writer: TreeWriter,
  changedFiles: ReadonlyMap<string, readonly string[]>,
  whole: (key: string) => VirtualTree,
): Promise<WrittenBundles> {
  const records: Record<string, BundleRecord> = {};
  const changes: WrittenBundles['changes'] = {};
  let written = 0;
  for (const [key, tree] of bundles) {
    const trustedRecord = await trustedOf(key);
    if (!trustedRecord) {
      // A reused file has no bytes to write (the writer refuses one): only a bundle whose record held it could have one.
      if (!writer.has(key)) writer.add(key, whole(key));
      written += tree.size;
      continue;
    }
    const candidates = changedFiles.get(key);
    // A delta's few files are looked up in the record as it is; a whole tree's many, in a Map of it (recordMap).
    const record: Pick<ReadonlyMap<string, BundleRecord[string]>, 'get' | 'keys'> = candidates ? { get: (file) => trustedRecord[file], keys: () => Object.keys(trustedRecord).values() } : recordMap(trustedRecord);
    // Every file's digest is a fact emit filled for the manifest (the manifest's own and README.txt's are taken here).
    // A delta's record is updated in place (a copy of every bundle's record took longer than the update's writes): this
    // build's state holds it from here on, and the state is dropped before any write, so a failure leaves it untrusted.
    const next: BundleRecord = candidates ? trustedRecord : {};
    if (candidates) forgetRecordMap(trustedRecord);
    const changed: string[] = [];
    for (const [file, entry] of candidates ? candidates.map((file) => [file, tree.get(file)!] as const) : tree) {
      const mode = fileMode(entry);
      const old = record.get(file);
      if (old && old[0] === digestOf(entry) && old[2] === mode) next[file] = old;
      else changed.push(file);
    }
    const root = path.join(outRoot, key);
    // Synchronous calls: the few files of an update cost less so than as promises, each a trip through libuv's threads.
    for (const file of changed) {
      const entry = tree.get(file)!;
      if (entry.reused) throw new Error(`internal: reused file ${key}/${file} differs from its record`);
      const stats = replaceFile(path.join(root, file), entry.contents, fileMode(entry));
      next[file] = [digestOf(entry), stats.size, stats.mode & 0o777, stats.mtimeMs];
    }
    written += changed.length;
    // A delta's tree has the record's paths.
    const gone = candidates ? [] : [...record.keys()].filter((file) => !tree.has(file));
    for (const file of gone) await rm(path.join(root, file), { force: true });
    await removeEmptyFolders(root, gone);
    records[key] = next;
    const change: Record<string, BundleRecord[string] | null> = {};
    for (const file of changed) change[file] = next[file]!;
    for (const file of gone) change[file] = null;
    changes[key] = change;
  }
  Object.assign(records, await writer.finish());
  return { records, changes, written };
}

/** Removes the folders of removed files that are now empty, deepest first, up to `root` (kept). */
export async function removeEmptyFolders(root: string, removed: readonly string[]): Promise<void> {
  const folders = new Set<string>();
  for (const file of removed) for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) folders.add(dir);
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) {
    const entries = await readFolder(path.join(root, folder)).catch(() => null);
    // Another process (a second update of the same folder) may have removed it, or put a file in it, meanwhile.
    if (entries && entries.length === 0) await rmdir(path.join(root, folder)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT' && error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  }
}
