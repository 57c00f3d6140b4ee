// gsd-build install: a bundle built from the sources, or a release zip, through the bundle's installer.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { formatDiagnostic } from '../diagnostics.ts';
import { emitBundles } from '../pipeline.ts';
import { DEFAULT_TARGETS_DIR, loadTargets } from '../targets/load-targets.ts';
import { landingPolicies } from '../targets/landing-policy.ts';
import type { LandingPolicy } from '../../source/runtime/install/bundle-types.ts';
import { SCOPE_IDS, type ScopeId } from '../targets/target-types.ts';
import { parse, UsageError, type Io } from './args.ts';
import { HELP } from './help.ts';
import { compileFrom, profileOption, reportEmitted, selectBundles } from './common.ts';

export async function runInstall(args: string[], io: Io): Promise<number> {
  const values = parse(args, {
    target: { type: 'string' },
    scope: { type: 'string' },
    zip: { type: 'string' },
    'config-dir': { type: 'string' },
    'dry-run': { type: 'boolean' },
    force: { type: 'boolean' },
    raw: { type: 'boolean' },
    'public-key': { type: 'string' },
    'require-signature': { type: 'boolean' },
    profile: { type: 'string' },
    'allow-capability': { type: 'string', multiple: true },
  });
  if (values.help) {
    io.out(HELP.install);
    return 0;
  }
  if (!values.zip === !values.target) throw new UsageError('expected --target <id> or --zip <file>');
  if (!values.zip && (values['public-key'] !== undefined || values['require-signature'])) {
    throw new UsageError(`expected --public-key and --require-signature with --zip (a downloaded release), found them with --target (a bundle built here from the sources, which has no signature)`);
  }
  if (values.scope !== undefined && !SCOPE_IDS.includes(values.scope as ScopeId)) throw new UsageError(`expected --scope global or local, found "${values.scope}"`);
  const { bundleFromFiles } = await import('../../source/runtime/install/bundle.ts');
  const { install } = await import('../../source/runtime/install/install.ts');
  const { summary } = await import('../../source/runtime/commands/install.ts');
  const { checkBundleSignature, MANIFEST_SIGNATURE_FILE, pinnedKey } = await import('../../source/runtime/install/signature.ts');
  let files: Map<string, Uint8Array>;
  let label: string;
  /** With --target: the bundle built afresh for a profile, or null when its checks fail. */
  let built: ((names: string[]) => Map<string, Uint8Array> | null) | null = null;
  // Where the bundle may land comes from our target definitions, never from the zip.
  let policies: LandingPolicy[] = [];
  let signature: import('../../source/runtime/install/signature.ts').SignatureReport;
  if (values.zip) {
    const { readZip } = await import('../release/read-zip.ts');
    let entries;
    try {
      entries = await readZip(await readFile(values.zip));
    } catch (error) {
      io.err(`gsd-build: ${values.zip}: refused: ${(error as Error).message}; nothing was written`);
      return 1;
    }
    files = new Map(entries.filter((entry) => !entry.directory).map((entry) => [entry.name.slice(entry.name.indexOf('/') + 1), entry.contents]));
    label = values.zip;
    const loaded = await loadTargets(values.targets ?? DEFAULT_TARGETS_DIR);
    if (loaded.diagnostics.length > 0) {
      loaded.diagnostics.forEach((d) => io.err(formatDiagnostic(d, values.targets ?? 'targets')));
      return 1;
    }
    policies = landingPolicies(loaded.targets);
    // Checked against this checkout's copy of the key, before anything is written;
    // the manifest it signs lists every file's sha256, which bundleFromFiles checks next.
    const manifestBytes = files.get('gsd-file-manifest.json');
    const signatureBytes = files.get(MANIFEST_SIGNATURE_FILE);
    try {
      const pinned = values['public-key'] !== undefined ? pinnedKey(values['public-key'], process.cwd()) : null;
      signature = manifestBytes
        ? checkBundleSignature({ label, manifestBytes, signatureText: signatureBytes ? Buffer.from(signatureBytes).toString('utf8') : null, pinned, require: values['require-signature'] ?? false })
        : { status: 'none', summary: 'signature: none' };
    } catch (error) {
      const reason = (error as { reason?: string }).reason;
      if (reason === undefined) throw error;
      io.err(`gsd-build: ${(error as Error).message}`);
      return reason === 'invalid-args' ? 2 : 1;
    }
  } else {
    const compiled = await compileFrom(values, io);
    if (!compiled) return 1;
    const target = compiled.targets.find((candidate) => candidate.definition.id === values.target);
    const scope = (values.scope as ScopeId | undefined) ?? (target?.definition.scopes.global ? 'global' : 'local');
    const selections = selectBundles(compiled, [values.target!], scope, false);
    const profileNames = profileOption(values.profile, compiled);
    built = (names: string[]) => {
      const { bundles, diagnostics } = emitBundles(compiled, selections, names);
      if (!reportEmitted(diagnostics, io, 'bundle')) return null;
      const tree = bundles.get(`${values.target}/${scope}`)!;
      return new Map([...tree].map(([file, entry]) => [file, typeof entry.contents === 'string' ? Buffer.from(entry.contents, 'utf8') : entry.contents]));
    };
    const first = built(profileNames);
    if (!first) return 1;
    files = first;
    label = `${values.target}/${scope}`;
    signature = { status: 'none', summary: 'signature: none — built here from the sources, not a download' };
    policies = landingPolicies(compiled.targets);
  }
  const run = (bundleFiles: Map<string, Uint8Array>, profile: string | undefined) =>
    install(bundleFromFiles(bundleFiles, label), {
      home: process.env.HOME || os.homedir(),
      cwd: process.cwd(),
      env: process.env,
      now: new Date(),
      ...(values.scope ? { scope: values.scope as ScopeId } : {}),
      ...(values['config-dir'] !== undefined ? { configDir: values['config-dir'] } : {}),
      dryRun: values['dry-run'] ?? false,
      force: values.force ?? false,
      ...(profile !== undefined ? { profile } : {}),
      ...(values['allow-capability'] ? { allowCapabilities: values['allow-capability'] } : {}),
      policies,
    });
  try {
    let report;
    try {
      report = run(files, values.profile);
    } catch (error) {
      // Built from the sources, an update keeps the installed profile: build that one instead.
      const installed = (error as { extra?: { installedProfile?: unknown } }).extra?.installedProfile;
      if (!built || values.profile !== undefined || typeof installed !== 'string') throw error;
      const again = built(installed.split(','));
      if (!again) return 1;
      report = run(again, undefined);
    }
    const data = { ...report, signature };
    io.out(values.raw ? summary(data) : JSON.stringify(data, null, 2));
    return 0;
  } catch (error) {
    const reason = (error as { reason?: string }).reason;
    if (reason === undefined) throw error;
    io.err(`gsd-build: ${(error as Error).message}`);
    return reason === 'invalid-args' ? 2 : 1;
  }
}
