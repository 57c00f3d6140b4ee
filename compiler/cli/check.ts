// gsd-build check: a build of every bundle against the goldens.
import path from 'node:path';
import { allBundles, bundleKey, emitBundles } from '../pipeline.ts';
import { writeTrees } from '../write/write-tree.ts';
import { compareWithGolden, formatGoldenFinding, goldenPaths, goldenTrees } from '../golden/compare-golden.ts';
import { byteLengthOf, fileMode, type VirtualTree } from '../emit/virtual-tree.ts';
import { digestOf } from '../emit/bundle-manifest.ts';
import type { BundleRecord } from '../write/write-tree.ts';
import { parse, type Io } from './args.ts';
import { HELP } from './help.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
import { buildInputKey, readOutputState, unitSource, writeOutputState, type StoredState } from '../incremental.ts';
import { hashParts, readCacheEntry, writeCacheEntry } from '../cache/build-cache.ts';
import { DEFAULT_TARGETS_DIR } from '../targets/load-targets.ts';
import { indexedGoldens } from '../golden/golden-index.ts';
import { formatDiagnostic } from '../diagnostics.ts';
import { compileFrom, reportEmitted } from './common.ts';
import { cacheDirOf, inputsKeyed, sourceOf } from './build-inputs.ts';

/** What a passing check printed, kept under its inputs and the goldens' stamp: the same check again only prints it. */
interface CheckPass {
  out: string[];
  err: string[];
}
const isLines = (value: unknown): value is string[] => Array.isArray(value) && value.every((line) => typeof line === 'string');
const checkPass = (stored: unknown): CheckPass | null => {
  const pass = stored as Partial<CheckPass> | null;
  return pass !== null && typeof pass === 'object' && isLines(pass.out) && isLines(pass.err) ? { out: pass.out, err: pass.err } : null;
};
/** The cache slot of the last passing check of a golden folder. */
const passName = (goldenRoot: string) => `check-pass-${hashParts([path.resolve(goldenRoot)]).slice(0, 24)}`;

export async function runCheck(args: string[], io: Io): Promise<number> {
  const values = parse(args, { update: { type: 'boolean' }, golden: { type: 'string' }, cache: { type: 'string' }, 'no-cache': { type: 'boolean' } });
  if (values.help) {
    io.out(HELP.check);
    return 0;
  }
  const goldenRoot = values.golden ?? 'golden';
  // The corpus is read through the build cache, as a build reads it: after an edit only the changed documents are parsed.
  const cacheDir = cacheDirOf(values);
  const files = cacheDir ? await readSourceTree(sourceOf(values)) : undefined;
  // The goldens' stamps, read first: a check with the same inputs as the last one that passed, against goldens not
  // touched since, passes again. Their digests come from the cache where a file's stamp is the one indexed.
  const goldens = values.update ? null : indexedGoldens(goldenRoot, cacheDir);
  if (goldens && goldens.strays.length > 0) {
    goldens.strays.forEach((d) => io.err(formatDiagnostic(d, goldenRoot)));
    io.err(`${goldens.strays.length} error(s) in ${goldenRoot}/; nothing was checked ('gsd-build check --update' removes them).`);
    return 1;
  }
  const stamp = cacheDir && goldens && (await inputsKeyed(values)) ? goldens.stamp : null;
  const passKey = stamp === null ? null : `${await buildInputKey(files!, values.targets ?? DEFAULT_TARGETS_DIR, { verb: 'check', layout: values.layout ?? null })} ${stamp}`;
  const passed = passKey === null ? null : readCacheEntry(cacheDir!, passName(goldenRoot), passKey, checkPass);
  if (passed) {
    passed.err.forEach((line) => io.err(line));
    passed.out.forEach((line) => io.out(line));
    return 0;
  }
  const printed: CheckPass = { out: [], err: [] };
  const recording: Io = { out: (text) => (printed.out.push(text), io.out(text)), err: (text) => (printed.err.push(text), io.err(text)) };
  const compiled = await compileFrom(values, recording, cacheDir ? { cacheDir, files: files! } : {});
  if (!compiled) return 1;
  const selections = allBundles(compiled.targets);
  // Each bundle is emitted again from the units the last check emitted (kept by the digests of their inputs): only the
  // units of changed documents are rendered, the others keep that emission's digests. --update writes every file: all rendered.
  const previous = cacheDir && !values.update ? readOutputState(cacheDir, goldenRoot, 'check') : null;
  const emitted = emitBundles(compiled, selections, undefined, cacheDir ? unitSource(previous, previous?.records.all() ?? {}) : undefined);
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
  findings.forEach((finding) => io.err(formatGoldenFinding(finding)));
  if (findings.length > 0) {
    io.err(`${findings.length} golden file(s) out of date; run 'gsd-build check --update' and review the diff.`);
    return 1;
  }
  recording.out(`golden check passed: ${bundles.size} bundle(s) match ${goldenRoot}/`);
  if (passKey !== null) writeCacheEntry(cacheDir!, passName(goldenRoot), passKey, printed);
  return 0;
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
