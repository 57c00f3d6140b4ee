// What the installer tests share: every bundle of source/ compiled once per
// test process with their landing policies, a bundle's files and manifest, a
// later release of a bundle, and a snapshot of a folder to compare a user's
// tree before and after.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { allBundles, compile, emitBundles, REPO_ROOT } from '../../../compiler/pipeline.ts';
import { bytesOf, serializeManifest, type BundleManifest as EmittedManifest } from '../../../compiler/emit/bundle-manifest.ts';
import { landingPolicies } from '../../../compiler/targets/landing-policy.ts';
import type { VirtualTree } from '../../../compiler/emit/virtual-tree.ts';
import { MANIFEST_FILE } from '../install/bundle.ts';
import type { LandingPolicy } from '../install/landing.ts';

export type Files = Map<string, Uint8Array>;

export interface BuiltBundles {
  bundles: Map<string, VirtualTree>;
  policies: LandingPolicy[];
}

let built: Promise<BuiltBundles> | undefined;

/** Every bundle of source/, keyed `<target>/<scope>`, and the policies of its targets; compiled once per process. */
export function builtBundles(): Promise<BuiltBundles> {
  built ??= (async () => {
    const compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
    return { bundles: emitBundles(compiled, allBundles(compiled.targets)).bundles, policies: landingPolicies(compiled.targets) };
  })();
  return built;
}

export const sha = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
export const treeFiles = (tree: VirtualTree): Files => new Map([...tree].map(([file, entry]) => [file, bytesOf(entry)]));
export const manifestOf = (files: Files) => JSON.parse(Buffer.from(files.get(MANIFEST_FILE)!).toString('utf8')) as EmittedManifest;

/** The same bundle as a later release: VERSION changed, the version bumped, one file dropped (by default its first reference). */
export function nextRelease(files: Files, drop?: string): Files {
  const next = new Map(files);
  const manifest = manifestOf(files);
  const version = `${manifest.root}/gsd-core/VERSION`;
  const dropped = drop ?? manifest.files.find((file) => !file.merge && file.path.includes('/references/'))!.path;
  next.set(version, Buffer.from('9.9.9\n'));
  next.delete(dropped);
  const listed = manifest.files.filter((file) => file.path !== dropped).map((file) => (file.path === version ? { ...file, sha256: sha('9.9.9\n'), bytes: 6 } : file));
  next.set(MANIFEST_FILE, Buffer.from(serializeManifest({ ...manifest, version: '9.9.9', files: listed })));
  return next;
}

/** Every file and folder under `dir`: path → mode and content hash; `skip` leaves an entry (and what is under it) out. */
export function snapshot(dir: string, skip: (relative: string, name: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(current, entry.name);
      const relative = path.relative(dir, full);
      if (skip(relative, entry.name)) continue;
      const mode = (fs.lstatSync(full).mode & 0o777).toString(8);
      if (entry.isDirectory()) {
        out.set(`${relative}/`, mode);
        walk(full);
      } else out.set(relative, `${mode} ${sha(fs.readFileSync(full))}`);
    }
  };
  walk(dir);
  return out;
}
