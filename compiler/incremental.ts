// Incremental builds: the key of everything a build reads, and the output
// state (write/output-state.ts) stored in the build cache per output folder.
// A build whose key matches the state's, over bundles that still match their
// records, has nothing to do; any other build rewrites only changed files.
import path from 'node:path';
import { compareText } from './diagnostics.ts';
import { compilerFingerprint, hashParts, readCacheEntry, readTree, removeCacheEntry, writeCacheEntry } from './cache/build-cache.ts';
import type { SourceFile } from './load/read-source-tree.ts';
import type { BundleRecord, OutputState } from './write/output-state.ts';
import type { StoredUnits, UnitSource } from './pipeline.ts';
import type { ReusedFile } from './emit/render-units.ts';
import os from 'node:os';

/** Where the cache lives unless --cache says: $GSD_BUILD_CACHE, else the user's cache folder. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['GSD_BUILD_CACHE']) return path.resolve(env['GSD_BUILD_CACHE']);
  const base = env['XDG_CACHE_HOME'] ? path.resolve(env['XDG_CACHE_HOME']) : path.join(os.homedir(), '.cache');
  return path.join(base, 'gsd-build');
}

/**
 * The build's key: the compiler's fingerprint (its code, data, schemas and
 * locked dependencies), the options, every source file and every target
 * definition file, byte for byte.
 */
export async function buildInputKey(files: readonly SourceFile[], targetsDir: string, options: unknown): Promise<string> {
  return hashParts([compilerFingerprint(), JSON.stringify(options), 'targets', ...(await readTree(targetsDir)), 'source', ...files.flatMap((file) => [file.path, file.bytes])]);
}

/** The state's slot in the cache: one per output folder. */
function stateName(outRoot: string): string {
  return `output-${hashParts([path.resolve(outRoot)]).slice(0, 24)}`;
}

export interface StoredState extends OutputState {
  /** The bundles that build wrote, in order. */
  built: string[];
  /** Its summary line's numbers. */
  files: number;
  /**
   * Each bundle's render units (pipeline.ts emitBundles): as JSON text when
   * read from disk, parsed only when the bundle is emitted again; as made
   * while the state stays in memory (a resident cache).
   */
  units: Record<string, string | StoredUnits>;
}

/** As stored: records and units as JSON text, which reads back several times faster than the same data as structured-clone objects. */
type Stored = Omit<StoredState, 'bundles' | 'units'> & { bundles: Record<string, string>; units: Record<string, string> };

export function readOutputState(cacheDir: string, outRoot: string): StoredState | null {
  return readCacheEntry(cacheDir, stateName(outRoot), compilerFingerprint(), decodeState);
}

function decodeState(value: unknown): StoredState | null {
  const stored = value as Stored | null;
  const valid =
    stored !== null &&
    typeof stored === 'object' &&
    typeof stored.inputKey === 'string' &&
    Array.isArray(stored.built) &&
    stored.bundles !== null &&
    typeof stored.bundles === 'object' &&
    stored.units !== null &&
    typeof stored.units === 'object';
  if (!valid) return null;
  try {
    return { ...stored, bundles: Object.fromEntries(Object.entries(stored.bundles).map(([key, text]) => [key, JSON.parse(text) as BundleRecord])) };
  } catch {
    return null;
  }
}

export function writeOutputState(cacheDir: string, outRoot: string, state: StoredState): void {
  writeCacheEntry(cacheDir, stateName(outRoot), compilerFingerprint(), state, encodeState);
}

function encodeState(state: StoredState): Stored {
  return {
    ...state,
    bundles: Object.fromEntries(Object.entries(state.bundles).map(([key, record]) => [key, JSON.stringify(record)])),
    units: Object.fromEntries(Object.entries(state.units).map(([key, units]) => [key, typeof units === 'string' ? units : unitsText(units)])),
  };
}

/** A bundle's units as stored: JSON, the units as [key, files] pairs (parseUnits reads them back). */
export function unitsText(units: StoredUnits): string {
  return JSON.stringify({ salt: units.salt, units: [...units.units] });
}

/** Dropped before an output folder is touched, so a build cut short leaves nothing trusted. */
export function dropOutputState(cacheDir: string, outRoot: string): void {
  removeCacheEntry(cacheDir, stateName(outRoot));
}

/** The records of the bundles among `keys` that were found on disk exactly as the state says (bundlesOnDisk). */
export function trustedRecords(state: StoredState | null, onDisk: ReadonlySet<string>, keys: readonly string[]): Record<string, BundleRecord> {
  const trusted: Record<string, BundleRecord> = {};
  for (const key of keys) if (state?.bundles[key] && onDisk.has(key)) trusted[key] = state.bundles[key];
  return trusted;
}

/**
 * The last build's units of the trusted bundles, for emit. A bundle's units
 * are parsed when first asked for; units that do not read as the shape
 * emit stores are dropped whole (that bundle renders everything).
 */
export function unitSource(state: StoredState | null, trusted: Readonly<Record<string, BundleRecord>>): UnitSource {
  return {
    previous: (bundle) => {
      const record = trusted[bundle];
      const stored = state?.units[bundle];
      if (!record || stored === undefined) return undefined;
      const units = typeof stored === 'string' ? parseUnits(stored) : stored;
      return units ? { units, record } : undefined;
    },
  };
}

/** A stored finding list: absent when empty (pipeline.ts storedUnits). */
const findingList = (value: unknown) => value === undefined || Array.isArray(value);

export function parseUnits(text: string): StoredUnits | null {
  let value: { salt?: unknown; units?: unknown } | null;
  try {
    value = JSON.parse(text) as { salt?: unknown; units?: unknown } | null;
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || typeof value.salt !== 'string' || !Array.isArray(value.units)) return null;
  for (const pair of value.units as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || !Array.isArray(pair[1])) return null;
    for (const file of pair[1] as unknown[]) {
      const entry = file as Partial<ReusedFile> | null;
      const facts = entry?.facts;
      if (typeof entry?.path !== 'string' || !facts || typeof facts !== 'object' || !findingList(facts.leaks) || !findingList(facts.limits)) return null;
    }
  }
  return { salt: value.salt, units: new Map(value.units as [string, ReusedFile[]][]) };
}

/** Whether the state's build is still exactly on disk: every bundle it wrote was found as its record says. */
export function stillOnDisk(state: StoredState, onDisk: ReadonlySet<string>): boolean {
  return state.built.every((key) => onDisk.has(key));
}
