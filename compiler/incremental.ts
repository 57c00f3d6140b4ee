// Incremental builds: the key of everything a build reads, and the output
// state (write/output-state.ts) stored in the build cache per output folder.
// A build whose key matches the state's, over bundles that still match their
// records, has nothing to do; any other build rewrites only changed files.
import path from 'node:path';
import { compareText } from './diagnostics.ts';
import { randomUUID } from 'node:crypto';
import { cacheEntryStamp, cacheIsResident, compilerFingerprint, hashParts, readCacheEntry, readTree, removeCacheEntry, storedBytes, storedText, writeCacheEntry } from './cache/build-cache.ts';
import { sourceDigest, type SourceFile } from './load/read-source-tree.ts';
import type { BundleRecord, CheckedRecords, OutputState } from './write/output-state.ts';
import type { DiskListing } from './write/disk-check-thread.ts';
import type { Emission, StoredUnits, UnitSource } from './pipeline.ts';
import type { ReusedFile } from './emit/render-units.ts';
import type { ListedEntry } from './emit/virtual-tree.ts';
import os from 'node:os';

/**
 * Each bundle's last emission in a resident process, with the record it was
 * written with: taken up only while the state's record is that same object
 * (read from disk, it is another: another process built meanwhile).
 */
export type EmissionMemo = Map<string, { record: BundleRecord; emission: Emission }>;

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
  return hashParts([compilerFingerprint(), JSON.stringify(options), 'targets', ...(await readTree(targetsDir)), 'source', ...files.flatMap((file) => [file.path, sourceDigest(file)])]);
}

/**
 * Whose state it is: a build's, of what it wrote into an output folder, or a
 * check's, of what it emitted to compare with a golden folder (its records
 * name no file on disk: each file's digest, size and mode, mtime 0).
 */
export type StateOwner = 'output' | 'check';

/** The state's slots in the cache, one pair per folder and owner: the base, and the head that names it (StoredState). */
function stateName(outRoot: string, owner: StateOwner = 'output'): string {
  return `${owner}-${hashParts([path.resolve(outRoot)]).slice(0, 24)}`;
}
const headName = (outRoot: string, owner: StateOwner = 'output') => `${stateName(outRoot, owner)}-head`;

/** The output state's version on disk: every build's state write changes it (a resident one's, when it is flushed). */
export function outputStateStamp(cacheDir: string, outRoot: string): string {
  return cacheEntryStamp(cacheDir, headName(outRoot));
}

/** A record entry of a file, or null: the file is gone. */
type RecordPatch = Record<string, BundleRecord[string] | null>;
/** A unit's files, or null: the unit is gone. */
type UnitsPatch = Map<string, ReusedFile[] | null>;

/**
 * What changed in the records and units since the base was written, per
 * bundle: each build's changes merged in (a later one wins), so the head
 * says everything on top of the base.
 */
export interface StatePatch {
  bundles: Map<string, RecordPatch>;
  units: Map<string, UnitsPatch>;
}

/** A build's records and units as written: records and units as JSON per bundle (its UTF-8, storedBytes). */
interface StateBase {
  /** A random id the head names: a head is read only with the base it was written against. */
  id: string;
  /** How many record and unit entries it holds: a head whose patch outweighs a quarter of it makes a new base. */
  weight: number;
  /** Each bundle's record, or its JSON as stored (StateRecords parses it when first asked for). */
  bundles: Record<string, BundleRecord | Uint8Array>;
  units: Record<string, Uint8Array | StoredUnits>;
}

/**
 * The output state as a build reads it: the base (every bundle's records and
 * units as one build wrote them) and the head (the input key, the summary, the
 * patch since the base). A build that changes a few files of each bundle
 * writes only the head; the base is written again when a bundle is written
 * whole or the patch outgrows it.
 */
export interface StoredState extends Omit<OutputState, 'bundles'> {
  /** The bundles that build wrote, in order. */
  built: string[];
  /** Its summary line's numbers. */
  files: number;
  /** Each bundle's record, the patch applied. */
  records: StateRecords;
  base: StateBase;
  patch: StatePatch;
}

/**
 * A state's records, each made when first asked for: the base's (as stored,
 * its JSON's bytes, or kept in memory) with the head's patch applied. A build with
 * nothing changed asks for none: the disk check reads each as the stored text
 * and the patch (listing), so no record is parsed or written out again.
 */
export class StateRecords implements CheckedRecords {
  /**
   * `owned`: the base was just read from disk and is this build's own, so a
   * record is patched in place; a base kept in memory (a resident cache) is
   * read again, so its records are patched as copies.
   */
  constructor(
    private readonly base: StateBase,
    private readonly patch: StatePatch,
    private readonly owned: boolean,
  ) {}

  private readonly made = new Map<string, BundleRecord | null>();

