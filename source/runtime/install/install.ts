// Install, update and uninstall of one bundle. Each is planned in full first
// (every path confined, every file checked, every config merge computed), so
// a refusal or --dry-run writes nothing; then the plan is applied through a
// journal (journal.ts), under the root's lock (root-lock.ts): the steps are
// written down before the first change and the journal goes after the last,
// so a run killed at any point is rolled back by the next install or
// uninstall. What the install wrote is recorded in
// <root>/gsd-install-manifest.json: the files with their hashes, and per
// shared config file the edits GSD made and the entries it added, so
// uninstall restores exactly what was there before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failed, refused, usage } from '../core/errors.ts';
import { decodeJson } from '../core/json.ts';
import { escapeRegExp } from '../core/text.ts';
import { sha256, unsafePath, type Bundle, type BundleManifest } from './bundle.ts';
import { isEmptyConfig, mergeConfig, undoEdits, unmergeConfig, type Added, type Edit, type MergeFormat } from './merge.ts';
import { checkJournalLanding, checkManifestLanding, checkRecordLanding, INSTALLED_FILE, PATCHES_DIR, type LandingPolicy } from './landing.ts';
import { commitJournal, hasJournalDir, isCrash, JOURNAL_DIR, LOCK_FILE, modeOf, readJournal, readRootDirs, rmdirIfEmpty, rollBack, runSteps, writeJournal, writeRootDirs, type Journal, type Step, type StepState } from './journal.ts';
import { cleanStrays, settleRoot, withRootLock } from './root-lock.ts';
import { checkCapabilities, type InstalledCapability } from './consent.ts';

export { INSTALLED_FILE, PATCHES_DIR };

export interface Relocation {
  /** The bundle's root, relative to home. */
  from: string;
  /** Where it went (absolute). */
  to: string;
  /** What moved it: `--config-dir` or `$VAR`. */
  by: string;
  /** What `~/<from>` and `$HOME/<from>` became in the installed text files. */
  tilde: string;
  home: string;
}

export interface Placement {
  /** Home (global) or the project (local): paths outside the root land here. */
  base: string;
  /** Where the bundle's root folder lands. */
  root: string;
  relocation: Relocation | null;
}

export interface InstalledFile {
  path: string;
  dest: string;
  sha256: string;
  mode: '0644' | '0755';
  /** The user's own file that was here, replaced with --force: its backup (under the root) and hash, put back by uninstall. */
  original?: { backup: string; sha256: string };
}

export interface InstalledConfig {
  path: string;
  dest: string;
  format: MergeFormat;
  /** GSD created the file: uninstall deletes it when nothing of the user's is left. */
  created: boolean;
  /** The file's hash right after GSD wrote it. */
  sha256: string;
  /** The edits that turned the file as it was into the file GSD wrote; reversed on uninstall while the file is unchanged. */
  edits: Edit[];
  added: Added[];
}

export interface InstalledManifest {
  installManifestVersion: 1;
  target: string;
  runtime: string;
  scope: 'global' | 'local';
  version: string;
  /** The skill profile(s) installed (the bundle's, `full` when it names none); an update keeps it unless the user chooses another. */
  profile?: string;
  bundleManifestSha256: string;
  installedAt: string;
  base: string;
  root: string;
  bundleRoot: string;
  relocation: Relocation | null;
  files: InstalledFile[];
  config: InstalledConfig[];
  /** Folders the installs created, removed on uninstall when empty. */
  dirs: string[];
  /** The bundle's capabilities as checked (consent.ts): origin as verified, whether each brings code and was allowed, the files it brought. */
  capabilities?: InstalledCapability[];
}

export interface Options {
  home: string;
  cwd: string;
  env: Record<string, string | undefined>;
  now: Date;
  scope?: 'global' | 'local';
  configDir?: string;
  dryRun?: boolean;
  force?: boolean;
  /** The skill profile the user chose (--profile); without it an update must bring the profile already installed. */
  profile?: string;
  /** Third-party capabilities whose code the user allows (--allow-capability); asked again on every install and update. */
  allowCapabilities?: readonly string[];
  /**
   * Where each target's bundles may land: the compiler's own targets, or the
   * bundle facts of the gsd-tools that runs (core/bundle-facts.ts). A bundle
   * of a target and scope not listed is refused.
   */
  policies: readonly LandingPolicy[];
}

export interface Report {
  action: 'install' | 'update' | 'uninstall';
  dryRun: boolean;
  target: string;
  scope: 'global' | 'local';
  version: string;
  previousVersion?: string;
  /** The skill profile this run installs, and the one it replaces when they differ. */
  profile?: string;
  previousProfile?: string;
  root: string;
  relocated: { from: string; to: string; by: string } | null;
  files: { added: string[]; updated: string[]; unchanged: number; removed: string[]; kept: string[] };
  config: { path: string; action: string }[];
  backedUp: string[];
  backupDir: string | null;
  notes: string[];
}

const SAFE_ROOT = /^[A-Za-z0-9._\/+@,=-]+$/;

// ---------------------------------------------------------------- where things go

