// A bundle as the installer sees it: its manifest (gsd-file-manifest.json,
// written by the compiler; schemas/manifest.schema.json) and its files, each
// checked against the manifest's sha256 before anything is installed.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BundleManifest } from './bundle-types.ts';
import { refused } from '../core/errors.ts';
import { decodeJson, describeJsonProblem } from '../core/json.ts';

export const MANIFEST_FILE = 'gsd-file-manifest.json';
export const README_FILE = 'README.txt';

export type { BundleManifest, ManifestFile } from './bundle-types.ts';

export interface Bundle {
  manifest: BundleManifest;
  manifestSha256: string;
  /** The unzipped bundle's folder, when it is on disk. */
  dir: string | null;
  /** A file's bytes, already checked against the manifest. */
  read(file: string): Buffer;
}

export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** Why a manifest path is unsafe, or null for a plain relative POSIX path. */
export function unsafePath(file: string): string | null {
  if (typeof file !== 'string' || file === '') return 'an empty path';
  if (/[\0-\x1f]/.test(file)) return 'a control character';
  if (file.includes('\\')) return 'a backslash';
  if (file.startsWith('/') || /^[A-Za-z]:/.test(file)) return 'an absolute path';
  const segments = file.split('/');
  if (segments.includes('..')) return 'a ".." segment';
  if (segments.some((segment) => segment === '' || segment === '.')) return 'an empty or "." segment';
  return null;
}

const MERGE_FORMATS = new Set(['json', 'toml', 'yaml', 'markdown']);

