// The build cache: entries under a cache folder (~/.cache/gsd-build by default),
// each addressed by a key hashed from the bytes of every input it depends on
// and the compiler's own fingerprint. An entry is trusted only when its
// envelope names this format and exactly the key asked for; anything else
// (a corrupt file, another compiler's entry, a truncated write) reads as a
// miss and is rebuilt. Writes go to a temporary sibling, then rename.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, type Dirent, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { compareText } from '../diagnostics.ts';

const FORMAT = 'gsd-build-cache/1';
const REPO_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
/** What the compiler's behaviour is made of: its code and data, the schemas, and the locked dependencies. */
const FINGERPRINT_INPUTS = ['compiler', 'schemas', 'package.json', 'package-lock.json'];

/** Every file under `dir` (sorted, relative POSIX paths) with its bytes; none when it does not exist. */
export async function readTree(dir: string): Promise<(string | Uint8Array)[]> {
  const parts: (string | Uint8Array)[] = [];
  // Synchronous calls, as in readSourceTree: small files, nothing else to do meanwhile.
  const visit = (relative: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(dir, relative), { withFileTypes: true });
    } catch {
      entries = [];
    }
    for (const entry of entries.sort((a, b) => compareText(a.name, b.name))) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) visit(child);
      else if (entry.isFile()) parts.push(child, readFileSync(path.join(dir, child)));
    }
  };
  visit('');
  return parts;
}

/** SHA-256 of the parts, each length-prefixed so that no two part lists collide. */
export function hashParts(parts: readonly (string | Uint8Array)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hash.update(`${bytes.length}:`);
    hash.update(bytes);
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

/** The value stored under `name` for `key`, or null when there is none, it is for another key, or it does not read. */
export function readCacheEntry<T>(cacheDir: string, name: string, key: string): T | null {
  let envelope: Envelope;
  try {
    envelope = deserialize(readFileSync(entryPath(cacheDir, name))) as Envelope;
  } catch {
    return null;
  }
  if (envelope === null || typeof envelope !== 'object' || envelope.format !== FORMAT || envelope.name !== name || envelope.key !== key) return null;
  return envelope.value as T;
}

/** Stores `value` under `name` for `key`, replacing the previous entry whole. */
export function writeCacheEntry(cacheDir: string, name: string, key: string, value: unknown): void {
  const file = entryPath(cacheDir, name);
  mkdirSync(cacheDir, { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, serialize({ format: FORMAT, name, key, value } satisfies Envelope));
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

export function removeCacheEntry(cacheDir: string, name: string): void {
  rmSync(entryPath(cacheDir, name), { force: true });
}

function entryPath(cacheDir: string, name: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`internal: cache entry name "${name}"`);
  return path.join(cacheDir, `${name}.v8`);
}