export function resolvePlacement(manifest: Pick<BundleManifest, 'scope' | 'root' | 'env'>, options: Pick<Options, 'home' | 'cwd' | 'env' | 'configDir'>): Placement {
  if (manifest.scope === 'local') {
    if (options.configDir !== undefined) throw usage('--config-dir moves the root of a global install; a local install goes into the project (the current folder, or --cwd)');
    const base = path.resolve(options.cwd);
    return { base, root: path.join(base, ...manifest.root.split('/')), relocation: null };
  }
  const base = path.resolve(options.home);
  const standard = path.join(base, ...manifest.root.split('/'));
  let to: string | null = null;
  let by = '';
  if (options.configDir !== undefined) {
    if (options.configDir === '') throw usage('--config-dir needs a folder');
    to = path.resolve(options.cwd, options.configDir);
    by = '--config-dir';
  } else {
    for (const name of manifest.env) {
      const value = options.env[name];
      if (!value) continue;
      if (!path.isAbsolute(value)) throw refused(`$${name} is "${value}", not an absolute path; set it to one, or pass --config-dir`);
      to = name === 'XDG_CONFIG_HOME' && manifest.root.startsWith('.config/') ? path.join(value, manifest.root.slice('.config/'.length)) : path.resolve(value);
      by = `$${name}`;
      break;
    }
  }
  if (to === null || to === standard) return { base, root: standard, relocation: null };
  if (!SAFE_ROOT.test(to)) {
    throw refused(`${by}: "${to}" has characters GSD cannot write into its prompts and hook commands unquoted; use a path of letters, digits and . _ - / + @ , =`);
  }
  const inHome = to.startsWith(base + path.sep);
  const tilde = inHome ? path.relative(base, to).split(path.sep).join('/') : to;
  return { base, root: to, relocation: { from: manifest.root, to, by, tilde, home: base } };
}

/** Where a bundle path lands: under the (possibly moved) root, or under base. */
export function destinationOf(file: string, manifest: Pick<BundleManifest, 'root'>, placement: Placement): string {
  const prefix = `${manifest.root}/`;
  return file.startsWith(prefix) ? path.join(placement.root, ...file.slice(prefix.length).split('/')) : path.join(placement.base, ...file.split('/'));
}

/**
 * The one relocation pass over text: `~/<root>` and `$HOME/<root>` (not
 * followed by more of a name) become the new root, as `~/<rel>` and
 * `$HOME/<rel>` when it is still under home, else its absolute path.
 */
export function relocateText(text: string, relocation: Relocation): string {
  const escaped = escapeRegExp(relocation.from);
  const inHome = !path.isAbsolute(relocation.tilde);
  return text.replace(new RegExp(`(~|\\$HOME|\\$\\{HOME\\})/${escaped}(?![A-Za-z0-9._-])`, 'g'), (_, anchor: string) => (inHome ? `${anchor}/${relocation.tilde}` : relocation.to));
}

const isInside = (parent: string, child: string) => child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

