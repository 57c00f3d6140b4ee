// gsd-build check, once check.ts has found no recorded pass to replay (and
// loads this module only then): compile, emit, and compare with the goldens,
// or --update them.
import path from 'node:path';
import { allBundles, bundleKey, emitBundles } from '../pipeline.ts';
import { writeTrees } from '../write/write-tree.ts';
import { compareWithGolden, formatGoldenFinding, goldenPaths, goldenTrees } from '../golden/compare-golden.ts';
import { byteLengthOf, fileMode, type VirtualTree } from '../emit/virtual-tree.ts';
import { digestOf } from '../emit/bundle-manifest.ts';
import type { BundleRecord } from '../write/write-tree.ts';
import type { Io } from './args.ts';
import { readOutputState, unitSource, writeOutputState, type StoredState } from '../incremental.ts';
import { hashParts, readCacheEntry, writeCacheEntry } from '../cache/build-cache.ts';
import type { IndexedGoldens } from '../golden/golden-index.ts';
import type { SourceFile } from '../load/read-source-tree.ts';
import { compileFrom, reportEmitted } from './common.ts';

/** What check.ts found before deciding there is something to compare. */
export interface CheckContext {
  goldenRoot: string;
  cacheDir: string | null;
  /** The source tree, read for the key (with a cache). */
  files: SourceFile[] | undefined;
  /** The goldens' paths and digests (null with --update, which reads none). */
  goldens: IndexedGoldens | null;
  /** Where a pass is recorded, under its key; null when this check's inputs are not all keyed. */
  passSlot: { name: string; key: string } | null;
}

/** What a passing check printed, kept under its inputs and the goldens' stamp: the same check again only prints it (check.ts). */
export interface CheckPass {
  out: string[];
  err: string[];
}

export async function checkAgainstGoldens(
  values: { update?: boolean | undefined; source?: string | undefined; targets?: string | undefined; layout?: string | undefined; capability?: string[] | undefined },
  io: Io,
  { goldenRoot, cacheDir, files, goldens, passSlot }: CheckContext,
): Promise<number> {
  const printed: CheckPass = { out: [], err: [] };
  const recording: Io = { out: (text) => (printed.out.push(text), io.out(text)), err: (text) => (printed.err.push(text), io.err(text)) };
  const compiled = await compileFrom(values, recording, cacheDir ? { cacheDir, files: files! } : {});
  if (!compiled) return 1;
  const selections = allBundles(compiled.targets);
  // Each bundle is emitted again from the units the last check emitted (kept by the digests of their inputs): only the
  // units of changed documents are rendered, the others keep that emission's digests. --update writes every file: all rendered.
  const previous = cacheDir && !values.update ? readOutputState(cacheDir, goldenRoot, 'check') : null;
  const differed = cacheDir && previous ? readCacheEntry(cacheDir, differedName(goldenRoot), DIFFERED_FORMAT, decodeDiffered) : null;
  const emitted = emitBundles(compiled, selections, undefined, cacheDir ? unitSource(previous, recordsLess(previous?.records.all() ?? {}, differed ?? [])) : undefined);
  const { bundles, diagnostics } = emitted;
  if (!reportEmitted(diagnostics, recording, goldenRoot)) return 1;
  if (cacheDir) storeEmission(cacheDir, goldenRoot, previous, emitted);
  if (values.update) {
    await replaceGolden(goldenRoot, bundles);
    io.out(`updated ${goldenRoot}/ with ${bundles.size} bundle(s); review the diff before committing`);
    return 0;
  }
  const golden = goldens!.files;
  let findings = compareWithGolden(bundles, golden);
  // A file that differs but was not rendered has no text for its diff: its bundle is rendered whole, and compared again.
  const unrendered = new Set(findings.filter((finding) => finding.kind === 'differs' && finding.diff === undefined).map((finding) => finding.path.split('/').slice(0, 2).join('/')));
  if (unrendered.size > 0) {
    for (const [key, tree] of emitBundles(compiled, selections.filter((selection) => unrendered.has(bundleKey(selection)))).bundles) bundles.set(key, tree);
    findings = compareWithGolden(bundles, golden);
  }
  goldens!.save();
  const differs = findings.filter((finding) => finding.kind === 'differs').map((finding) => finding.path);
  if (cacheDir && (differed === null || differed.join('\n') !== differs.join('\n'))) writeCacheEntry(cacheDir, differedName(goldenRoot), DIFFERED_FORMAT, differs);
  findings.forEach((finding) => io.err(formatGoldenFinding(finding)));
  if (findings.length > 0) {
    io.err(`${findings.length} golden file(s) out of date; run 'gsd-build check --update' and review the diff.`);
    return 1;
  }
  recording.out(`golden check passed: ${bundles.size} bundle(s) match ${goldenRoot}/`);
  if (passSlot !== null) writeCacheEntry(cacheDir!, passSlot.name, passSlot.key, printed);
  return 0;
}