  keys(): string[] {
    const keys = new Set(Object.keys(this.base.bundles));
    for (const key of this.patch.bundles.keys()) keys.add(key);
    return [...keys];
  }

  /** A bundle's record; undefined when the state has none, or its stored text does not read as one (not trusted). */
  get(key: string): BundleRecord | undefined {
    let record = this.made.get(key);
    if (record === undefined) this.made.set(key, (record = this.make(key)));
    return record ?? undefined;
  }

  /** Every bundle's record (for a new base). */
  all(): Record<string, BundleRecord> {
    const all: Record<string, BundleRecord> = {};
    for (const key of this.keys()) {
      const record = this.get(key);
      if (record) all[key] = record;
    }
    return all;
  }

  listing(key: string): DiskListing {
    const stored = this.base.bundles[key];
    const made = this.made.get(key);
    if (!(stored instanceof Uint8Array) || made !== undefined) return { listing: JSON.stringify(made ?? this.get(key) ?? null) };
    const listing = storedText(stored);
    const patch = this.patch.bundles.get(key);
    return patch ? { listing, patch: Object.entries(patch).map(([file, entry]) => [file, entry && [entry[1], entry[2], entry[3]]]) } : { listing };
  }

  private make(key: string): BundleRecord | null {
    const stored = this.base.bundles[key];
    const patch = this.patch.bundles.get(key);
    let record: BundleRecord | null;
    if (stored instanceof Uint8Array) record = parseRecord(storedText(stored));
    else if (stored === undefined) record = patch ? {} : null;
    else record = patch && !this.owned ? { ...stored } : stored;
    if (record && patch) {
      if (this.owned) this.base.bundles[key] = record;
      patchRecord(record, patch);
    }
    return record;
  }
}

/** A record's stored text, or null when it is not an object of entries (patched and checked as any record). */
function parseRecord(text: string): BundleRecord | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as BundleRecord) : null;
  } catch {
    return null;
  }
}

interface StoredHead {
  base: string;
  inputKey: string;
  messages: OutputState['messages'];
  built: string[];
  files: number;
  bundles: [string, [string, BundleRecord[string] | null][]][];
  units: [string, [string, ReusedFile[] | null][]][];
}

export function readOutputState(cacheDir: string, outRoot: string, owner: StateOwner = 'output'): StoredState | null {
  const head = readCacheEntry(cacheDir, headName(outRoot, owner), compilerFingerprint(), decodeHead);
  if (!head) return null;
  const base = readCacheEntry(cacheDir, stateName(outRoot, owner), compilerFingerprint(), decodeBase);
  if (!base || base.id !== head.base) return null;
  // A copy of each record read from disk would cost as much as writing the whole base: see StateRecords.
  const records = new StateRecords(base, head.patch, !cacheIsResident());
  return { inputKey: head.inputKey, messages: head.messages, built: head.built, files: head.files, records, base, patch: head.patch };
}

function patchRecord(next: BundleRecord, patch: RecordPatch): BundleRecord {
  for (const file in patch) {
    const entry = patch[file];
    if (entry === null) delete next[file];
    else next[file] = entry!;
  }
  return next;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';
const isRecordEntry = (value: unknown) =>
  Array.isArray(value) && value.length === 4 && typeof value[0] === 'string' && typeof value[1] === 'number' && typeof value[2] === 'number' && typeof value[3] === 'number';

/** The head as read and kept in memory. */
type Head = Omit<StoredState, 'records' | 'base'> & { base: string };

function decodeHead(value: unknown): Head | null {
  const stored = value as Partial<StoredHead> | null;
  if (!isObject(stored) || typeof stored.base !== 'string' || typeof stored.inputKey !== 'string' || !Array.isArray(stored.built) || typeof stored.files !== 'number') return null;
  const messages = stored.messages;
  if (!isObject(messages) || !Array.isArray(messages.out) || !Array.isArray(messages.err)) return null;
  if (!Array.isArray(stored.bundles) || !Array.isArray(stored.units)) return null;
  const bundles = new Map<string, RecordPatch>();
  for (const pair of stored.bundles as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || !Array.isArray(pair[1])) return null;
    const patch: RecordPatch = {};
    for (const change of pair[1] as unknown[]) {
      if (!Array.isArray(change) || change.length !== 2 || typeof change[0] !== 'string' || (change[1] !== null && !isRecordEntry(change[1]))) return null;
      patch[change[0]] = change[1] as BundleRecord[string] | null;
    }
    bundles.set(pair[0], patch);
  }
  const units = new Map<string, UnitsPatch>();
  for (const pair of stored.units as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || !Array.isArray(pair[1])) return null;
    const patch: UnitsPatch = new Map();
    for (const change of pair[1] as unknown[]) {
      if (!Array.isArray(change) || change.length !== 2 || typeof change[0] !== 'string' || (change[1] !== null && !unitFiles(change[1]))) return null;
      patch.set(change[0], change[1] as ReusedFile[] | null);
    }
    units.set(pair[0], patch);
  }
  return { base: stored.base, inputKey: stored.inputKey, messages: { out: messages.out, err: messages.err }, built: stored.built, files: stored.files, patch: { bundles, units } };
}

