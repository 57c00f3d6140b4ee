// install, uninstall, reapply-patches: put the bundle this gsd-tools came with into place,
// take an install out again, or put back the edits an update saved. Loaded only for these verbs (bundled apart,
// as gsd-core/bin/gsd-install.cjs), so no other command pays for its code.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Handler } from '../cli/handler.ts';
import { refused, usage } from '../core/errors.ts';
import { bundleFromDir, findBundleDir, MANIFEST_FILE, parseManifest, sha256 } from '../install/bundle.ts';
import { hasInstallState, install, INSTALLED_FILE, resolvePlacement, uninstall, type Report } from '../install/install.ts';
import { checkBundleSignature, MANIFEST_SIGNATURE_FILE, pinnedKey, type PublicKey, type SignatureReport } from '../install/signature.ts';
import type { Invocation } from '../cli/parse.ts';
import { ownLandingPolicies } from '../core/bundle-facts.ts';
import { reapplyPatches, reapplySummary } from '../install/reapply.ts';

function scopeOf(inv: Invocation): 'global' | 'local' | undefined {
  if (inv.flags['--global'] && inv.flags['--local']) throw usage('pass --global or --local, not both');
  return inv.flags['--global'] ? 'global' : inv.flags['--local'] ? 'local' : undefined;
}

const homeOf = (env: Record<string, string | undefined>) => env.HOME || os.homedir();

/** Human-readable lines for --raw. */
export function summary(report: Report & { signature?: SignatureReport }): string {
  const lines: string[] = [];
  const verb = report.dryRun ? 'would' : 'did';
  lines.push(`${report.dryRun ? 'Dry run: ' : ''}${report.action} GSD ${report.version} for ${report.target} (${report.scope}) at ${report.root}${report.relocated ? ` (moved by ${report.relocated.by})` : ''}`);
  if (report.profile !== undefined) lines.push(`profile: ${report.profile}${report.previousProfile ? ` (was ${report.previousProfile})` : ''}`);
  if (report.signature) lines.push(report.signature.summary);
  const { added, updated, unchanged, removed, kept } = report.files;
  lines.push(`files: ${added.length} added, ${updated.length} updated, ${unchanged} unchanged, ${removed.length} removed${kept.length ? `, ${kept.length} kept because you changed them` : ''} (${verb})`);
  for (const entry of report.config) lines.push(`config: ${entry.path} ${entry.action}`);
  if (report.backedUp.length > 0) {
    lines.push(`backed up ${report.backedUp.length} file(s) you changed to ${report.backupDir}:`);
    for (const file of report.backedUp) lines.push(`  ${file}`);
  }
  for (const file of kept) lines.push(`kept: ${file}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}

const installHandler: Handler = (inv, ctx) => {
  const bundleDir = findBundleDir(ctx.coreDir);
  if (!bundleDir) {
    throw refused(`this gsd-tools is not in an unzipped bundle (no ${MANIFEST_FILE} lists it); run install from the bundle: node <bundle>/<root>/gsd-core/bin/gsd-tools.cjs install`);
  }
  // The signature is checked first, on the manifest's bytes as read now; the
  // bundle read next must hold that same manifest, and every file its sha256.
  const manifestBytes = readOrNull(path.join(bundleDir, MANIFEST_FILE));
  const signatureText = readOrNull(path.join(bundleDir, MANIFEST_SIGNATURE_FILE))?.toString('utf8') ?? null;
  const signature = manifestBytes ? checkBundleSignature({ label: bundleDir, manifestBytes, signatureText, ...signatureOptions(inv, ctx.cwd) }) : null;
  const bundle = bundleFromDir(bundleDir);
  if (manifestBytes && bundle.manifestSha256 !== sha256(manifestBytes)) {
    throw refused(`${bundleDir}/${MANIFEST_FILE}: refused: expected the manifest whose signature was checked (sha256 ${sha256(manifestBytes)}), found other bytes (sha256 ${bundle.manifestSha256}) when the bundle was read; it changed during the install; nothing was written`);
  }
  const report = install(bundle, {
    home: homeOf(ctx.env),
    cwd: ctx.cwd,
    env: ctx.env,
    now: ctx.now(),
    policies: ownLandingPolicies(ctx.coreDir),
    ...optionsOf(inv),
  });
  const data = signature ? { ...report, signature } : report;
  return { data, raw: summary(data) };
};

function readOrNull(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

/** --public-key and --require-signature. */
export function signatureOptions(inv: Pick<Invocation, 'flags'>, cwd: string): { pinned: PublicKey | null; require: boolean } {
  const value = inv.flags['--public-key'];
  return { pinned: typeof value === 'string' ? pinnedKey(value, cwd) : null, require: Boolean(inv.flags['--require-signature']) };
}

function optionsOf(inv: Invocation) {
  const scope = scopeOf(inv);
  const configDir = inv.flags['--config-dir'];
  return {
    ...(scope ? { scope } : {}),
    ...(typeof configDir === 'string' ? { configDir } : {}),
    dryRun: Boolean(inv.flags['--dry-run']),
    force: Boolean(inv.flags['--force']),
    ...(typeof inv.flags['--profile'] === 'string' ? { profile: inv.flags['--profile'] } : {}),
    ...(Array.isArray(inv.flags['--allow-capability']) ? { allowCapabilities: inv.flags['--allow-capability'] as string[] } : {}),
  };
}

const uninstallHandler: Handler = (inv, ctx) => {
  const options = optionsOf(inv);
  const own = path.dirname(ctx.coreDir);
  let root: string;
  if (!options.scope && options.configDir === undefined && hasInstallState(own)) {
    // Run from the installed copy: the record (or the journal an interrupted run left) sits next to its gsd-core/.
    root = own;
  } else {
    const bundleDir = findBundleDir(ctx.coreDir);
    if (!bundleDir) throw refused(`no GSD install record next to this gsd-tools (${path.join(own, INSTALLED_FILE)}); run the installed copy: node <root>/gsd-core/bin/gsd-tools.cjs uninstall`);
    const manifestPath = path.join(bundleDir, MANIFEST_FILE);
    const manifest = parseManifest(fs.readFileSync(manifestPath, 'utf8'), manifestPath);
    if (options.scope && options.scope !== manifest.scope) throw usage(`this is the ${manifest.scope} bundle; --${options.scope} needs the ${options.scope} bundle`);
    root = resolvePlacement(manifest, { home: homeOf(ctx.env), cwd: ctx.cwd, env: ctx.env, ...(options.configDir !== undefined ? { configDir: options.configDir } : {}) }).root;
  }
  const report = uninstall(root, { now: ctx.now(), dryRun: options.dryRun, policies: ownLandingPolicies(ctx.coreDir) });
  return { data: report, raw: summary(report) };
};

/** reapply-patches: run from the installed copy; its root is the folder holding gsd-core/. */
const reapplyHandler: Handler = (inv, ctx) => {
  const from = inv.flags['--from'];
  const report = reapplyPatches(path.dirname(ctx.coreDir), {
    home: homeOf(ctx.env),
    policies: ownLandingPolicies(ctx.coreDir),
    dryRun: Boolean(inv.flags['--dry-run']),
    ...(typeof from === 'string' ? { from } : {}),
  });
  return { data: report, raw: reapplySummary(report) };
};

export const handlers: Record<string, Handler> = { install: installHandler, uninstall: uninstallHandler, 'reapply-patches': reapplyHandler };