/**
 * The files that differed from their goldens at the last comparison
 * (`<target>/<scope>/<file>`). The next check renders their units again
 * rather than taking them back without their text: a finding shows the
 * file's diff, and a bundle with a file to diff but no text is emitted a
 * second time, whole. Any list is safe to use: a unit rendered again is the
 * unit taken back, and a file missed has its bundle emitted again.
 */
const differedName = (goldenRoot: string) => `check-differed-${hashParts([path.resolve(goldenRoot)]).slice(0, 24)}`;
const DIFFERED_FORMAT = 'check-differed/1';
const decodeDiffered = (stored: unknown): string[] | null => (Array.isArray(stored) && stored.every((entry) => typeof entry === 'string') ? stored : null);

/** `records` without the files named (`<target>/<scope>/<file>`): a record that loses none is kept as it is. */
export function recordsLess(records: Readonly<Record<string, BundleRecord>>, paths: readonly string[]): Readonly<Record<string, BundleRecord>> {
  if (paths.length === 0) return records;
  const kept = { ...records };
  for (const name of paths) {
    const at = name.indexOf('/', name.indexOf('/') + 1);
    const key = name.slice(0, at);
    const file = name.slice(at + 1);
    const record = kept[key];
    if (at === -1 || record === undefined || !Object.hasOwn(record, file)) continue;
    // Copied at the first file it loses (the records read are not changed).
    const copy = record === records[key] ? { ...record } : record;
    delete copy[file];
    kept[key] = copy;
  }
  return kept;
}

/**
 * Stores what this check emitted (check-owned state, incremental.ts): each
 * bundle's units and a record of its files' digests, sizes and modes. A
 * patch of the last state when every bundle was emitted from it, else whole.
 */
function storeEmission(cacheDir: string, goldenRoot: string, previous: StoredState | null, emitted: ReturnType<typeof emitBundles>): void {
  const records: Record<string, BundleRecord> = {};
  let files = 0;
  for (const [key, tree] of emitted.bundles) {
    const record: BundleRecord = {};
    for (const [file, entry] of tree) record[file] = [digestOf(entry), byteLengthOf(entry), fileMode(entry), 0];
    records[key] = record;
    files += tree.size;
  }
  const keys = [...emitted.bundles.keys()];
  const patched = previous !== null && keys.every((key) => emitted.unitChanges.has(key) && previous.records.get(key) !== undefined);
  const patch = patched ? { bundles: new Map(keys.map((key) => [key, recordChanges(previous.records.get(key)!, records[key]!)])), units: emitted.unitChanges } : null;
  writeOutputState(cacheDir, goldenRoot, previous, { inputKey: '', messages: { out: [], err: [] }, bundles: records, units: emitted.units, built: keys, files, patch }, 'check');
}

/** What changed from one record to the next: each entry added or changed, and null for each one gone. */
function recordChanges(before: BundleRecord, after: BundleRecord): Record<string, BundleRecord[string] | null> {
  const changes: Record<string, BundleRecord[string] | null> = {};
  for (const [file, entry] of Object.entries(after)) {
    const was = before[file];
    if (!was || was.some((value, index) => value !== entry[index])) changes[file] = entry;
  }
  for (const file of Object.keys(before)) if (!(file in after)) changes[file] = null;
  return changes;
}

/** The goldens are exactly the bundles: a bundle folder per target and scope, nothing else. */
export async function replaceGolden(goldenRoot: string, bundles: ReadonlyMap<string, VirtualTree>): Promise<void> {
  const { rm } = await import('node:fs/promises');
  const keep = new Set(bundles.keys());
  const { files, strays } = goldenPaths(goldenRoot);
  // An entry that is not a file goes as a stray file does (inside a bundle kept, its folder is replaced whole).
  for (const file of [...files, ...strays.map((stray) => stray.file)]) {
    const key = file.split('/').slice(0, 2).join('/');
    if (!keep.has(key)) await rm(path.join(goldenRoot, file), { force: true });
  }
  await writeTrees(goldenRoot, goldenTrees(bundles));
}
