// The last emit stage: every bundle carries, at its top, `gsd-file-manifest.json`
// (what the bundle holds: each file with its SHA-256, byte size and mode, and
// which files are shared config the installer merges rather than owns;
// schemas/manifest.schema.json) and `README.txt` (how to install it). Both are
// pure functions of the tree: no clock, no machine paths.
import { compareText } from '../diagnostics.ts';
import type { ScopeId, Target } from '../targets/target-types.ts';
import type { BundleManifest, ManifestCapability, ManifestFile } from '../../source/runtime/install/bundle-types.ts';
import { byteLengthOf, factsOf, type TreeFile, type VirtualTree } from './virtual-tree.ts';
import { contentDigest } from './content-facts.ts';

export type { BundleManifest, ManifestFile } from '../../source/runtime/install/bundle-types.ts';

export const MANIFEST_FILE = 'gsd-file-manifest.json';
export const README_FILE = 'README.txt';
/** The files at a bundle's top that describe it; never installed. */
export function isBundleMetadata(path: string): boolean {
  return path === MANIFEST_FILE || path === README_FILE;
}

/** Bumped when a reader of an older manifest could misread a newer one. */
export const MANIFEST_VERSION = 1;

const GSD_TOOLS = 'gsd-core/bin/gsd-tools.cjs';

export function bytesOf(file: TreeFile): Uint8Array {
  if (file.reused) throw new Error('internal: the bytes of a reused file were asked for');
  return typeof file.contents === 'string' ? Buffer.from(file.contents, 'utf8') : file.contents;
}

/** The SHA-256 (hex) of a tree file's bytes, each distinct content hashed once per process. */
export function digestOf(file: TreeFile): string {
  const facts = factsOf(file);
  return (facts.sha256 ??= contentDigest(file.contents));
}

export function buildManifest(tree: VirtualTree, target: Target, scopeId: ScopeId, version: string, capabilities: readonly ManifestCapability[] = [], profile?: string): BundleManifest {
  const scope = target.definition.scopes[scopeId]!;
  const files: ManifestFile[] = [...tree]
    .sort(([a], [b]) => compareText(a, b))
    .map(([path, file]) => {
      return {
        path,
        sha256: digestOf(file),
        bytes: byteLengthOf(file),
        mode: file.executable ? '0755' : '0644',
        ...(file.merge ? { merge: file.merge } : {}),
        ...(file.generated ? { generated: true as const } : {}),
      };
    });
  return {
    manifestVersion: MANIFEST_VERSION,
    target: target.definition.id,
    runtime: target.definition.name,
    scope: scopeId,
    version,
    // Absent means full, so full bundles keep their bytes.
    ...(profile !== undefined && profile !== 'full' ? { profile } : {}),
    base: scope.base,
    root: scope.root,
    env: scope.env ?? [],
    ...(capabilities.length > 0 ? { capabilities: [...capabilities] } : {}),
    files,
  };
}

/** JSON with one line per file, so a changed file is a one-line change in the goldens. */
export function serializeManifest(manifest: BundleManifest): string {
  const { files, ...head } = manifest;
  const top = JSON.stringify(head, null, 2).replace(/\n}$/, '');
  const lines = files.map((file) => `    ${JSON.stringify(file)}`);
  return `${top},\n  "files": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

export function readmeText(manifest: BundleManifest): string {
  const name = `gsd-${manifest.target}-${manifest.scope}-${manifest.version}`;
  const hasCli = manifest.files.some((file) => file.path === `${manifest.root}/${GSD_TOOLS}`);
  const global = manifest.scope === 'global';
  const where = global ? `~/${manifest.root}` : `${manifest.root}/ in your project`;
  const tools = `${manifest.root}/${GSD_TOOLS}`;
  const merged = manifest.files.filter((file) => file.merge).map((file) => file.path);
  const moves = manifest.env.length > 0 ? ` (or where ${manifest.env.map((v) => `$${v}`).join(', then ')} points)` : '';
  const lines = [
    `GSD ${manifest.version} for ${manifest.runtime}, ${manifest.scope} scope (${name})`,
    '',
    'This folder is a frozen GSD bundle, laid out exactly as its files land:',
    `under ${where}${global ? moves : ''}.`,
    `${MANIFEST_FILE} lists every file with its SHA-256. In a signed release,`,
    `${MANIFEST_FILE}.minisig beside it is the release key's signature of it:`,
    'the installer checks it and says so (--require-signature refuses a bundle',
    'without one). To check where the bundle came from, verify SHA256SUMS with',
    'minisign and the key printed in the project README before unzipping.',
    '',
  ];
  if (!hasCli) {
    lines.push('This bundle has no installer: copy its files into place yourself.', '');
    return `${lines.join('\n')}`;
  }
  const flag = global ? '--global' : '--local';
  lines.push(
    'Install (Node.js 20.6 or newer):',
    '',
    ...(global
      ? [`  node ${tools} install ${flag}`, '', '  run from this folder. --config-dir DIR installs the root somewhere else.']
      : [`  cd /path/to/your/project`, `  node /path/to/${name}/${tools} install ${flag}`]),
    '',
    '  --dry-run prints what would change and writes nothing. Files GSD owns are',
    '  copied; shared config files are merged, keeping every key, comment and',
    '  entry of yours:',
    ...(merged.length > 0 ? merged.map((file) => `    ${file}`) : ['    (none in this bundle)']),
    '',
    'Update: install a newer bundle the same way. A GSD file you edited is copied',
    `to ${global ? '~/' : ''}${manifest.root}/gsd-local-patches/ first and listed.`,
    '',
    'Uninstall:',
    '',
    `  node ${global ? '~/' : ''}${tools} uninstall${global ? '' : '   (from the project folder)'}`,
    '',
    '  removes exactly the files and config entries the install added.',
    '',
  );
  return lines.join('\n');
}

/** Adds the manifest and README.txt to a bundle's tree (the manifest covers every other file). */
export function addBundleManifest(tree: VirtualTree, target: Target, scope: ScopeId, version: string, capabilities: readonly ManifestCapability[] = [], profile?: string): VirtualTree {
  if (tree.has(MANIFEST_FILE) || tree.has(README_FILE)) throw new Error(`internal: a bundle file is emitted at ${MANIFEST_FILE} or ${README_FILE}`);
  const manifest = buildManifest(tree, target, scope, version, capabilities, profile);
  const out: VirtualTree = new Map(tree);
  out.set(MANIFEST_FILE, { contents: serializeManifest(manifest) });
  out.set(README_FILE, { contents: readmeText(manifest) });
  return new Map([...out].sort(([a], [b]) => compareText(a, b)));
}
