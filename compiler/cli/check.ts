// gsd-build check: a build of every bundle against the goldens.
import path from 'node:path';
import { parse, type Io } from './args.ts';
import { HELP } from './help.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
import { buildInputKey } from '../incremental.ts';
import { hashParts, readCacheEntry } from '../cache/build-cache.ts';
import { DEFAULT_TARGETS_DIR } from '../locations.ts';
import { indexedGoldens } from '../golden/golden-index.ts';
import { formatDiagnostic } from '../diagnostics.ts';
import { cacheDirOf, inputsKeyed, sourceOf } from './build-inputs.ts';
import { isTextList } from '../util/text.ts';
import type { CheckPass } from './check-run.ts';

const checkPass = (stored: unknown): CheckPass | null => {
  const pass = stored as Partial<CheckPass> | null;
  return pass !== null && typeof pass === 'object' && isTextList(pass.out) && isTextList(pass.err) ? { out: pass.out, err: pass.err } : null;
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
  const files = cacheDir ? await readSourceTree(sourceOf(values), { cacheDir }) : undefined;
  // The goldens' stamps, read first: a check with the same inputs as the last one that passed, against goldens not
  // touched since, passes again. Their digests come from the cache where a file's stamp is the one indexed.
  const goldens = indexedGoldens(goldenRoot, cacheDir);
  // --update removes them (check-run.ts updateGolden).
  if (!values.update && goldens.strays.length > 0) {
    goldens.strays.forEach((d) => io.err(formatDiagnostic(d, goldenRoot)));
    io.err(`${goldens.strays.length} error(s) in ${goldenRoot}/; nothing was checked ('gsd-build check --update' removes them).`);
    return 1;
  }
  const stamp = cacheDir && !values.update && (await inputsKeyed(values)) ? goldens.stamp : null;
  const passKey = stamp === null ? null : `${await buildInputKey(files!, values.targets ?? DEFAULT_TARGETS_DIR, { verb: 'check', layout: values.layout ?? null })} ${stamp}`;
  const passed = passKey === null ? null : readCacheEntry(cacheDir!, passName(goldenRoot), passKey, checkPass);
  if (passed) {
    passed.err.forEach((line) => io.err(line));
    passed.out.forEach((line) => io.out(line));
    return 0;
  }
  // Something to compare: the compiler's stages are loaded only now (a pass replayed needs none of them).
  const { checkAgainstGoldens } = await import('./check-run.ts');
  return checkAgainstGoldens(values, io, { goldenRoot, cacheDir, files, goldens, passSlot: passKey === null ? null : { name: passName(goldenRoot), key: passKey } });
}
