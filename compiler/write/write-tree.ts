// write: virtual trees onto disk. Each tree is written in full to a sibling
// temporary folder, then swapped into place, so a failure leaves the old
// output as it was. Modes are set explicitly: the umask never shows through.
//
// Writer threads do the writing (TREE_WRITER), with synchronous calls: a
// promise per open, write, close and stat cost the main thread about as much
// as the kernel's work, and in a thread the kernel's work runs on another core
// while the main thread renders the next bundle (a build hands each bundle
// over as soon as it is checked: TreeWriter.add). Making a file or a folder is
// the costly part (on the 2-core CI machine's ext4 disk, 0.1 to 0.4 ms of
// kernel time each, the more the more files were lately removed; a link takes
// 0.01 ms), so two threads share each tree, each file going to the thread that
// owns its bytes.
import { Worker } from 'node:worker_threads';
import { mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { digestOf, byteLengthOf, fileMode, type VirtualTree } from '../emit/virtual-tree.ts';

/** path → [sha256, size, mode, mtimeMs] */
export type BundleRecord = Record<string, [string, number, number, number]>;

const recordMaps = new WeakMap<BundleRecord, ReadonlyMap<string, BundleRecord[string]>>();

/**
 * A record as a Map, made once per record (emit's unit reuse and the update
 * both read it): a keyed property read with a string made at run time first
 * looks the string up in V8's string table, a Map read does not.
 */
export function recordMap(record: BundleRecord): ReadonlyMap<string, BundleRecord[string]> {
  let map = recordMaps.get(record);
  if (!map) recordMaps.set(record, (map = new Map(Object.entries(record))));
  return map;
}

/** Drops the Map made of a record that is about to change in place (output-state.ts updateBundles). */
export function forgetRecordMap(record: BundleRecord): void {
  recordMaps.delete(record);
}

const DIRECTORY_MODE = 0o755;
/** Read once (process.umask() with no argument only reads it). */
const UMASK = process.umask();
const encoder = new TextEncoder();

/**
 * A writer thread, as CommonJS source text (a text the bundler leaves alone,
 * so it runs the same under the TypeScript loader and in the prebuilt
 * compiler). Each job is this thread's part of one tree (the tree's folder is
 * empty when the first part comes): the folders of its files first, then its
 * files. A file with the same bytes and mode as one written before (in any
 * tree: the same bytes always go to the same thread) is a hard link to that
 * one: the 36 bundles of a corpus share two thirds of their bytes, and the
 * disk then takes each once. Every later update replaces a file by renaming a
 * new one over it, so a link is never written through; where the file system
 * refuses a link, the copy is written. The reply is each file's size, mode
 * and mtime, in the part's order, as one list of numbers.
 */
const TREE_WRITER = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { umask, directoryMode } = workerData;
const firsts = new Map();
function makeDirectory(dir) {
  const first = fs.mkdirSync(dir, { recursive: true, mode: directoryMode });
  // Made with the mode less the umask: set again only where the umask took bits away.
  if (!first || (directoryMode & umask) === 0) return;
  for (let at = dir; ; at = path.dirname(at)) {
    fs.chmodSync(at, directoryMode);
    if (at === first || path.dirname(at) === at) break;
  }
}
function writeTree({ directory, files, texts }) {
  // Both threads make the tree's folders they need: one makes each, the other finds it made.
  makeDirectory(directory);
  const folders = new Set();
  for (const file of files) folders.add(path.dirname(path.join(directory, file.path)));
  for (const folder of [...folders].sort()) makeDirectory(folder);
  const stats = [];
  for (const file of files) {
    const target = path.join(directory, file.path);
    const first = firsts.get(file.content);
    // A link is the first file's inode: its size, mode and mtime are the ones recorded for that file.
    if (first !== undefined) {
      try {
        fs.linkSync(first.path, target);
        stats.push(first.size, first.mode, first.mtimeMs);
        continue;
      } catch {}
    }
    const bytes = file.contents !== undefined ? file.contents : file.text !== undefined ? texts.subarray(file.text[0], file.text[0] + file.text[1]) : fs.readFileSync(first.path);
    // One open for the write, the mode and the stat: no path is looked up again.
    const fd = fs.openSync(target, 'w', file.mode);
    let made;
    try {
      fs.writeFileSync(fd, bytes);
      if ((file.mode & umask) !== 0) fs.fchmodSync(fd, file.mode);
      made = fs.fstatSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    const written = { path: target, size: made.size, mode: made.mode & 0o777, mtimeMs: made.mtimeMs };
    if (first === undefined) firsts.set(file.content, written);
    stats.push(written.size, written.mode, written.mtimeMs);
  }
  return stats;
}
parentPort.on('message', (job) => {
  try {
    parentPort.postMessage({ key: job.key, part: job.part, stats: writeTree(job) });
  } catch (error) {
    parentPort.postMessage({ key: job.key, part: job.part, error: String((error && error.message) || error), code: error && typeof error.code === 'string' ? error.code : undefined });
  }
});
`;

interface WriterJob {
  key: string;
  /** The thread's index: its files' places in the tree are the main thread's (TreeWriter's `pending`). */
  part: number;
  directory: string;
  /**
   * Bytes only for the first file of its content key (its thread links or
   * copies the rest): `contents`, or for text `[offset, length]` in `texts`.
   */
  files: { path: string; mode: number; content: string; contents?: Uint8Array; text?: [number, number] }[];
  texts: Uint8Array;
}

/** How many threads write: each makes files and folders on its own core (the kernel's work), but never more than the cores. */
const WRITER_THREADS = Math.max(1, Math.min(2, availableParallelism()));

/** The thread that writes a content key's files: by its digest, so the same bytes always meet the thread that wrote them first. */
function ownerOf(sha256: string, threads: number): number {
  return threads === 1 ? 0 : parseInt(sha256.slice(0, 4), 16) % threads;
}

/** Whole trees handed to the writer threads one by one, swapped in together at the end. */
export interface TreeWriter {
  /** Starts writing `tree` to a temporary sibling of `<outRoot>/<key>`. */
  add(key: string, tree: VirtualTree): void;
  has(key: string): boolean;
  /** Waits for every tree, swaps each into place and returns their records; on any failure removes every temporary folder and throws. */
  finish(): Promise<Record<string, BundleRecord>>;
  /** Stops and removes every temporary folder; the output stays as it was. */
  abandon(): Promise<void>;
}

export function treeWriter(outRoot: string, threads: number = WRITER_THREADS): TreeWriter {
  const staged = new Map<string, { temporary: string; final: string }>();
  const records = new Map<string, BundleRecord>();
  /** A tree still being written: its paths and digests in tree order, each part's places in it, its entries as answered, and the parts still out. */
  const pending = new Map<string, { paths: string[]; digests: string[]; places: number[][]; entries: BundleRecord[string][]; parts: number }>();
  const sent = new Set<string>();
  let workers: Worker[] = [];
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const settle = () => wake?.();
  const answered = (reply: { key: string; part: number; stats?: number[]; error?: string; code?: string }) => {
    const tree = pending.get(reply.key);
    const places = tree?.places[reply.part];
    if (reply.error !== undefined || !reply.stats || !places || reply.stats.length !== places.length * 3) failure ??= Object.assign(new Error(`cannot write ${path.join(outRoot, reply.key)}: ${reply.error ?? 'no record'}`), reply.code ? { code: reply.code } : {});
    else {
      places.forEach((at, index) => (tree!.entries[at] = [tree!.digests[at]!, reply.stats![index * 3]!, reply.stats![index * 3 + 1]!, reply.stats![index * 3 + 2]!]));
      if ((tree!.parts -= 1) === 0) {
        pending.delete(reply.key);
        records.set(reply.key, Object.fromEntries(tree!.paths.map((file, at) => [file, tree!.entries[at]!])));
      }
    }
    settle();
  };
  const start = (): Worker => {
    const started = new Worker(TREE_WRITER, { eval: true, workerData: { umask: UMASK, directoryMode: DIRECTORY_MODE } });
    started.on('message', answered);
    started.on('error', (error) => ((failure ??= error), settle()));
    started.on('exit', () => ((failure ??= pending.size > 0 ? new Error('a writer thread stopped early') : null), settle()));
    // Kept alive only while finish() waits: a build that throws before it does not hang on the thread.
    started.unref();
    return started;
  };
  /** Folders above a temporary folder that were not there when its tree came (a new target's): the threads make them. */
  const above = new Set<string>();
  // A temporary folder under a path that is not a folder was never made. The folders above it that the threads made go
  // too, deepest first, each only while empty.
  const removeTemporaries = async () => {
    await Promise.all([...staged.values()].map(({ temporary }) => rm(temporary, { recursive: true, force: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTDIR') throw error;
    })));
    for (const folder of [...above].sort((a, b) => b.length - a.length)) await rmdir(folder).catch(() => {});
  };
  const stop = async () => {
    const running = workers;
    workers = [];
    await Promise.all(running.map((worker) => worker.terminate()));
  };
  return {
    add(key, tree) {
      if (staged.has(key)) throw new Error(`internal: tree ${key} added twice`);
      const final = path.join(outRoot, key);
      const temporary = path.join(path.dirname(final), `.${path.basename(final)}.tmp-${process.pid}`);
      staged.set(key, { temporary, final });
      // Left by a process of the same id that stopped midway: removed here, before any thread makes a part of the tree.
      if (existsSync(temporary)) rmSync(temporary, { recursive: true, force: true });
      for (let folder = path.dirname(temporary); !above.has(folder) && !existsSync(folder); folder = path.dirname(folder)) above.add(folder);
      const jobs = Array.from({ length: threads }, () => ({ files: [] as WriterJob['files'], places: [] as number[], texts: [] as { at: number; text: string | Uint8Array; bytes: number }[], textBytes: 0 }));
      const paths: string[] = [];
      const digests: string[] = [];
      for (const [file, entry] of tree) {
        if (entry.reused) throw new Error(`internal: reused file ${key}/${file} has no bytes to write`);
        const mode = fileMode(entry);
        const sha256 = digestOf(entry);
        const content = `${sha256} ${mode}`;
        const job = jobs[ownerOf(sha256, threads)]!;
        job.places.push(paths.length);
        paths.push(file);
        digests.push(sha256);
        if (sent.has(content)) job.files.push({ path: file, mode, content });
        else if (typeof entry.contents !== 'string' && !entry.encoded) job.files.push({ path: file, mode, content, contents: entry.contents });
        else {
          const bytes = byteLengthOf(entry);
          job.files.push({ path: file, mode, content, text: [job.textBytes, bytes] });
          job.texts.push({ at: job.textBytes, text: entry.contents, bytes });
          job.textBytes += bytes;
        }
        sent.add(content);
      }
      // An empty tree is still one part: its folder is made.
      const sending = jobs.map((job, part) => job.files.length > 0 || part === 0);
      pending.set(key, { paths, digests, places: jobs.map((job) => job.places), entries: new Array(paths.length), parts: sending.filter(Boolean).length });
      if (workers.length === 0) workers = Array.from({ length: threads }, start);
      jobs.forEach((job, part) => {
        if (!sending[part]) return;
        // The part's new texts, UTF-8 in one buffer the thread takes whole (moved, not copied; one allocation per part).
        const encoded = new Uint8Array(job.textBytes);
        for (const { at, text, bytes } of job.texts) {
          // An encoded text (TreeFile.encoded) is copied as it is.
          const written = typeof text === 'string' ? encoder.encodeInto(text, encoded.subarray(at, at + bytes)).written : (encoded.set(text, at), text.length);
          if (written !== bytes) throw new Error(`internal: a text of ${key} is not the size its facts say`);
        }
        workers[part]!.postMessage({ key, part, directory: temporary, files: job.files, texts: encoded } satisfies WriterJob, [encoded.buffer]);
      });
    },
    has: (key) => staged.has(key),
    async finish() {
      try {
        for (const worker of workers) worker.ref();
        while (failure === null && records.size < staged.size) await new Promise<void>((resolve) => (wake = resolve));
        await stop();
        if (failure) throw failure;
        for (const { temporary, final } of staged.values()) {
          await mkdir(path.dirname(final), { recursive: true });
          await rm(final, { recursive: true, force: true });
          await rename(temporary, final);
        }
        return Object.fromEntries([...staged.keys()].map((key) => [key, records.get(key)!]));
      } catch (error) {
        await stop();
        await removeTemporaries();
        throw error;
      }
    },
    async abandon() {
      await stop();
      await removeTemporaries();
    },
  };
}

/** Writes each tree to `<outRoot>/<key>`, replacing what was there. */
export async function writeTrees(outRoot: string, trees: ReadonlyMap<string, VirtualTree>): Promise<void> {
  const writer = treeWriter(outRoot);
  for (const [key, tree] of trees) writer.add(key, tree);
  await writer.finish();
}

/** mkdir -p, then chmod exactly the levels it created (mkdir's mode passes through the umask). */
export function makeDirectorySync(directory: string): void {
  const first = mkdirSync(directory, { recursive: true });
  if (!first) return;
  for (let dir = directory; ; dir = path.dirname(dir)) {
    chmodSync(dir, DIRECTORY_MODE);
    if (dir === first || path.dirname(dir) === dir) break;
  }
}
