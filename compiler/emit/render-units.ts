// Render units: the pieces of a bundle each rendered from one input (a node,
// a built file) for one bundle, so an incremental build (compiler/incremental.ts)
// can reuse a unit the last build rendered from the same inputs instead of
// rendering it again. A unit's key hashes the bundle's salt (everything but
// the unit's own input: the compiler, every target definition, the scope, the
// version, the layout's exemptions) with the unit's kind, place and input:
// the salt is stored once per bundle, and units of another salt are not read.
import type { ManifestParts } from './bundle-manifest.ts';
import type { FileFacts, VirtualTree } from './virtual-tree.ts';

/** A file the last build rendered for a unit, as the next build takes it back: no bytes, every fact. */
export interface ReusedFile {
  path: string;
  executable?: true;
  source?: string;
  generated?: true;
  verbatim?: true;
  facts: FileFacts;
}

/** What emit needs to reuse units of one bundle, and what it reports back. */
export interface UnitReuse {
  /** The files of a unit of the last build, when every one is still on disk as it wrote them; left as stored. */
  lookup(key: string): ReusedFile[] | undefined;
  /** A reused file's facts, completed with its digest and size from the bundle's record. */
  factsOf(file: ReusedFile): FileFacts;
  /** Filled by emit: unit key → the paths of its files. */
  made: Map<string, string[]>;
}

/**
 * What a bundle's last emission in this process left, for the next build's
 * delta (a resident build: watch keeps it while the bundle's record is the one
 * that emission was written with).
 */
export interface LastEmission {
  /** The tree without its manifest and README, in path order, every file as the next build reuses it (no bytes, every fact). */
  body: VirtualTree;
  /** Unit key → its files, as stored for the next build (pipeline.ts StoredUnits). */
  units: ReadonlyMap<string, ReusedFile[]>;
  /** Node path → the keys of its units. */
  keysByNode: ReadonlyMap<string, string[]>;
  /** The files emitted outside units (section manifest, VERSION, hook and config files, listings), in order. */
  putPaths: readonly string[];
  /** What its manifest was made of (bundle-manifest.ts). */
  manifest?: ManifestParts;
}

/** A build on top of a last emission: the nodes whose units are keyed and rendered again (their inputs may have changed). */
export interface BundleDelta {
  last: LastEmission;
  redone: ReadonlySet<string>;
}

/** Filled by emit for the next build's delta. */
export interface EmissionShape {
  keysByNode?: Map<string, string[]>;
  putPaths?: string[];
  /** A delta's files emitted anew (null: the whole tree is new). */
  changed?: string[] | null;
  /** A delta's tree without its manifest and README: the last emission's with the files emitted anew laid over it. */
  body?: VirtualTree;
  manifest?: ManifestParts;
}
