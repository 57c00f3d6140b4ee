// Where a bundle may put files, decided from our own data and never from the
// bundle. A landing policy is derived at build time from a target definition
// (compiler/targets/landing-policy.ts); `gsd-build install` uses its own
// targets', and a shipped gsd-tools the one of its own bundle, written beside
// it at build time (gsd-core/bin/runtime.json, core/bundle-facts.ts). The
// bundle's manifest only says which policy it claims.
// The installer refuses the whole bundle when the manifest names anything the
// policy does not allow: another root or root-moving variable, a file outside
// the runtime's declared folders, a merge into a file the target does not
// share, a mode the policy does not give. Uninstall and update check their
// install record the same way before they touch a path it lists, and the
// journal of an interrupted run before rolling it back.
import path from 'node:path';
import { refused } from '../core/errors.ts';
import { unsafePath } from './bundle.ts';
import type { BundleManifest, FileMode, LandingPolicy, MergeFormat } from './bundle-types.ts';

export type { FileMode, LandingPolicy, MergeFormat, OwnedPattern } from './bundle-types.ts';

/** The installer's own files under the root: its record, and the folder of backups. */
export const INSTALLED_FILE = 'gsd-install-manifest.json';
export const PATCHES_DIR = 'gsd-local-patches';

const isNameChar = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x2d || code === 0x2e;

/** One name a placeholder stands for: safe characters only, not empty, not starting with a dot (so never `.` or `..`). */
export function isPlainName(text: string): boolean {
  if (text.length === 0 || text.length > 200 || text.charCodeAt(0) === 0x2e) return false;
  for (let i = 0; i < text.length; i++) if (!isNameChar(text.charCodeAt(i))) return false;
  return true;
}

function matchSegment(pattern: string, segment: string): boolean {
  const open = pattern.indexOf('{');
  if (open < 0) return pattern === segment;
  const close = pattern.indexOf('}', open);
  const before = pattern.slice(0, open);
  const after = pattern.slice(close + 1);
  if (segment.length <= before.length + after.length || !segment.startsWith(before) || !segment.endsWith(after)) return false;
  return isPlainName(segment.slice(before.length, segment.length - after.length));
}

/** Whether a bundle path matches an owned pattern (linear in the path; no regular expression is built from either). */
export function matchesPattern(pattern: string, file: string): boolean {
  const want = pattern.split('/');
  const have = file.split('/');
  const deep = want[want.length - 1] === '**';
  const fixed = deep ? want.length - 1 : want.length;
  if (deep ? have.length <= fixed : have.length !== fixed) return false;
  for (let i = 0; i < fixed; i++) if (!matchSegment(want[i]!, have[i]!)) return false;
  for (let i = fixed; i < have.length; i++) if (!isPlainName(have[i]!)) return false;
  return true;
}

/** What a policy says of one bundle path: owned with a mode, merged with a format, or not allowed. */
export function landingOf(policy: LandingPolicy, file: string): { kind: 'owned'; mode: FileMode } | { kind: 'merged'; format: MergeFormat } | null {
  const merged = policy.merged.find((entry) => entry.path === file);
  if (merged) return { kind: 'merged', format: merged.format };
  const owned = policy.owned.find((entry) => matchesPattern(entry.pattern, file));
  return owned ? { kind: 'owned', mode: owned.mode } : null;
}

