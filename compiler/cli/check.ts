// gsd-build check: a build of every bundle against the goldens.
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { allBundles, emitBundles } from '../pipeline.ts';
import { writeTrees } from '../write/write-tree.ts';
import { compareWithGolden, formatGoldenFinding, goldenTrees, readGoldenFiles } from '../golden/compare-golden.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { parse, type Io } from './args.ts';
import { HELP } from './help.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
import { buildInputKey } from '../incremental.ts';
import { hashParts, readCacheEntry, writeCacheEntry } from '../cache/build-cache.ts';
import { DEFAULT_TARGETS_DIR } from '../targets/load-targets.ts';
import { listFiles } from '../util/list-files.ts';
import { SETTLED_MS } from '../util/settled.ts';
import { cacheDirOf, compileFrom, inputsKeyed, reportEmitted, sourceOf } from './common.ts';

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
const passName = (goldenRoot: string) => `check-${hashParts([path.resolve(goldenRoot)]).slice(0, 24)}`;

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
  // A check with the same inputs as the last one that passed, against goldens not touched since, passes again.
  const stamp = cacheDir && !values.update && inputsKeyed(values) ? goldenStamp(goldenRoot) : null;
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
  const { bundles, diagnostics } = emitBundles(compiled, allBundles(compiled.targets));
  if (!reportEmitted(diagnostics, recording, goldenRoot)) return 1;
  if (values.update) {
    await replaceGolden(goldenRoot, bundles);
    io.out(`updated ${goldenRoot}/ with ${bundles.size} bundle(s); review the diff before committing`);
    return 0;
  }
  const findings = compareWithGolden(bundles, await readGoldenFiles(goldenRoot));
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
 * The goldens as they stand: every file's path with its inode, size, mtime and
 * ctime. Null, so nothing is taken on trust, while any of them changed in the
 * last SETTLED_MS (a second change within the file system's clock tick could
 * leave all four as they were) or the folder holds anything but files and
 * folders.
 */
function goldenStamp(goldenRoot: string): string | null {
  const others: string[] = [];
  const paths = listFiles(goldenRoot, () => false, others);
  if (others.length > 0) return null;
  const settledBefore = BigInt(Date.now() - SETTLED_MS) * 1_000_000n;
  const parts: string[] = [];
  for (const file of paths) {
    const stats = lstatSync(path.join(goldenRoot, file), { bigint: true });
    if (stats.mtimeNs >= settledBefore || stats.ctimeNs >= settledBefore) return null;
    parts.push(file, `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`);
  }
  return hashParts(parts);
}

/** The goldens are exactly the bundles: a bundle folder per target and scope, nothing else. */
export async function replaceGolden(goldenRoot: string, bundles: ReadonlyMap<string, VirtualTree>): Promise<void> {
  const { rm } = await import('node:fs/promises');
  const existing = await readGoldenFiles(goldenRoot);
  const keep = new Set(bundles.keys());
  for (const file of existing.keys()) {
    const key = file.split('/').slice(0, 2).join('/');
    if (!keep.has(key)) await rm(path.join(goldenRoot, file), { force: true });
  }
  await writeTrees(goldenRoot, goldenTrees(bundles));
}
