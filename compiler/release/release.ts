// release: every bundle as a reproducible zip, plus SHA256SUMS and
// release-manifest.json. Pure: bundles in, files out (the CLI writes them).
// Same sources give the same bytes: entries sorted, one fixed timestamp (DOS
// time only, no extended timestamps), fixed modes (0644, executables and
// folders 0755), deflate at a fixed level. With a signer, each zip's folder
// also holds gsd-file-manifest.json.minisig and the release SHA256SUMS.minisig
// (minisign format; Ed25519 is deterministic and the trusted comments fixed,
// so a signed release is as reproducible for the same key).
import { createHash } from 'node:crypto';
import path from 'node:path';
import yazl from 'yazl';
import { compareText } from '../diagnostics.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { bytesOf, MANIFEST_FILE } from '../emit/bundle-manifest.ts';
import { trustedCommentFor, type Signer } from './signing.ts';

export const SUMS_FILE = 'SHA256SUMS';
export const SIGNATURE_SUFFIX = '.minisig';

export interface ReleaseZip {
  file: string;
  target: string;
  scope: string;
  /** The skill profile(s) the zip ships, when not full. */
  profile?: string;
  /** Files in the zip (folders not counted). */
  files: number;
  /** Size of the zip. */
  bytes: number;
  /** Size of the files it holds, uncompressed. */
  contentBytes: number;
  sha256: string;
}

/** The Claude Code marketplace (gsd-build plugin's tree) as one zip beside the bundles'. */
export interface ReleasePlugin {
  file: string;
  files: number;
  bytes: number;
  contentBytes: number;
  sha256: string;
}

export interface Release {
  version: string;
  zips: ReleaseZip[];
  /** The plugin's zip, listed in SHA256SUMS after the bundles'; null when the release has none. */
  plugin: ReleasePlugin | null;
  /** File name → contents: the zips, SHA256SUMS (and SHA256SUMS.minisig when signed) and release-manifest.json. */
  outputs: Map<string, Uint8Array>;
  /** The signing key's id, or null for an unsigned release. */
  keyId: string | null;
}

/**
 * The one timestamp of every entry. yazl encodes DOS time from the local
 * fields of a Date, so a Date built from local fields encodes the same
 * everywhere, whatever the time zone.
 */
const FIXED_TIME = () => new Date(2000, 0, 1, 0, 0, 0);
const FILE_MODE = 0o100644;
const EXECUTABLE_MODE = 0o100755;
const DIRECTORY_MODE = 0o40755;
const COMPRESSION_LEVEL = 9;

/** Full zips keep their names; another profile's zip says it: gsd-claude-global-core-0.1.0 (commas as +). */
export function zipName(target: string, scope: string, version: string, profile?: string): string {
  return `gsd-${target}-${scope}-${profile && profile !== 'full' ? `${profile.replaceAll(',', '+')}-` : ''}${version}`;
}

/** One bundle as a zip whose entries sit under `<folder>/`, so unzipping never scatters dot-folders into the current directory. */
export async function zipTree(folder: string, tree: VirtualTree): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const folders = new Set<string>([folder]);
  for (const file of tree.keys()) {
    for (let dir = path.posix.dirname(`${folder}/${file}`); dir !== '.' && !folders.has(dir); dir = path.posix.dirname(dir)) folders.add(dir);
  }
  const entries = [...[...folders].map((dir) => ({ name: `${dir}/`, dir: true })), ...[...tree.keys()].map((file) => ({ name: `${folder}/${file}`, dir: false }))].sort((a, b) =>
    compareText(a.name, b.name),
  );
  for (const entry of entries) {
    if (entry.dir) {
      zip.addEmptyDirectory(entry.name, { mtime: FIXED_TIME(), mode: DIRECTORY_MODE, forceDosTimestamp: true });
      continue;
    }
    const file = tree.get(entry.name.slice(folder.length + 1))!;
    zip.addBuffer(Buffer.from(bytesOf(file)), entry.name, {
      mtime: FIXED_TIME(),
      mode: file.executable ? EXECUTABLE_MODE : FILE_MODE,
      forceDosTimestamp: true,
      compressionLevel: COMPRESSION_LEVEL,
    });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Zips every bundle (keyed `<target>/<scope>`, or `<target>/<scope>/<profile>` for a profile other than full) and writes the checksums and the release manifest; signs them when given a signer. */
export async function buildRelease(bundles: ReadonlyMap<string, VirtualTree>, version: string, signer: Signer | null = null, marketplace: VirtualTree | null = null): Promise<Release> {
  const outputs = new Map<string, Uint8Array>();
  const zips: ReleaseZip[] = [];
  for (const key of [...bundles.keys()].sort(compareText)) {
    const [target, scope, profile] = key.split('/') as [string, string, string | undefined];
    const name = zipName(target, scope, version, profile);
    let tree = bundles.get(key)!;
    if (signer) {
      const manifest = tree.get(MANIFEST_FILE);
      if (!manifest) throw new Error(`${key}: no ${MANIFEST_FILE} to sign`);
      const signature = signer.sign(bytesOf(manifest), trustedCommentFor(`${name}/${MANIFEST_FILE}`, version));
      tree = new Map([...tree, [`${MANIFEST_FILE}${SIGNATURE_SUFFIX}`, { contents: signature }]]);
    }
    const bytes = await zipTree(name, tree);
    const file = `${name}.zip`;
    outputs.set(file, bytes);
    zips.push({
      file,
      target,
      scope,
      ...(profile ? { profile } : {}),
      files: tree.size,
      bytes: bytes.length,
      contentBytes: [...tree.values()].reduce((sum, entry) => sum + bytesOf(entry).length, 0),
      sha256: sha256(bytes),
    });
  }
  let plugin: ReleasePlugin | null = null;
  if (marketplace) {
    const name = `gsd-claude-plugin-${version}`;
    const bytes = await zipTree(name, marketplace);
    plugin = { file: `${name}.zip`, files: marketplace.size, bytes: bytes.length, contentBytes: [...marketplace.values()].reduce((sum, entry) => sum + bytesOf(entry).length, 0), sha256: sha256(bytes) };
    outputs.set(plugin.file, bytes);
  }
  const sums = Buffer.from([...zips, ...(plugin ? [plugin] : [])].map((zip) => `${zip.sha256}  ${zip.file}\n`).join(''), 'utf8');
  outputs.set(SUMS_FILE, sums);
  if (signer) outputs.set(`${SUMS_FILE}${SIGNATURE_SUFFIX}`, Buffer.from(signer.sign(sums, trustedCommentFor(SUMS_FILE, version)), 'utf8'));
  const signature = signer ? { signature: { keyId: signer.keyId, publicKey: signer.publicKey.base64, files: [`${SUMS_FILE}${SIGNATURE_SUFFIX}`, `<zip folder>/${MANIFEST_FILE}${SIGNATURE_SUFFIX}`] } } : {};
  outputs.set('release-manifest.json', Buffer.from(`${JSON.stringify({ version, zips, ...(plugin ? { plugin } : {}), ...signature }, null, 2)}\n`, 'utf8'));
  return { version, zips, plugin, outputs, keyId: signer?.keyId ?? null };
}