/** As stored: records and units as JSON, which reads back several times faster than the same data as structured-clone objects. */
type StoredBase = Omit<StateBase, 'bundles' | 'units'> & { bundles: Record<string, Uint8Array>; units: Record<string, Uint8Array> };

function decodeBase(value: unknown): StateBase | null {
  const stored = value as Partial<StoredBase> | null;
  if (!isObject(stored) || typeof stored.id !== 'string' || typeof stored.weight !== 'number' || !isObject(stored.bundles) || !isObject(stored.units)) return null;
  // Records and units stay bytes until asked for (StateRecords, currentUnits).
  const isBytes = (value: unknown) => value instanceof Uint8Array;
  if (!Object.values(stored.bundles).every(isBytes) || !Object.values(stored.units).every(isBytes)) return null;
  return { id: stored.id, weight: stored.weight, units: stored.units, bundles: stored.bundles };
}

/** What a build hands writeOutputState: its summary, and either its changes (a patch) or, when some bundle was written whole, every record and unit. */
export interface NextState extends OutputState {
  built: string[];
  files: number;
  /** The records of the bundles this build wrote, each whole. */
  bundles: Record<string, BundleRecord>;
  /** The units of the bundles this build emitted. */
  units: Map<string, StoredUnits>;
  /** The changes to the previous state's records and units, when every bundle built has them; null: a new base. */
  patch: StatePatch | null;
}

/** Past this share of the base, a patch is folded into a new base. */
const PATCH_SHARE = 4;

export function writeOutputState(cacheDir: string, outRoot: string, previous: StoredState | null, next: NextState, owner: StateOwner = 'output'): void {
  const key = compilerFingerprint();
  let base = previous?.base;
  let patch = previous && next.patch ? mergedPatch(previous.patch, next.patch) : null;
  // A base in memory (watch) is written only when the cache is flushed: a new one each build keeps parsed units at hand.
  if (!base || !patch || patchWeight(patch) * PATCH_SHARE > base.weight || cacheIsResident()) {
    const bundles = { ...previous?.records.all(), ...next.bundles };
    const units: Record<string, Uint8Array | StoredUnits> = {};
    for (const bundle of Object.keys(previous?.base.units ?? {})) {
      const stored = currentUnits(previous, bundle);
      if (stored !== undefined) units[bundle] = stored;
    }
    for (const [bundle, stored] of next.units) units[bundle] = stored;
    let weight = 0;
    for (const record of Object.values(bundles)) weight += Object.keys(record).length;
    for (const stored of Object.values(units)) weight += stored instanceof Uint8Array ? 1 : stored.units.size;
    base = { id: randomUUID(), weight, bundles, units };
    patch = { bundles: new Map(), units: new Map() };
    writeCacheEntry(cacheDir, stateName(outRoot, owner), key, base, encodeBase);
  }
  const head: Head = { base: base.id, inputKey: next.inputKey, messages: next.messages, built: next.built, files: next.files, patch };
  writeCacheEntry(cacheDir, headName(outRoot, owner), key, head, encodeHead);
}

function encodeHead({ patch, ...head }: Head): StoredHead {
  return { ...head, bundles: [...patch.bundles].map(([bundle, changes]) => [bundle, Object.entries(changes)]), units: [...patch.units].map(([bundle, changes]) => [bundle, [...changes]]) };
}

/** `later`'s changes on top of `earlier`'s: for a file or unit both change, the later change. */
function mergedPatch(earlier: StatePatch, later: StatePatch): StatePatch {
  const bundles = new Map(earlier.bundles);
  for (const [bundle, changes] of later.bundles) bundles.set(bundle, { ...bundles.get(bundle), ...changes });
  const units = new Map(earlier.units);
  for (const [bundle, changes] of later.units) units.set(bundle, new Map([...(units.get(bundle) ?? []), ...changes]));
  return { bundles, units };
}

function patchWeight(patch: StatePatch): number {
  let weight = 0;
  for (const changes of patch.bundles.values()) weight += Object.keys(changes).length;
  for (const changes of patch.units.values()) weight += changes.size;
  return weight;
}