/** The manifest's shape, checked field by field (the schema's rules that matter for safety). */
export function checkManifest(value: unknown, label: string): BundleManifest {
  const bad = (why: string) => refused(`${label}: ${why}; this is not a bundle this installer can read (download it again)`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not a JSON object');
  const m = value as Record<string, unknown>;
  if (m.manifestVersion !== 1) throw bad(`manifestVersion ${JSON.stringify(m.manifestVersion)} is not 1`);
  for (const key of ['target', 'runtime', 'version', 'root'] as const) if (typeof m[key] !== 'string' || m[key] === '') throw bad(`"${key}" is missing`);
  if (m.scope !== 'global' && m.scope !== 'local') throw bad('"scope" is neither global nor local');
  if (m.base !== (m.scope === 'global' ? 'home' : 'project')) throw bad(`"base" ${JSON.stringify(m.base)} does not fit the ${String(m.scope)} scope`);
  const rootWhy = unsafePath(m.root as string);
  if (rootWhy) throw bad(`"root" has ${rootWhy}`);
  if (!Array.isArray(m.env) || !m.env.every((name) => typeof name === 'string' && /^[A-Z][A-Z0-9_]*$/.test(name))) throw bad('"env" is not a list of variable names');
  if (m.capabilities !== undefined) {
    const ok = Array.isArray(m.capabilities) && m.capabilities.every((c: unknown) => {
      const entry = c as Record<string, unknown> | null;
      const keys = ['id', 'version', 'origin', 'source', 'digest', 'hooks', 'files'];
      return (
        !!entry &&
        Object.keys(entry).every((key) => keys.includes(key)) &&
        ['id', 'version', 'source', 'digest'].every((key) => typeof entry[key] === 'string') &&
        (entry.origin === 'first-party' || entry.origin === 'third-party') &&
        typeof entry.hooks === 'boolean' &&
        Array.isArray(entry.files) &&
        entry.files.every((file) => typeof file === 'string')
      );
    });
    if (!ok) throw bad('"capabilities" is not a list of {id, version, origin, source, digest, hooks, files}');
  }
  if (!Array.isArray(m.files)) throw bad('"files" is not a list');
  const seen = new Set<string>();
  for (const file of m.files as Record<string, unknown>[]) {
    const where = typeof file?.path === 'string' ? file.path : JSON.stringify(file?.path);
    const why = unsafePath(file?.path as string);
    if (why) throw refused(`${label}: refused: the file "${where}" has ${why}, so it could land outside the install root; nothing was written`);
    if (seen.has(file.path as string)) throw bad(`"${where}" is listed twice`);
    seen.add(file.path as string);
    if (typeof file.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(file.sha256)) throw bad(`"${where}" has no sha256`);
    if (!Number.isInteger(file.bytes)) throw bad(`"${where}" has no byte size`);
    if (file.mode !== '0644' && file.mode !== '0755') throw bad(`"${where}" has mode ${JSON.stringify(file.mode)}`);
    if (file.merge !== undefined && !MERGE_FORMATS.has(file.merge as string)) throw bad(`"${where}" has merge format ${JSON.stringify(file.merge)}`);
    if (file.path === MANIFEST_FILE || file.path === README_FILE) throw bad(`"${where}" is the bundle's own description`);
  }
  return value as BundleManifest;
}

/** A bundle from its files in memory (a built tree, a read zip); the manifest among them. */
export function bundleFromFiles(files: ReadonlyMap<string, Uint8Array>, label = 'bundle'): Bundle {
  const manifestBytes = files.get(MANIFEST_FILE);
  if (!manifestBytes) throw refused(`${label}: no ${MANIFEST_FILE}; this is not a GSD bundle`);
  const manifest = parseManifest(Buffer.from(manifestBytes).toString('utf8'), `${label}/${MANIFEST_FILE}`);
  for (const file of manifest.files) {
    const bytes = files.get(file.path);
    if (!bytes) throw refused(`${label}: ${file.path} is listed in ${MANIFEST_FILE} but missing; the bundle is incomplete (download it again)`);
    if (sha256(bytes) !== file.sha256) throw refused(`${label}: ${file.path} does not match its sha256 in ${MANIFEST_FILE}; the bundle is damaged or was edited (download it again)`);
  }
  return { manifest, manifestSha256: sha256(manifestBytes), dir: null, read: (file) => Buffer.from(files.get(file)!) };
}

/** An unzipped bundle folder. Every listed file is read and checked now, so a damaged bundle is refused before anything is written. */
export function bundleFromDir(dir: string): Bundle {
  const files = new Map<string, Uint8Array>();
  const manifestPath = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(manifestPath)) throw refused(`${dir}: no ${MANIFEST_FILE}; run the installer from an unzipped GSD bundle`);
  files.set(MANIFEST_FILE, fs.readFileSync(manifestPath));
  const manifest = parseManifest(files.get(MANIFEST_FILE)!.toString(), manifestPath);
  for (const file of manifest.files) {
    const full = path.join(dir, ...file.path.split('/'));
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(full);
    } catch {
      throw refused(`${dir}: ${file.path} is listed in ${MANIFEST_FILE} but missing; the bundle is incomplete (unzip it again)`);
    }
    if (!stat.isFile()) throw refused(`${dir}: ${file.path} is not a regular file in the bundle; refused`);
    files.set(file.path, fs.readFileSync(full));
  }
  return { ...bundleFromFiles(files, dir), dir };
}

/** The unzipped bundle this gsd-tools runs from: the nearest folder above that lists this file in its manifest. */
export function findBundleDir(coreDir: string): string | null {
  const self = path.join(coreDir, 'bin', 'gsd-tools.cjs');
  let dir = path.dirname(coreDir);
  for (let level = 0; level < 6; level += 1) {
    const candidate = path.join(dir, MANIFEST_FILE);
    if (fs.existsSync(candidate)) {
      try {
        const manifest = decodeJson<{ files?: { path?: string }[] }>(fs.readFileSync(candidate, 'utf8')).value;
        const relative = path.relative(dir, self).split(path.sep).join('/');
        if (manifest?.files?.some((file) => file.path === relative)) return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/** A bundle's gsd-file-manifest.json text, parsed and checked, or refused. */
export function parseManifest(text: string, label: string): BundleManifest {
  const { value, problem } = decodeJson(text);
  if (problem?.kind === 'syntax') throw refused(`${label}: not valid JSON (${problem.detail}); download the bundle again`);
  if (problem) throw refused(`${describeJsonProblem(problem, label)}; download the bundle again`);
  return checkManifest(value, label);
}
