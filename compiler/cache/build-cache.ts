// The build cache: entries under a cache folder (~/.cache/gsd-build by default),
// each addressed by a key hashed from the bytes of every input it depends on
// and the compiler's own fingerprint. An entry is trusted only when its
// envelope names this format and exactly the key asked for; anything else
// (a corrupt file, another compiler's entry, a truncated write) reads as a
// miss and is rebuilt. Writes go to a temporary sibling, then rename.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { isAscii } from 'node:buffer';
import { compareText } from '../diagnostics.ts';
import { listFiles } from '../util/list-files.ts';

const FORMAT = 'gsd-build-cache/1';
const REPO_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
/** What the compiler's behaviour is made of: its code and data, the schemas, and the locked dependencies. */
const FINGERPRINT_INPUTS = ['compiler', 'schemas', 'package.json', 'package-lock.json'];

/** Every file under `dir` (listFiles: sorted, relative POSIX paths) with its bytes; none when it does not exist. */
export async function readTree(dir: string): Promise<(string | Uint8Array)[]> {
  return listFiles(dir).flatMap((file) => [file, readFileSync(path.join(dir, file))]);
}

/** SHA-256 of the parts, each length-prefixed so that no two part lists collide. */
export function hashParts(parts: readonly (string | Uint8Array)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    // A string is hashed as its UTF-8 bytes without making a buffer of them first.
    if (typeof part === 'string') {
      hash.update(`${Buffer.byteLength(part, 'utf8')}:`);
      hash.update(part, 'utf8');
    } else {
      hash.update(`${part.length}:`);
      hash.update(part);
    }
  }
  return hash.digest('hex');
}

let fingerprint: string | undefined;

/** The compiler's own version for cache keys: a hash of every file it is built from (tests and fixtures aside). */
export function compilerFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const parts: (string | Uint8Array)[] = [];
  // In a checkout compiler/lib/ is compiled from the sources hashed here (scripts/build-compiler.mjs):
  // building it, or running it instead of the sources, is the same compiler. An installed package has only the lib.
  const fromSources = existsSync(path.join(REPO_ROOT, 'compiler', 'pipeline.ts'));
  const visit = (relative: string) => {
    if (fromSources && relative === 'compiler/lib') return;
    const full = path.join(REPO_ROOT, relative);
    let entries;
    try {
      entries = readdirSync(full, { withFileTypes: true });
    } catch {
      // An installed package ships no package-lock.json: its absence is part of the fingerprint.
      parts.push(relative, existsSync(full) ? readFileSync(full) : 'absent');
      return;
    }
    for (const entry of entries.sort((a, b) => compareText(a.name, b.name))) {
      if (entry.name === 'test' || entry.name === 'fixtures' || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) visit(child);
      else if (entry.isFile()) parts.push(child, readFileSync(path.join(REPO_ROOT, child)));
    }
  };
  for (const input of FINGERPRINT_INPUTS) visit(input);
  parts.push('dependencies', ...installedDependencies());
  fingerprint = hashParts(parts);
  return fingerprint;
}

/**
 * The versions of the dependencies as installed: without a lock file (an
 * installed package) they are what changes the compiler's behaviour. Found
 * in the package's own node_modules, else beside it (node_modules/gsd-build).
 */