function encodeBase(base: StateBase): StoredBase {
  return {
    id: base.id,
    weight: base.weight,
    bundles: Object.fromEntries(Object.entries(base.bundles).map(([key, record]) => [key, record instanceof Uint8Array ? record : storedBytes(JSON.stringify(record))])),
    units: Object.fromEntries(Object.entries(base.units).map(([key, units]) => [key, units instanceof Uint8Array ? units : storedBytes(unitsText(units))])),
  };
}

/** A bundle's units as the state says, the patch applied: as stored (bytes) when it has none, else parsed; undefined when it has none or they do not read. */
function currentUnits(state: StoredState | null, bundle: string): Uint8Array | StoredUnits | undefined {
  const stored = state?.base.units[bundle];
  if (stored === undefined) return undefined;
  const patch = state!.patch.units.get(bundle);
  if (!patch) return stored;
  const parsed = stored instanceof Uint8Array ? parseUnits(storedText(stored)) : { salt: stored.salt, units: new Map(stored.units) };
  if (!parsed) return undefined;
  for (const [unit, files] of patch) {
    if (files === null) parsed.units.delete(unit);
    else parsed.units.set(unit, files);
  }
  return parsed;
}

/** A bundle's units as stored: JSON, the units as [key, files] pairs (parseUnits reads them back). */
export function unitsText(units: StoredUnits): string {
  return JSON.stringify({ salt: units.salt, units: [...units.units] });
}

/** Dropped before an output folder is touched, so a build cut short leaves nothing trusted. */
export function dropOutputState(cacheDir: string, outRoot: string): void {
  // The base alone is never read: without a head that names it, there is no state.
  removeCacheEntry(cacheDir, headName(outRoot));
}

/** The records of the bundles among `keys` that were found on disk exactly as the state says (bundlesOnDisk). */
export function trustedRecords(state: StoredState | null, onDisk: ReadonlySet<string>, keys: readonly string[]): Record<string, BundleRecord> {
  const trusted: Record<string, BundleRecord> = {};
  for (const key of keys) {
    const record = onDisk.has(key) ? state?.records.get(key) : undefined;
    if (record) trusted[key] = record;
  }
  return trusted;
}

/**
 * The last build's units of the trusted bundles, for emit. A bundle's units
 * are parsed when first asked for; units that do not read as the shape
 * emit stores are dropped whole (that bundle renders everything).
 */
export function unitSource(state: StoredState | null, trusted: Readonly<Record<string, BundleRecord>>, emissions?: EmissionMemo, heldBack?: ReadonlyMap<string, ReadonlySet<string>>): UnitSource {
  return {
    ...(emissions
      ? {
          emission: (bundle: string) => {
            const kept = emissions.get(bundle);
            return kept && trusted[bundle] !== undefined && kept.record === trusted[bundle] ? kept.emission : undefined;
          },
        }
      : {}),
    previous: (bundle) => {
      const record = trusted[bundle];
      const stored = record ? currentUnits(state, bundle) : undefined;
      if (!record || stored === undefined) return undefined;
      const units = stored instanceof Uint8Array ? parseUnits(storedText(stored)) : stored;
      const held = heldBack?.get(bundle);
      return units ? { units, record, ...(held ? { heldBack: held } : {}) } : undefined;
    },
  };
}

/** A stored finding list: absent when empty (pipeline.ts storedUnits). */
const findingList = (value: unknown) => value === undefined || Array.isArray(value);

/** A stored listed entry: absent for a file not listed (emit/virtual-tree.ts ListedEntry). */
const listedFact = (value: unknown) => {
  if (value === undefined) return true;
  const entry = value as Partial<ListedEntry> | null;
  return isObject(entry) && typeof entry.named === 'boolean' && Number.isSafeInteger(entry.bytes) && Number.isSafeInteger(entry.chars);
};

/** Whether a stored unit's files read as emit stores them (pipeline.ts storedUnits). */
function unitFiles(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const file of value as unknown[]) {
    const entry = file as Partial<ReusedFile> | null;
    const facts = entry?.facts;
    if (typeof entry?.path !== 'string' || !facts || typeof facts !== 'object' || !findingList(facts.leaks) || !findingList(facts.limits) || !listedFact(facts.listed)) return false;
  }
  return true;
}

export function parseUnits(text: string): StoredUnits | null {
  let value: { salt?: unknown; units?: unknown } | null;
  try {
    value = JSON.parse(text) as { salt?: unknown; units?: unknown } | null;
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || typeof value.salt !== 'string' || !Array.isArray(value.units)) return null;
  for (const pair of value.units as unknown[]) if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || !unitFiles(pair[1])) return null;
  return { salt: value.salt, units: new Map(value.units as [string, ReusedFile[]][]) };
}

/** Whether the state's build is still exactly on disk: every bundle it wrote was found as its record says. */
export function stillOnDisk(state: StoredState, onDisk: ReadonlySet<string>): boolean {
  return state.built.every((key) => onDisk.has(key));
}
