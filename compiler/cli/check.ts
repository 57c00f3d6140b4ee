// gsd-build check: a fresh build against the goldens.
import path from 'node:path';
import { allBundles, emitBundles } from '../pipeline.ts';
import { writeTrees } from '../write/write-tree.ts';
import { compareWithGolden, formatGoldenFinding, goldenTrees, readGoldenFiles } from '../golden/compare-golden.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { parse, type Io } from './args.ts';
import { HELP } from './help.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
import { cacheDirOf, compileFrom, reportEmitted, sourceOf } from './common.ts';

export async function runCheck(args: string[], io: Io): Promise<number> {
  const values = parse(args, { update: { type: 'boolean' }, golden: { type: 'string' }, cache: { type: 'string' }, 'no-cache': { type: 'boolean' } });
  if (values.help) {
    io.out(HELP.check);
    return 0;
  }
  // The corpus is read through the build cache, as a build reads it: after an edit only the changed documents are parsed.
  const cacheDir = cacheDirOf(values);
  const compiled = await compileFrom(values, io, cacheDir ? { cacheDir, files: await readSourceTree(sourceOf(values)) } : {});
  if (!compiled) return 1;
  const goldenRoot = values.golden ?? 'golden';
  const { bundles, diagnostics } = emitBundles(compiled, allBundles(compiled.targets));
  if (!reportEmitted(diagnostics, io, goldenRoot)) return 1;
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
  io.out(`golden check passed: ${bundles.size} bundle(s) match ${goldenRoot}/`);
  return 0;
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