function installedDependencies(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  return Object.keys(manifest.dependencies ?? {}).sort(compareText).flatMap((name) => {
    for (const base of [path.join(REPO_ROOT, 'node_modules'), path.dirname(REPO_ROOT)]) {
      const file = path.join(base, name, 'package.json');
      if (existsSync(file)) return [name, (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '?'];
    }
    return [name, 'missing'];
  });
}

interface Envelope {
  format: string;
  name: string;
  key: string;
  value: unknown;
}

/**
 * A process that builds again and again (gsd-build watch) keeps the entries it
 * read or wrote in memory as live values, so a rebuild neither reads nor
 * decodes them again, and writes them to disk only when it flushes (when it
 * has been idle a while, and as it stops). An entry in memory is used only
 * while the file on disk is the one this process last saw there: another
 * process that wrote or removed the entry in between wins. Writing later is
 * safe because every entry but the output state is addressed by its content,
 * and the state is removed from disk before an output folder is touched.
 */
interface ResidentEntry {
  key: string;
  value: unknown;
  /** The value as stored on disk, made at flush. */
  encode: (value: unknown) => unknown;
  /** The disk file as this process last saw it (stampOf). */
  stamp: string;
  /** Not yet written to disk. */
  dirty: boolean;
}

let resident: Map<string, ResidentEntry> | null = null;
/** Values a resident process keeps beside the entries (residentMemo), gone when it stops being resident. */
let residentMemos: Map<string, { value: unknown; dispose?: () => void }> | null = null;

/**
 * A value kept for as long as the cache is resident (made by `make` when first
 * asked for; `dispose` called as it stops being resident), or null when it is
 * not: what a build in a resident process may take from the last one without
 * storing it (compiler/cli/build.ts keeps each bundle's last emission, and the
 * disk check's thread, so).
 */
export function residentMemo<T>(name: string, make: () => T, dispose?: (value: T) => void): T | null {
  if (!resident || !residentMemos) return null;
  let memo = residentMemos.get(name);
  if (!memo) {
    const value = make();
    residentMemos.set(name, (memo = { value, ...(dispose ? { dispose: () => dispose(value) } : {}) }));
  }
  return memo.value as T;
}

/** Keeps entries in memory until flush(); close() flushes and ends it. Only one may be open at a time. */
export function keepCacheResident(): { flush(): void; close(): void } {
  if (resident) throw new Error('internal: the build cache is already resident');
  const entries = new Map<string, ResidentEntry>();
  const memos = new Map<string, { value: unknown; dispose?: () => void }>();
  resident = entries;
  residentMemos = memos;
  const flush = () => {
    for (const [file, entry] of entries) {
      if (!entry.dirty) continue;
      // Another process wrote the entry since: its value is newer than this one.
      if (stampOf(file) !== entry.stamp) {
        entries.delete(file);
        continue;
      }
      writeEnvelope(file, { format: FORMAT, name: path.basename(file, '.v8'), key: entry.key, value: entry.encode(entry.value) });
      entry.stamp = stampOf(file);
      entry.dirty = false;
    }
  };
  return {
    flush,
    close: () => {
      try {
        flush();
      } finally {
        if (resident === entries) resident = null;
        if (residentMemos === memos) residentMemos = null;
        for (const memo of memos.values()) memo.dispose?.();
      }
    },
  };
}

/** Whether entries are kept in memory (keepCacheResident): a write then costs nothing until the flush. */
export function cacheIsResident(): boolean {
  return resident !== null;
}

/** A file's identity and version: another write, even of the same size, changes it. */
function stampOf(file: string): string {
  const stats = statSync(file, { throwIfNoEntry: false, bigint: true });
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` : 'absent';
}

/** The resident entry for `file`, while the disk still holds what this process last saw there. */
function residentEntry(file: string): ResidentEntry | undefined {
  const entry = resident?.get(file);
  if (!entry) return undefined;
  if (stampOf(file) === entry.stamp) return entry;
  resident!.delete(file);
  return undefined;
}

/**
 * The value stored under `name` for `key`, or null when there is none, it is
 * for another key, or it does not read. `decode` turns the stored value into
 * the one returned (null: it does not read); a resident cache keeps that.
 */
export function readCacheEntry<T>(cacheDir: string, name: string, key: string, decode: (stored: unknown) => T | null = (stored) => stored as T): T | null {
  const file = entryPath(cacheDir, name);
  const kept = residentEntry(file);
  if (kept) return kept.key === key ? (kept.value as T) : null;
  const stamp = resident ? stampOf(file) : '';
  let envelope: Envelope;
  try {
    envelope = deserialize(readFileSync(file)) as Envelope;
  } catch {
    return null;
  }
  if (envelope === null || typeof envelope !== 'object' || envelope.format !== FORMAT || envelope.name !== name || envelope.key !== key) return null;
  const value = decode(envelope.value);
  // Kept only when nothing wrote the file while it was read.
  if (resident && value !== null && stamp === stampOf(file)) resident.set(file, { key, value, encode: (live) => live, stamp, dirty: false });
  return value;
}

/**
 * Stores `value` under `name` for `key`, replacing the previous entry whole;
 * `encode` gives what is written to disk (a resident cache calls it at flush).
 */
export function writeCacheEntry<T>(cacheDir: string, name: string, key: string, value: T, encode: (value: T) => unknown = (live) => live): void {
  const file = entryPath(cacheDir, name);
  if (resident) {
    resident.set(file, { key, value, encode: encode as (value: unknown) => unknown, stamp: stampOf(file), dirty: true });
    return;
  }
  writeEnvelope(file, { format: FORMAT, name, key, value: encode(value) });
}

function writeEnvelope(file: string, envelope: Envelope): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, serialize(envelope));
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * A map of content-addressed byte entries (a key names its value's input, so
 * any value found under a key is one for it) stored as a base and a delta
 * beside it: a build that changes a few entries writes only those (the
 * delta), not the whole map again (10 MB of parsed nodes for the upstream
 * corpus). The base is written again, and the delta dropped, once the delta
 * and the base's unused entries outweigh a quarter of the base.
 */
interface BytesBase {
  id: string;
  entries: Map<string, Uint8Array>;
  weight: number;
}
interface BytesDelta {
  base: string;
  entries: Map<string, Uint8Array>;
}
const DELTA_SHARE = 4;
/** The base each map readBytesMap returned was read from (writeBytesMap writes the delta against it). */
const basesOf = new WeakMap<ReadonlyMap<string, Uint8Array>, BytesBase>();

const bytesMapOf = (value: unknown): value is Map<string, Uint8Array> => value instanceof Map && [...value].every(([key, bytes]) => typeof key === 'string' && bytes instanceof Uint8Array);

export function readBytesMap(cacheDir: string, name: string, key: string): Map<string, Uint8Array> {
  const base = readCacheEntry(cacheDir, name, key, (stored) => {
    const value = stored as Partial<BytesBase> | null;
    return value !== null && typeof value === 'object' && typeof value.id === 'string' && typeof value.weight === 'number' && bytesMapOf(value.entries) ? (value as BytesBase) : null;
  });
  if (!base) return new Map();
  const delta = readCacheEntry(cacheDir, `${name}-delta`, key, (stored) => {
    const value = stored as Partial<BytesDelta> | null;
    return value !== null && typeof value === 'object' && typeof value.base === 'string' && bytesMapOf(value.entries) ? (value as BytesDelta) : null;
  });
  const merged = new Map(base.entries);
  if (delta && delta.base === base.id) for (const [entry, bytes] of delta.entries) merged.set(entry, bytes);
  basesOf.set(merged, base);
  return merged;
}

/** Stores `next` under `name` (readBytesMap reads it back), when it is not exactly `previous` (what readBytesMap gave this build). */
export function writeBytesMap(cacheDir: string, name: string, key: string, previous: ReadonlyMap<string, Uint8Array>, next: ReadonlyMap<string, Uint8Array>): void {
  if (next.size === previous.size && [...next].every(([entry, bytes]) => previous.get(entry) === bytes)) return;
  const base = basesOf.get(previous);
  if (base) {
    const added = new Map([...next].filter(([entry, bytes]) => base.entries.get(entry) !== bytes));
    let weight = 0;
    for (const bytes of added.values()) weight += bytes.byteLength;
    for (const [entry, bytes] of base.entries) if (!next.has(entry)) weight += bytes.byteLength;
    if (weight * DELTA_SHARE <= base.weight) {
      writeCacheEntry(cacheDir, `${name}-delta`, key, { base: base.id, entries: added } satisfies BytesDelta);
      return;
    }
  }
  let weight = 0;
  for (const bytes of next.values()) weight += bytes.byteLength;
  // A new id, so that no delta written against an older base is read with this one.
  writeCacheEntry(cacheDir, name, key, { id: randomUUID(), entries: new Map(next), weight } satisfies BytesBase);
  removeCacheEntry(cacheDir, `${name}-delta`);
}

/**
 * A text as an entry keeps it: its UTF-8. A string V8 builds from two-byte
 * parts stays two bytes a character even when every character is ASCII (the
 * JSON.stringify of data holding one such part), and is stored and read back
 * so: twice the bytes to read, copy and fault in. The bytes read back are
 * views of the entry's file, made text only when asked for.
 */
export const storedBytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** A text storedBytes kept: ASCII (most) is copied as Latin-1 into a one-byte string, the rest decoded. */
export function storedText(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString(isAscii(buffer) ? 'latin1' : 'utf8');
}

export function removeCacheEntry(cacheDir: string, name: string): void {
  const file = entryPath(cacheDir, name);
  resident?.delete(file);
  rmSync(file, { force: true });
}

/** Whether an entry is stored under `name` (for any key): held by a resident cache, or on disk. */
export function hasCacheEntry(cacheDir: string, name: string): boolean {
  const file = entryPath(cacheDir, name);
  return resident?.has(file) === true || existsSync(file);
}

/** An entry's file's identity and version on disk ('absent' when there is none): a write by any process changes it. */
export function cacheEntryStamp(cacheDir: string, name: string): string {
  return stampOf(entryPath(cacheDir, name));
}

function entryPath(cacheDir: string, name: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`internal: cache entry name "${name}"`);
  return path.join(cacheDir, `${name}.v8`);
}