function realpathOrParent(p: string): string {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    try {
      const real = fs.realpathSync.native(current);
      return missing.length ? path.join(real, ...missing.reverse()) : real;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** Refuses a destination outside the folder it belongs to, lexically or through a symlink. */
function confine(dest: string, file: string, placement: Placement, manifest: Pick<BundleManifest, 'root'>, real: (p: string) => string = realpathOrParent): void {
  const why = unsafePath(file);
  if (why) throw refused(`refused: "${file}" has ${why}, so it could land outside the install root; nothing was written`);
  const anchor = file.startsWith(`${manifest.root}/`) ? placement.root : placement.base;
  if (!isInside(anchor, dest)) throw refused(`refused: "${file}" would land at ${dest}, outside ${anchor}; nothing was written`);
  // The folder's real path (looked up once per folder), then the name, unless the name itself is a link.
  let link = false;
  try {
    link = fs.lstatSync(dest, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch {
    // a new file
  }
  const landed = link ? realpathOrParent(dest) : path.join(real(path.dirname(dest)), path.basename(dest));
  if (!isInside(real(anchor), landed) && !isInside(real(placement.base), landed)) {
    throw refused(`refused: "${file}" would land at ${landed} through a symbolic link, outside ${anchor}; nothing was written`);
  }
}

// ---------------------------------------------------------------- file system helpers

export function readIfFile(file: string): Buffer | null {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!stat) return null;
  if (stat.isSymbolicLink()) {
    try {
      if (!fs.statSync(file).isFile()) throw refused(`${file} is a link to something that is not a file; refused`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw refused(`${file} is a dangling symbolic link; refused`);
      throw error;
    }
  } else if (!stat.isFile()) throw refused(`${file} exists and is not a file; refused`);
  return fs.readFileSync(file);
}

// ---------------------------------------------------------------- plans

type Kind = Step['kind'];
interface PlannedWrite {
  dest: string;
  bytes: Buffer;
  mode: number;
  kind: Kind;
  path: string;
  format?: MergeFormat;
  /** What the path holds now, when the plan has read it already (the run holds the root's lock, so it stays so). */
  before?: StepState | null;
  /** The hash of `bytes`, when the plan has it already. */
  sha256?: string;
}
interface PlannedRemoval {
  dest: string;
  kind: Kind;
  path: string;
  format?: MergeFormat;
}

interface Plan {
  report: Report;
  /** Copies made before anything is replaced or removed. */
  backups: { from: string; bytes: Buffer; display: string; installed: string; current: string }[];
  backupDir: string;
  /** Home or the project: backups keep paths relative to it. */
  base: string;
  root: string;
  bundleRoot: string;
  relocation: Relocation | null;
  writes: PlannedWrite[];
  removals: PlannedRemoval[];
  /** Folders to take away when empty once the steps are done. */
  prune: string[];
  manifestPath: string;
  /** Written last; null removes it (uninstall). */
  installed: InstalledManifest | null;
  /** Folders GSD made to hold the root itself. */
  rootDirs: string[];
}

export function readInstalled(root: string): InstalledManifest | null {
  const file = path.join(root, INSTALLED_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const { value, problem } = decodeJson<InstalledManifest>(text, (value) => (isInstallRecord(value as InstalledManifest) ? null : 'an install record'));
  if (problem?.kind === 'syntax') throw refused(`${file}: not valid JSON (${problem.detail}); the record of the install is damaged, nothing was changed`);
  if (problem) throw refused(`${file}: not an install record this gsd-tools can read; nothing was changed`);
  return value;
}

function isInstallRecord(value: InstalledManifest | null): boolean {
  const strings = ['target', 'scope', 'base', 'root', 'bundleRoot'] as const;
  return (
    value?.installManifestVersion === 1 &&
    Array.isArray(value.files) &&
    Array.isArray(value.config) &&
    Array.isArray(value.dirs) &&
    strings.every((key) => typeof value[key] === 'string') &&
    (value.relocation === null || (typeof value.relocation?.from === 'string' && typeof value.relocation?.to === 'string'))
  );
}

/** Whether `root` holds anything of a GSD install: its record, or what an interrupted run left. */
export function hasInstallState(root: string): boolean {
  return fs.existsSync(path.join(root, INSTALLED_FILE)) || hasJournalDir(root);
}

/** How a report names a destination: `~/…` (global) or relative to the project (local), else absolute. */
export function display(dest: string, placement: Pick<Placement, 'base'>, scope: 'global' | 'local'): string {
  if (isInside(placement.base, dest)) {
    const relative = path.relative(placement.base, dest).split(path.sep).join('/');
    return scope === 'global' ? `~/${relative}` : relative;
  }
  return dest;
}

function stampOf(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

function backupDirFor(root: string, now: Date): string {
  const stamp = stampOf(now);
  let dir = path.join(root, PATCHES_DIR, stamp);
  for (let n = 2; fs.existsSync(dir); n += 1) dir = path.join(root, PATCHES_DIR, `${stamp}-${n}`);
  return dir;
}

/** Where a backup of `from` goes inside the backup folder. */
export function backupPath(plan: Pick<Plan, 'base' | 'root' | 'backupDir'>, from: string): string {
  const relative = isInside(plan.base, from) ? path.relative(plan.base, from) : path.join('_root', path.relative(plan.root, from));
  return path.join(plan.backupDir, relative);
}

const rootRelative = (root: string, file: string) => path.relative(root, file).split(path.sep).join('/');

/** The user's own file that --force replaced, from its backup; null when the backup is gone or changed. */
function originalBytes(root: string, original: NonNullable<InstalledFile['original']>): Buffer | null {
  try {
    const bytes = fs.readFileSync(path.join(root, ...original.backup.split('/')));
    return sha256(bytes) === original.sha256 ? bytes : null;
  } catch {
    return null;
  }
}

/** The folders writing `dests` creates, outermost first. */
function missingDirs(dests: readonly string[]): string[] {
  const created: string[] = [];
  const seen = new Set<string>();
  for (const dest of dests) {
    const chain: string[] = [];
    for (let dir = path.dirname(dest); !seen.has(dir) && !fs.existsSync(dir); dir = path.dirname(dir)) chain.unshift(dir);
    for (const dir of chain) {
      seen.add(dir);
      created.push(dir);
    }
  }
  return created;
}

/** Of the folders GSD made, those that hold only files this run removes (so they go too), deepest first. */
function emptiedDirs(dirs: readonly string[], removed: ReadonlySet<string>, written: readonly string[]): string[] {
  const gone = new Set<string>();
  for (const dir of [...dirs].filter((dir) => [...removed].some((file) => isInside(dir, file))).sort((a, b) => b.length - a.length)) {
    if (written.some((file) => isInside(dir, file))) continue;
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    if (names.every((name) => removed.has(path.join(dir, name)) || gone.has(path.join(dir, name)))) gone.add(dir);
  }
  return [...gone];
}

/** The checks that come before anything else, and where the bundle lands. */
function placeBundle(bundle: Bundle, options: Options): Placement {
  const manifest = bundle.manifest;
  if (options.scope && options.scope !== manifest.scope) {
    throw usage(`this is the ${manifest.scope} bundle of ${manifest.runtime}; --${options.scope} needs the ${options.scope} bundle (gsd-${manifest.target}-${options.scope}-${manifest.version}.zip)`);
  }
  // Our own data decides where files may land; the manifest only names the target.
  checkManifestLanding(manifest, options.policies, bundle.dir ?? 'bundle');
  const placement = resolvePlacement(manifest, options);
  if (bundle.dir && (isInside(bundle.dir, placement.base) || isInside(bundle.dir, placement.root))) {
    throw refused(`refused: the install would land inside the unzipped bundle (${bundle.dir}); run it from your ${manifest.scope === 'local' ? 'project folder' : 'home'}, outside the bundle`);
  }
  return placement;
}

const FULL = 'full';
const profileOf = (record: Pick<InstalledManifest, 'profile'> | Pick<BundleManifest, 'profile'>) => record.profile ?? FULL;

/**
 * The profile this bundle installs. A bundle holds one profile's files, so an
 * update keeps the installed profile by refusing a bundle of another one unless
 * the user chose it (--profile); switching then removes exactly the files the
 * old profile had and the new one lacks, like any file a release dropped.
 */
function checkProfile(manifest: BundleManifest, previous: InstalledManifest | null, chosen: string | undefined): string {
  const bundled = profileOf(manifest);
  const zipOf = (profile: string) => `gsd-${manifest.target}-${manifest.scope}-${profile === FULL ? '' : `${profile.replaceAll(',', '+')}-`}${manifest.version}.zip`;
  if (chosen !== undefined && chosen !== bundled) {
    throw usage(`expected the ${chosen} profile's bundle for --profile ${chosen} (${zipOf(chosen)}), found the ${bundled} profile's`);
  }
  if (previous && chosen === undefined && profileOf(previous) !== bundled) {
    throw refused(
      `refused: the ${profileOf(previous)} profile is installed and this bundle ships ${bundled}; install ${zipOf(profileOf(previous))} to update and keep it, or pass --profile ${bundled} to switch; nothing was changed`,
      { installedProfile: profileOf(previous), profile: bundled },
    );
  }
  return bundled;
}

/** Install, or update when an install record is already at the root. */
export function planInstall(bundle: Bundle, options: Options, rootDirs: readonly string[] = [], placed?: Placement): Plan {
  const manifest = bundle.manifest;
  const policies = options.policies;
  const placement = placed ?? placeBundle(bundle, options);
  const previous = readInstalled(placement.root);
  if (previous && (previous.target !== manifest.target || previous.scope !== manifest.scope)) {
    throw refused(`refused: ${placement.root} holds GSD for ${previous.target} (${previous.scope}); uninstall that first`);
  }
  // An update removes what the old record lists: the record must still describe this install.
  if (previous) checkRecordLanding(previous, placement.root, options.home, policies, path.join(placement.root, INSTALLED_FILE));
  const profile = checkProfile(manifest, previous, options.profile);
  const capabilities = checkCapabilities(manifest, options.allowCapabilities ?? []);
  const manifestPath = path.join(placement.root, INSTALLED_FILE);
  const report: Report = {
    action: previous ? 'update' : 'install',
    dryRun: Boolean(options.dryRun),
    target: manifest.target,
    scope: manifest.scope,
    version: manifest.version,
    ...(previous ? { previousVersion: previous.version } : {}),
    profile,
    ...(previous && profileOf(previous) !== profile ? { previousProfile: profileOf(previous) } : {}),
    root: placement.root,
    relocated: placement.relocation ? { from: placement.relocation.from, to: placement.relocation.to, by: placement.relocation.by } : null,
    files: { added: [], updated: [], unchanged: 0, removed: [], kept: [] },
    config: [],
    backedUp: [],
    backupDir: null,
    notes: [],
  };
  const show = (dest: string) => display(dest, placement, manifest.scope);
  const plan: Plan = {
    report,
    backups: [],
    backupDir: backupDirFor(placement.root, options.now),
    base: placement.base,
    root: placement.root,
    bundleRoot: manifest.root,
    relocation: placement.relocation,
    writes: [],
    removals: [],
    prune: [],
    manifestPath,
    installed: null,
    rootDirs: [...rootDirs],
  };
  const previousFiles = new Map((previous?.files ?? []).map((file) => [file.dest, file]));
  const previousConfig = new Map((previous?.config ?? []).map((entry) => [entry.dest, entry]));
  const files: InstalledFile[] = [];
  const config: InstalledConfig[] = [];
  const conflicts: string[] = [];
  // The bytes that land, and their hash (the manifest's, checked when the bundle was read, unless relocation changed them).
  const relocated = new Map<string, string>();
  const bytesFor = (file: BundleManifest['files'][number]) => {
    const raw = bundle.read(file.path);
    if (!placement.relocation || file.generated) return raw;
    const text = raw.toString('utf8');
    const moved = relocateText(text, placement.relocation);
    if (moved === text) return raw;
    const bytes = Buffer.from(moved, 'utf8');
    relocated.set(file.path, sha256(bytes));
    return bytes;
  };
  const hashOf = (file: BundleManifest['files'][number]) => relocated.get(file.path) ?? file.sha256;
  // The root's and the base's real paths, looked up once for the whole bundle.
  const reals = new Map<string, string>();
  const real = (p: string) => reals.get(p) ?? (reals.set(p, realpathOrParent(p)), reals.get(p)!);
  const ownNames = [INSTALLED_FILE, LOCK_FILE, JOURNAL_DIR, PATCHES_DIR].map((name) => path.join(placement.root, name));
  for (const file of manifest.files) {
    const dest = destinationOf(file.path, manifest, placement);
    confine(dest, file.path, placement, manifest, real);
    if (ownNames.some((own) => isInside(own, dest))) throw refused(`refused: "${file.path}" would overwrite the installer's own records; nothing was written`);
    const bytes = bytesFor(file);
    if (file.merge) {
      config.push(planConfig(plan, file.path, dest, file.merge, bytes.toString('utf8'), previousConfig.get(dest) ?? null, show));
      previousConfig.delete(dest);
      continue;
    }
    const hash = hashOf(file);
    const mode = file.mode;
    const before = previousFiles.get(dest);
    files.push({ path: file.path, dest, sha256: hash, mode, ...(before?.original ? { original: before.original } : {}) });
    previousFiles.delete(dest);
    const write: PlannedWrite = { dest, bytes, mode: parseInt(mode, 8), kind: 'file', path: file.path, sha256: hash };
    const current = readIfFile(dest);
    if (current === null) {
      plan.writes.push({ ...write, before: null });
      (before ? report.files.updated : report.files.added).push(show(dest));
      continue;
    }
    const currentHash = sha256(current);
    if (currentHash === hash) {
      if (!before) conflicts.push(show(dest));
      else if (modeOf(dest) !== parseInt(mode, 8)) plan.writes.push(write);
      if (before) report.files.unchanged += 1;
      continue;
    }
    if (!before) conflicts.push(show(dest));
    else if (currentHash !== before.sha256) plan.backups.push({ from: dest, bytes: current, display: show(dest), installed: before.sha256, current: currentHash });
    plan.writes.push(write);
    report.files.updated.push(show(dest));
  }
  if (conflicts.length > 0) {
    if (!options.force) {
      throw refused(
        `refused: ${conflicts.length} file(s) GSD would write already exist and are not from a GSD install here: ${conflicts.slice(0, 5).join(', ')}${conflicts.length > 5 ? ', …' : ''}. Move them away, or pass --force to back them up to ${show(path.join(placement.root, PATCHES_DIR))}/ and replace them (uninstall puts them back); nothing was written`,
        { conflicts },
      );
    }
    for (const dest of conflicts) {
      const full = files.find((file) => show(file.dest) === dest)!;
      const current = readIfFile(full.dest)!;
      const currentHash = sha256(current);
      plan.backups.push({ from: full.dest, bytes: current, display: dest, installed: '', current: currentHash });
      // Kept so that uninstall (or a release without this file) puts the user's own file back.
      full.original = { backup: rootRelative(placement.root, backupPath(plan, full.dest)), sha256: currentHash };
      if (currentHash === full.sha256 && modeOf(full.dest) === parseInt(full.mode, 8)) continue;
      if (!plan.writes.some((write) => write.dest === full.dest)) plan.writes.push({ dest: full.dest, bytes: bytesFor(manifest.files.find((file) => file.path === full.path)!), mode: parseInt(full.mode, 8), kind: 'file', path: full.path });
    }
    report.notes.push(`--force: ${conflicts.length} file(s) that were not from a GSD install were backed up, then replaced; uninstall puts them back`);
  }
  // Files the new bundle no longer has: removed when unmodified (the user's own file put back where --force replaced one), kept (and no longer tracked) when changed.
  for (const before of previousFiles.values()) {
    const current = readIfFile(before.dest);
    if (current === null) continue;
    if (sha256(current) !== before.sha256) {
      report.files.kept.push(show(before.dest));
      continue;
    }
    takeBack(plan, before, before.original ? originalBytes(placement.root, before.original) : null, show);
  }
  for (const before of previousConfig.values()) planConfigRemoval(plan, before, show);
  report.backedUp = plan.backups.map((backup) => backup.display);
  report.backupDir = plan.backups.length > 0 ? plan.backupDir : null;
  const previousDirs = previous?.dirs ?? [];
  const created = missingDirs(plan.writes.map((write) => write.dest));
  const gone = emptiedDirs(previousDirs, new Set(plan.removals.map((removal) => removal.dest)), plan.writes.map((write) => write.dest));
  plan.prune = gone;
  plan.installed = {
    installManifestVersion: 1,
    target: manifest.target,
    runtime: manifest.runtime,
    scope: manifest.scope,
    version: manifest.version,
    profile,
    bundleManifestSha256: bundle.manifestSha256,
    installedAt: options.now.toISOString(),
    base: placement.base,
    root: placement.root,
    bundleRoot: manifest.root,
    relocation: placement.relocation,
    files,
    config,
    // The root's own folders are recorded where the record's landing check accepts them (inside the base, or the root itself).
    dirs: [...new Set([...previousDirs, ...created, ...rootDirs.filter((dir) => isInside(placement.base, dir) || dir === placement.root)])].filter((dir) => !gone.includes(dir)).sort(),
    ...(capabilities.length > 0 ? { capabilities } : {}),
  };
  for (const capability of capabilities.filter((entry) => entry.allowed)) report.notes.push(`capability ${capability.id} ${capability.version}: its code is installed with your consent (--allow-capability)`);
  return plan;
}

/** The text GSD's entries came into: the file as it is, with the previous install's entries taken out. */
function withoutPrevious(current: string | null, before: InstalledConfig | null, label: string, notes: string[]): string | null {
  if (current === null || before === null) return current;
  const exact = sha256(current) === before.sha256 ? undoEdits(current, before.edits) : null;
  let text: string;
  if (exact !== null) text = exact;
  else {
    const out = unmergeConfig(before.format, current, before.added, label);
    notes.push(...out.left);
    text = out.text;
  }
  return before.created && isEmptyConfig(before.format, text) ? null : text;
}

function planConfig(plan: Plan, file: string, dest: string, format: MergeFormat, gsdText: string, before: InstalledConfig | null, show: (dest: string) => string): InstalledConfig {
  const label = show(dest);
  const currentBytes = readIfFile(dest);
  const current = currentBytes?.toString('utf8') ?? null;
  const base = withoutPrevious(current, before, label, plan.report.notes);
  const merged = mergeConfig(format, base, gsdText, label);
  plan.report.notes.push(...merged.skipped);
  const created = base === null ? true : (before?.created ?? false);
  if (merged.text !== current) plan.writes.push({ dest, bytes: Buffer.from(merged.text, 'utf8'), mode: current === null ? 0o644 : modeOf(dest), kind: 'config', path: file, format });
  plan.report.config.push({ path: label, action: current === null ? 'created' : merged.text === current ? 'unchanged' : before ? 'updated' : 'merged' });
  return { path: file, dest, format, created, sha256: sha256(merged.text), edits: merged.edits, added: merged.added };
}

/** A GSD file leaves (uninstall, or a release that dropped it): the user's own file that --force replaced is put back, else the file is removed. */
function takeBack(plan: Plan, file: InstalledFile, original: Buffer | null, show: (dest: string) => string): void {
  if (original) {
    plan.writes.push({ dest: file.dest, bytes: original, mode: modeOf(file.dest), kind: 'file', path: file.path });
    plan.report.notes.push(`${show(file.dest)}: your own file (replaced with --force) is put back`);
  } else {
    if (file.original) plan.report.notes.push(`${show(file.dest)}: your own file that --force replaced cannot be put back (its backup ${file.original.backup} is gone or changed)`);
    plan.removals.push({ dest: file.dest, kind: 'file', path: file.path });
  }
  plan.report.files.removed.push(show(file.dest));
}

function planConfigRemoval(plan: Plan, before: InstalledConfig, show: (dest: string) => string): void {
  const label = show(before.dest);
  const current = readIfFile(before.dest)?.toString('utf8') ?? null;
  if (current === null) return;
  const base = withoutPrevious(current, before, label, plan.report.notes);
  if (base === null) {
    plan.removals.push({ dest: before.dest, kind: 'config', path: before.path, format: before.format });
    plan.report.config.push({ path: label, action: 'deleted' });
  } else if (base !== current) {
    plan.writes.push({ dest: before.dest, bytes: Buffer.from(base, 'utf8'), mode: modeOf(before.dest), kind: 'config', path: before.path, format: before.format });
    plan.report.config.push({ path: label, action: 'restored' });
  } else plan.report.config.push({ path: label, action: 'unchanged' });
}

const isRootChain = (root: string, dir: string) => isInside(dir, root);

/** Uninstall what the record at `root` says was installed. */
export function planUninstall(root: string, options: Pick<Options, 'now' | 'dryRun' | 'policies'> & { home?: string }, rootDirs: readonly string[] = []): Plan {
  const installed = readInstalled(root);
  if (!installed) throw refused(`no GSD install found at ${root} (no ${INSTALLED_FILE}); nothing was changed`);
  // Every path the record lists is checked against the target's policy before any is touched.
  checkRecordLanding(installed, root, options.home ?? os.homedir(), options.policies, path.join(root, INSTALLED_FILE));
  const placement: Placement = { base: installed.base, root, relocation: installed.relocation };
  const show = (dest: string) => display(dest, placement, installed.scope);
  const report: Report = {
    action: 'uninstall',
    dryRun: Boolean(options.dryRun),
    target: installed.target,
    scope: installed.scope,
    version: installed.version,
    root,
    relocated: installed.relocation ? { from: installed.relocation.from, to: installed.relocation.to, by: installed.relocation.by } : null,
    files: { added: [], updated: [], unchanged: 0, removed: [], kept: [] },
    config: [],
    backedUp: [],
    backupDir: null,
    notes: [],
  };
  const plan: Plan = {
    report,
    backups: [],
    backupDir: backupDirFor(root, options.now),
    base: installed.base,
    root,
    bundleRoot: installed.bundleRoot,
    relocation: installed.relocation,
    writes: [],
    removals: [],
    // The root and the folders above it go last, when nothing but the installer's files is left in them (settleRoot).
    prune: installed.dirs.filter((dir) => !isRootChain(root, dir)),
    manifestPath: path.join(root, INSTALLED_FILE),
    installed: null,
    rootDirs: [...new Set([...rootDirs, ...installed.dirs.filter((dir) => isRootChain(root, dir))])],
  };
  for (const file of installed.files) {
    const current = readIfFile(file.dest);
    const original = file.original ? originalBytes(root, file.original) : null;
    if (current === null) {
      if (original) plan.writes.push({ dest: file.dest, bytes: original, mode: parseInt(file.mode, 8), kind: 'file', path: file.path });
      continue;
    }
    const hash = sha256(current);
    if (hash !== file.sha256) plan.backups.push({ from: file.dest, bytes: current, display: show(file.dest), installed: file.sha256, current: hash });
    takeBack(plan, file, original, show);
  }
  for (const entry of installed.config) planConfigRemoval(plan, entry, show);
  report.backedUp = plan.backups.map((backup) => backup.display);
  report.backupDir = plan.backups.length > 0 ? plan.backupDir : null;
  return plan;
}

// ---------------------------------------------------------------- applying a plan

const newToken = () => `${process.pid.toString(36)}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/**
 * Applies a plan through the journal: every step is listed (with what was
 * there before) and written down first, then run, then the journal goes. A
 * failure part-way rolls the steps back at once; a kill leaves the journal for
 * the next run to roll back.
 */
export function applyPlan(plan: Plan, meta: { now: Date; fromVersion?: string; toVersion?: string }): void {
  const token = newToken();
  const steps: Step[] = [];
  const bytes = new Map<string, Buffer>();
  const stateOf = (dest: string): StepState | null => {
    const current = readIfFile(dest);
    return current === null ? null : { sha256: sha256(current), mode: modeOf(dest) };
  };
  const write = (kind: Kind, name: string, dest: string, content: Buffer, mode: number, format?: MergeFormat, known?: StepState | null, hash?: string) => {
    steps.push({ op: 'write', kind, path: name, ...(format ? { format } : {}), dest, before: known === undefined ? stateOf(dest) : known, after: { sha256: hash ?? sha256(content), mode } });
    bytes.set(dest, content);
  };
  if (plan.backups.length > 0) {
    for (const backup of plan.backups) {
      const target = backupPath(plan, backup.from);
      write('own', rootRelative(plan.root, target), target, backup.bytes, 0o600);
    }
    const metaFile = {
      reason: plan.report.action,
      at: meta.now.toISOString(),
      target: plan.report.target,
      scope: plan.report.scope,
      ...(meta.fromVersion ? { fromVersion: meta.fromVersion } : {}),
      ...(meta.toVersion ? { toVersion: meta.toVersion } : {}),
      files: plan.backups.map((backup) => ({ path: backup.display, installedSha256: backup.installed || null, currentSha256: backup.current })),
    };
    const target = path.join(plan.backupDir, 'backup-meta.json');
    write('own', rootRelative(plan.root, target), target, Buffer.from(`${JSON.stringify(metaFile, null, 2)}\n`, 'utf8'), 0o600);
  }
  for (const entry of plan.writes) write(entry.kind, entry.path, entry.dest, entry.bytes, entry.mode, entry.format, entry.before, entry.sha256);
  for (const entry of plan.removals) {
    const before = stateOf(entry.dest);
    if (before) steps.push({ op: 'remove', kind: entry.kind, path: entry.path, ...(entry.format ? { format: entry.format } : {}), dest: entry.dest, before, after: null });
  }
  if (plan.installed) write('own', INSTALLED_FILE, plan.manifestPath, Buffer.from(`${JSON.stringify(plan.installed, null, 2)}\n`, 'utf8'), 0o600);
  else {
    const before = stateOf(plan.manifestPath);
    if (before) steps.push({ op: 'remove', kind: 'own', path: INSTALLED_FILE, dest: plan.manifestPath, before, after: null });
  }
  const journal: Journal = {
    journalVersion: 1,
    action: plan.report.action,
    token,
    startedAt: meta.now.toISOString(),
    target: plan.report.target,
    scope: plan.report.scope,
    base: plan.base,
    root: plan.root,
    bundleRoot: plan.bundleRoot,
    relocation: plan.relocation,
    steps,
    dirs: missingDirs(steps.filter((step) => step.op === 'write').map((step) => step.dest)),
    prune: plan.prune,
  };
  writeJournal(plan.root, journal);
  try {
    runSteps(plan.root, journal, bytes);
    for (const dir of [...plan.prune].sort((a, b) => b.length - a.length)) rmdirIfEmpty(dir);
    // An uninstall notes the folders GSD made for the root before its record goes for good, so the root can go too.
    if (!plan.installed && plan.rootDirs.length > 0) writeRootDirs(plan.root, plan.rootDirs, token);
    commitJournal(plan.root);
  } catch (error) {
    if (isCrash(error)) throw error;
    let how = 'every file it had changed was put back';
    try {
      rollBack(plan.root, journal);
    } catch (rollError) {
      how = `putting the files back failed too (${(rollError as Error).message}); run it again to finish putting them back`;
    }
    throw failed(`${plan.report.action} failed (${(error as Error).message}); ${how}${plan.backups.length > 0 ? ` (copies of your edited files are in ${plan.backupDir})` : ''}`);
  }
}

/** Rolls back what an interrupted run left, after checking its journal against the landing policy. */
function recover(root: string, home: string, policies: readonly LandingPolicy[]): string[] {
  const journal = readJournal(root);
  if (!journal) return [];
  checkJournalLanding(journal, root, home, policies, path.join(root, JOURNAL_DIR, 'journal.json'));
  return rollBack(root, journal);
}

/** Under the root's lock: what an interrupted run left is rolled back, `fn` runs, and the root is settled (unless the run is killed). */
function underLock<T>(root: string, base: string, create: boolean, fn: (rootDirs: string[]) => T): T {
  return withRootLock(root, base, create, (locked) => {
    let crashed = false;
    try {
      return fn(locked.rootDirs);
    } catch (error) {
      crashed = isCrash(error);
      throw error;
    } finally {
      if (!crashed) settleRoot(root, base, readRootDirs(root));
    }
  });
}

/** Read-only checks of what is at the root, before the lock (its first write). */
function precheck(root: string, home: string, policies: readonly LandingPolicy[]): { record: InstalledManifest | null; journal: Journal | null } {
  const record = readInstalled(root);
  if (record) checkRecordLanding(record, root, home, policies, path.join(root, INSTALLED_FILE));
  const journal = readJournal(root);
  if (journal) checkJournalLanding(journal, root, home, policies, path.join(root, JOURNAL_DIR, 'journal.json'));
  return { record, journal };
}

export function install(bundle: Bundle, options: Options): Report {
  const placement = placeBundle(bundle, options);
  const policies = options.policies;
  const { journal } = precheck(placement.root, options.home, policies);
  if (options.dryRun) {
    const report = planInstall(bundle, options, [], placement).report;
    if (journal) report.notes.unshift(`an interrupted ${journal.action} (started ${journal.startedAt}) would be rolled back first; this plan is against the files as they are now`);
    return report;
  }
  return underLock(placement.root, placement.base, true, (rootDirs) => {
    const notes = recover(placement.root, options.home, policies);
    const plan = planInstall(bundle, options, rootDirs, placement);
    plan.report.notes.unshift(...notes);
    applyPlan(plan, { now: options.now, ...(plan.report.previousVersion ? { fromVersion: plan.report.previousVersion } : {}), toVersion: bundle.manifest.version });
    return plan.report;
  });
}

export function uninstall(root: string, options: Pick<Options, 'now' | 'dryRun' | 'policies'> & { home?: string }): Report {
  const home = options.home ?? os.homedir();
  const policies = options.policies;
  if (!fs.existsSync(root) || !hasInstallState(root)) {
    // An uninstall killed after taking the root away leaves only its renamed copy beside it: that goes now.
    if (!options.dryRun && !fs.existsSync(root)) cleanStrays(root, isInside(home, root) ? home : path.dirname(root));
    throw refused(`no GSD install found at ${root} (no ${INSTALLED_FILE}); nothing was changed`);
  }
  const { record, journal } = precheck(root, home, policies);
  if (options.dryRun) {
    if (!record) throw refused(`no GSD install record at ${root}${journal ? `; an interrupted ${journal.action} would be rolled back` : ''}; nothing was changed`);
    const report = planUninstall(root, options).report;
    if (journal) report.notes.unshift(`an interrupted ${journal.action} (started ${journal.startedAt}) would be rolled back first; this plan is against the files as they are now`);
    return report;
  }
  const base = record?.base ?? journal?.base ?? path.dirname(root);
  return underLock(root, base, false, (rootDirs) => {
    const notes = recover(root, home, policies);
    if (!readInstalled(root)) {
      // Nothing was installed before the interrupted run (or only the root's own folders are left): rolling back was all there was to do.
      return {
        action: 'uninstall',
        dryRun: false,
        target: journal?.target ?? record?.target ?? '',
        scope: journal?.scope ?? record?.scope ?? 'global',
        version: record?.version ?? '',
        root,
        relocated: null,
        files: { added: [], updated: [], unchanged: 0, removed: [], kept: [] },
        config: [],
        backedUp: [],
        backupDir: null,
        notes: notes.length > 0 ? notes : ['an interrupted uninstall had already removed everything; its last folders are taken away now'],
      } satisfies Report;
    }
    const plan = planUninstall(root, options, rootDirs);
    plan.report.notes.unshift(...notes);
    applyPlan(plan, { now: options.now, fromVersion: plan.report.version });
    return plan.report;
  });
}
