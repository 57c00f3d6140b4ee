// gsd-build check, once check.ts has found no recorded pass to replay (and
// loads this module only then): compile, emit, and compare with the goldens,
// or --update them.
import path from 'node:path';
import { allBundles, bundleKey, emitBundles } from '../pipeline.ts';
import { compareEntries, formatGoldenFinding, goldenEntries, type GoldenFinding } from '../golden/compare-golden.ts';
import { digestOf, byteLengthOf, fileMode, type TreeFile } from '../emit/virtual-tree.ts';
import { bytesOf } from '../emit/bundle-manifest.ts';
import { removeEmptyFolders, replaceFile } from '../write/output-state.ts';
import { compareText } from '../diagnostics.ts';
import { isTextList } from '../util/text.ts';
import { lstatSync, rmSync } from 'node:fs';
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
  /** The goldens' paths, sizes, modes and digests. */
  goldens: IndexedGoldens;
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
  // units of changed documents are rendered, the others keep that emission's digests.
  const previous = cacheDir ? readOutputState(cacheDir, goldenRoot, 'check') : null;
  // The files that differed last time are held back: their units are rendered, for the diffs (or the update's writes).
  const differed = cacheDir && previous ? readCacheEntry(cacheDir, differedName(goldenRoot), DIFFERED_FORMAT, (stored) => (isTextList(stored) ? stored : null)) : null;
  const emitted = emitBundles(compiled, selections, undefined, cacheDir ? unitSource(previous, previous?.records.all() ?? {}, undefined, filesByBundle(differed ?? [])) : undefined);
  const { bundles, diagnostics } = emitted;
  if (!reportEmitted(diagnostics, recording, goldenRoot)) return 1;
  if (cacheDir) storeEmission(cacheDir, goldenRoot, previous, emitted);
  const golden = goldens.files;
  let entries = goldenEntries(bundles);
  let findings = compareEntries(entries, golden);
  // A file that differs, or with --update one to write, has no text when it was taken back from the last emission: its
  // bundle is emitted again whole, and compared again.
  const untold = new Set(findings.filter((finding) => finding.kind !== 'orphaned' && entries.get(finding.path)!.reused && (values.update || finding.kind === 'differs')).map((finding) => finding.path.split('/').slice(0, 2).join('/')));
  if (untold.size > 0) {
    for (const [key, tree] of emitBundles(compiled, selections.filter((selection) => untold.has(bundleKey(selection)))).bundles) bundles.set(key, tree);
    entries = goldenEntries(bundles);
    findings = compareEntries(entries, golden);
  }
  goldens.save();
  const differs = findings.filter((finding) => finding.kind === 'differs').map((finding) => finding.path);
  const settled = values.update ? [] : differs;
  if (cacheDir && (differed === null || differed.join('\n') !== settled.join('\n'))) writeCacheEntry(cacheDir, differedName(goldenRoot), DIFFERED_FORMAT, settled);
  if (values.update) {
    const { written, removed } = await updateGolden(goldenRoot, entries, findings, goldens);
    io.out(`updated ${goldenRoot}/ (${written} file(s) written, ${removed} removed) to match ${bundles.size} bundle(s); review the diff before committing`);
    return 0;
  }
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

/** Paths under the golden root (`<target>/<scope>/<file>`) as each bundle's files. */
export function filesByBundle(paths: readonly string[]): Map<string, Set<string>> {
  const files = new Map<string, Set<string>>();
  for (const name of paths) {
    const at = name.indexOf('/', name.indexOf('/') + 1);
    if (at === -1) continue;
    const key = name.slice(0, at);
    let set = files.get(key);
    if (!set) files.set(key, (set = new Set()));
    set.add(name.slice(at + 1));
  }
  return files;
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

/**
 * Makes the goldens exactly the bundles (a bundle folder per target and
 * scope, nothing else), touching only what differs: each entry that is not a
 * file or a link to one and each orphaned file is removed (and the folders it
 * leaves empty), then each file that differs, is missing, has the other mode
 * or is a link is written (renamed into place, never written through a link).
 */
async function updateGolden(goldenRoot: string, entries: ReadonlyMap<string, TreeFile>, findings: readonly GoldenFinding[], goldens: IndexedGoldens): Promise<{ written: number; removed: number }> {
  const removed = [...goldens.strays.map((stray) => stray.file), ...findings.filter((finding) => finding.kind === 'orphaned').map((finding) => finding.path)];
  for (const file of removed) rmSync(path.join(goldenRoot, file), { force: true });
  await removeEmptyFolders(goldenRoot, removed);
  const written = new Set(findings.filter((finding) => finding.kind !== 'orphaned').map((finding) => finding.path));
  for (const link of goldens.links) if (entries.has(link)) written.add(link);
  for (const file of [...written].sort(compareText)) {
    const target = path.join(goldenRoot, file);
    // A folder where the file goes holds no golden file (each was orphaned, and removed above): it goes whole.
    if (lstatSync(target, { throwIfNoEntry: false })?.isDirectory()) rmSync(target, { recursive: true, force: true });
    const entry = entries.get(file)!;
    replaceFile(target, bytesOf(entry), fileMode(entry));
  }
  return { written: written.size, removed: removed.length };
}