export function policyFor(policies: readonly LandingPolicy[], target: unknown, scope: unknown, label: string): LandingPolicy {
  const policy = policies.find((entry) => entry.target === target && entry.scope === scope);
  if (policy) return policy;
  const known = [...new Set(policies.map((entry) => entry.target))].sort().join(', ');
  throw refused(
    `${label}: refused: expected a bundle of a target this installer was built with (${known || 'none: this installer carries no landing policies'}), found target ${JSON.stringify(target)} scope ${JSON.stringify(scope)}; nothing was written`,
  );
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * The manifest against the policy of the target it names; refuses the whole
 * bundle on the first thing the policy does not allow.
 */
export function checkManifestLanding(manifest: BundleManifest, policies: readonly LandingPolicy[], label: string): LandingPolicy {
  const policy = policyFor(policies, manifest.target, manifest.scope, label);
  const refuse = (what: string, expected: string, found: string) =>
    refused(`${label}: refused: ${what}: expected ${expected}, found ${found}; the manifest does not fit the ${policy.runtime} (${policy.scope}) target, so nothing was written`);
  if (manifest.root !== policy.root) throw refuse('"root"', JSON.stringify(policy.root), JSON.stringify(manifest.root));
  if (manifest.base !== policy.base) throw refuse('"base"', JSON.stringify(policy.base), JSON.stringify(manifest.base));
  if (!same(manifest.env, policy.env)) throw refuse('"env"', JSON.stringify(policy.env), JSON.stringify(manifest.env));
  for (const file of manifest.files) {
    const landing = landingOf(policy, file.path);
    if (landing === null) throw refuse(`"${file.path}"`, `a path in the runtime's own folders (${policy.root}/…)`, 'a path outside them');
    if (landing.kind === 'merged') {
      if (file.merge !== landing.format) {
        throw refuse(`"${file.path}"`, `a ${landing.format} merge into this shared config file`, file.merge ? `a ${file.merge} merge` : 'a file that would replace it whole');
      }
      if (file.mode !== '0644') throw refuse(`"${file.path}" mode`, '0644', file.mode);
      continue;
    }
    if (file.merge !== undefined) throw refuse(`"${file.path}"`, 'a file GSD owns (no merge)', `a ${file.merge} merge into a file the target does not share`);
    if (file.mode !== landing.mode) throw refuse(`"${file.path}" mode`, landing.mode, file.mode);
  }
  return policy;
}

/** The slice of an install record that says where things are; checked before uninstall or update touches any of it. */
export interface RecordPlaces {
  target: string;
  scope: 'global' | 'local';
  base: string;
  root: string;
  bundleRoot: string;
  relocation: { from: string; to: string } | null;
  files: { path: string; dest: string; original?: { backup: string } }[];
  config: { path: string; dest: string; format: MergeFormat }[];
  dirs: string[];
  /** The installer's own files it writes or removes (a journal's record and backups): paths under the root. */
  own?: { path: string; dest: string }[];
}

/** A path under the root that is the installer's own: its record, or a file in the backups folder. */
const isOwnPath = (file: unknown) => typeof file === 'string' && !unsafePath(file) && (file === INSTALLED_FILE || file.startsWith(`${PATCHES_DIR}/`));

const inside = (parent: string, child: string) => child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

/**
 * An install record found at `root`, against the policy of the target it
 * names: its base must be this user's home (global) or the project `root`
 * sits in (local), every path it lists must be one the policy allows and land
 * exactly where the installer would have put it, and every folder it would
 * prune must hold one of those paths. A record edited to point anywhere else
 * is refused whole, with nothing touched.
 */
export function checkRecordLanding(record: RecordPlaces, root: string, home: string, policies: readonly LandingPolicy[], label: string): LandingPolicy {
  const policy = policyFor(policies, record.target, record.scope, label);
  const refuse = (what: string, expected: string, found: string) =>
    refused(`${label}: refused: ${what}: expected ${expected}, found ${found}; the install record was changed since GSD wrote it, so nothing was touched`);
  const resolvedRoot = path.resolve(root);
  if (record.bundleRoot !== policy.root) throw refuse('"bundleRoot"', JSON.stringify(policy.root), JSON.stringify(record.bundleRoot));
  if (path.resolve(record.root) !== resolvedRoot) throw refuse('"root"', resolvedRoot, JSON.stringify(record.root));
  const standardBase = policy.scope === 'global' ? path.resolve(home) : path.resolve(resolvedRoot, ...policy.root.split('/').map(() => '..'));
  if (path.resolve(record.base) !== standardBase) throw refuse('"base"', standardBase, JSON.stringify(record.base));
  if (record.relocation) {
    if (policy.scope !== 'global') throw refuse('"relocation"', 'none for a local install', JSON.stringify(record.relocation));
    if (record.relocation.from !== policy.root || path.resolve(record.relocation.to) !== resolvedRoot) throw refuse('"relocation"', `${policy.root} moved to ${resolvedRoot}`, JSON.stringify(record.relocation));
  } else if (path.join(standardBase, ...policy.root.split('/')) !== resolvedRoot) {
    throw refuse('"root"', path.join(standardBase, ...policy.root.split('/')), resolvedRoot);
  }
  const destOf = (file: string) => (file.startsWith(`${policy.root}/`) ? path.join(resolvedRoot, ...file.slice(policy.root.length + 1).split('/')) : path.join(standardBase, ...file.split('/')));
  const dests: string[] = [];
  for (const file of record.files) {
    const landing = typeof file?.path === 'string' ? landingOf(policy, file.path) : null;
    if (landing?.kind !== 'owned') throw refuse(`file ${JSON.stringify(file?.path)}`, `a file GSD owns in the runtime's folders`, 'a path the target does not give GSD');
    if (file.dest !== destOf(file.path)) throw refuse(`"${file.path}" destination`, destOf(file.path), JSON.stringify(file.dest));
    if (file.original !== undefined && !(isOwnPath(file.original?.backup) && file.original.backup.startsWith(`${PATCHES_DIR}/`))) {
      throw refuse(`"${file.path}" backup of the file --force replaced`, `a path in ${PATCHES_DIR}/`, JSON.stringify(file.original?.backup));
    }
    dests.push(file.dest);
  }
  for (const entry of record.own ?? []) {
    if (!isOwnPath(entry?.path)) throw refuse(`own file ${JSON.stringify(entry?.path)}`, `${INSTALLED_FILE} or a path in ${PATCHES_DIR}/`, 'another path');
    const expected = path.join(resolvedRoot, ...entry.path.split('/'));
    if (entry.dest !== expected) throw refuse(`"${entry.path}" destination`, expected, JSON.stringify(entry.dest));
    dests.push(entry.dest);
  }
  for (const entry of record.config) {
    const landing = typeof entry?.path === 'string' ? landingOf(policy, entry.path) : null;
    if (landing?.kind !== 'merged' || landing.format !== entry.format) throw refuse(`config ${JSON.stringify(entry?.path)}`, 'a shared config file of the target, in its format', JSON.stringify(entry?.format));
    if (entry.dest !== destOf(entry.path)) throw refuse(`"${entry.path}" destination`, destOf(entry.path), JSON.stringify(entry.dest));
    dests.push(entry.dest);
  }
  for (const dir of record.dirs) {
    const ok = typeof dir === 'string' && path.isAbsolute(dir) && path.resolve(dir) !== standardBase && (inside(standardBase, dir) || inside(resolvedRoot, dir)) && (dests.some((dest) => inside(dir, dest)) || inside(dir, resolvedRoot));
    if (!ok) throw refuse(`folder ${JSON.stringify(dir)}`, 'a folder GSD created for one of the files it lists', 'a folder that holds none of them');
  }
  return policy;
}

/** The slice of an install journal that says where things are. */
export interface JournalPlaces extends Omit<RecordPlaces, 'files' | 'config' | 'own' | 'dirs'> {
  steps: { kind: 'file' | 'config' | 'own'; path: string; dest: string; format?: MergeFormat }[];
  dirs: string[];
  prune: string[];
}

/**
 * The journal an interrupted run left, against the same policy as a record:
 * every step's path (a GSD file, a shared config file in its format, or the
 * installer's own record and backups) and every folder it would create or
 * remove, before a rollback touches any of them.
 */
export function checkJournalLanding(journal: JournalPlaces, root: string, home: string, policies: readonly LandingPolicy[], label: string): LandingPolicy {
  const steps = Array.isArray(journal.steps) ? journal.steps : [];
  const policy = checkRecordLanding(
    {
      ...journal,
      files: steps.filter((step) => step.kind === 'file'),
      config: steps.filter((step) => step.kind === 'config').map((step) => ({ ...step, format: step.format as MergeFormat })),
      own: steps.filter((step) => step.kind === 'own'),
      dirs: journal.dirs ?? [],
    },
    root,
    home,
    policies,
    label,
  );
  // Folders to prune come from the record's list (checked when the run began) and may no longer hold any file the
  // steps name (the user deleted them): they must still lie inside the base or the root, and never be the base.
  const base = path.resolve(journal.base);
  for (const dir of journal.prune ?? []) {
    const ok = typeof dir === 'string' && path.isAbsolute(dir) && path.resolve(dir) !== base && (inside(base, dir) || inside(path.resolve(root), dir));
    if (!ok) throw refused(`${label}: refused: folder ${JSON.stringify(dir)}: expected a folder inside ${base}, found one outside it; the install record was changed since GSD wrote it, so nothing was touched`);
  }
  return policy;
}
