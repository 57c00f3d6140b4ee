// gsd-build release: reproducible zips of every bundle, signed when given a key.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { allBundles, emitBundles } from '../pipeline.ts';
import { writeTrees } from '../write/write-tree.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { buildRelease } from '../release/release.ts';
import { parse, type Io } from './args.ts';
import { HELP } from './help.ts';
import { compileFrom, reportEmitted } from './common.ts';
import { marketplaceTree } from './plugin.ts';

export async function runRelease(args: string[], io: Io): Promise<number> {
  const values = parse(args, { out: { type: 'string' }, 'sign-key': { type: 'string' } });
  if (values.help) {
    io.out(HELP.release);
    return 0;
  }
  const started = performance.now();
  const { loadSigningKey, SigningKeyError } = await import('../release/signing.ts');
  let signer: import('../release/signing.ts').Signer | null = null;
  const keyText = values['sign-key'] !== undefined ? await readKeyFile(values['sign-key'], io) : process.env.GSD_SIGNING_KEY;
  if (keyText === null) return 1;
  if (keyText !== undefined && keyText !== '') {
    try {
      signer = loadSigningKey(keyText, values['sign-key'] ?? 'GSD_SIGNING_KEY');
    } catch (error) {
      if (!(error instanceof SigningKeyError)) throw error;
      io.err(`gsd-build: ${error.message}; nothing was written`);
      return 1;
    }
    const { builtInKey } = await import('../../source/runtime/install/signature.ts');
    const project = builtInKey();
    if (project.keyId !== signer.keyId) {
      io.err(`gsd-build: warning: signing with key id ${signer.keyId}, not the project's key ${project.keyId} (compiler/data/release-signing.pub): installers built from these sources will refuse these zips unless given --public-key`);
    }
  }
  const compiled = await compileFrom(values, io);
  if (!compiled) return 1;
  const out = values.out ?? path.join('dist', 'release');
  const { bundles, diagnostics } = emitBundles(compiled, allBundles(compiled.targets));
  // Each profile the corpus releases beside full: the same bundles, keyed <target>/<scope>/<profile>.
  for (const profile of compiled.profiles?.profiles.release ?? []) {
    const extra = emitBundles(compiled, allBundles(compiled.targets), [profile]);
    diagnostics.push(...extra.diagnostics);
    for (const [key, tree] of extra.bundles) bundles.set(`${key}/${profile}`, tree);
  }
  if (!reportEmitted(diagnostics, io, out)) return 1;
  // The Claude Code marketplace, from the full claude/global bundle (gsd-build plugin writes the same tree unzipped).
  const release = await buildRelease(bundles, compiled.version, signer, marketplaceTree(compiled, bundles));
  const tree: VirtualTree = new Map([...release.outputs].map(([file, contents]) => [file, { contents }]));
  await writeTrees(path.dirname(out), new Map([[path.basename(out), tree]]));
  const bytes = release.zips.reduce((sum, zip) => sum + zip.bytes, 0);
  const signed = release.keyId
    ? `signed with key id ${release.keyId} (SHA256SUMS.minisig, and gsd-file-manifest.json.minisig in each zip)`
    : 'unsigned: no --sign-key or GSD_SIGNING_KEY, so SHA256SUMS proves integrity only, not origin';
  io.out(`released ${release.zips.length} zip(s)${release.plugin ? ` and the Claude Code plugin ${release.plugin.file}` : ''}, ${bytes + (release.plugin?.bytes ?? 0)} bytes, into ${out}/ in ${Math.round(performance.now() - started)} ms (SHA256SUMS, release-manifest.json); ${signed}`);
  return 0;
}

export async function readKeyFile(file: string, io: Io): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    io.err(`gsd-build: --sign-key: expected a readable secret key file, found none at ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing was written`);
    return null;
  }
}
