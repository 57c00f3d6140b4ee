// Install, update and uninstall of one bundle. Each is planned in full first
// (every path confined, every file checked, every config merge computed), so
// a refusal or --dry-run writes nothing; then the plan is applied. What the
// install wrote is recorded in <root>/gsd-install-manifest.json: the files
// with their hashes, and per shared config file the edits GSD made and the
// entries it added, so uninstall restores exactly what was there before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failed, refused, usage } from '../core/errors.ts';
import { sha256, unsafePath, type Bundle, type BundleManifest } from './bundle.ts';
import { isEmptyConfig, mergeConfig, undoEdits, unmergeConfig, type Added, type Edit, type MergeFormat } from './merge.ts';
import { checkManifestLanding, checkRecordLanding, type LandingPolicy } from './landing.ts';
import { LANDING_POLICIES } from './landing-table.ts';

export const INSTALLED_FILE = 'gsd-install-manifest.json';
export const PATCHES_DIR = 'gsd-local-patches';

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
  /** Where each target's bundles may land; default: the table built into this installer. */
  policies?: readonly LandingPolicy[];
}

export interface Report {
  action: 'install' | 'update' | 'uninstall';
  dryRun: boolean;
  target: string;
  scope: 'global' | 'local';
  version: string;
  previousVersion?: string;
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
  const escaped = relocation.from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const inHome = !path.isAbsolute(relocation.tilde);
  return text.replace(new RegExp(`(~|\\$HOME|\\$\\{HOME\\})/${escaped}(?![A-Za-z0-9._-])`, 'g'), (_, anchor: string) => (inHome ? `${anchor}/${relocation.tilde}` : relocation.to));
}

const isInside = (parent: string, child: string) => child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

function realpathOrParent(p: string): string {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    try {
      const real = fs.realpathSync(current);
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
function confine(dest: string, file: string, placement: Placement, manifest: Pick<BundleManifest, 'root'>): void {
  const why = unsafePath(file);
  if (why) throw refused(`refused: "${file}" has ${why}, so it could land outside the install root; nothing was written`);
  const anchor = file.startsWith(`${manifest.root}/`) ? placement.root : placement.base;
  if (!isInside(anchor, dest)) throw refused(`refused: "${file}" would land at ${dest}, outside ${anchor}; nothing was written`);
  const real = realpathOrParent(dest);
  if (!isInside(realpathOrParent(anchor), real) && !isInside(realpathOrParent(placement.base), real)) {
    throw refused(`refused: "${file}" would land at ${real} through a symbolic link, outside ${anchor}; nothing was written`);
  }
}

// ---------------------------------------------------------------- file system helpers

function readIfFile(file: string): Buffer | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return null;
  }
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

/** mkdir -p, returning the folders it created, outermost first. */
function makeDirs(dir: string): string[] {
  const created: string[] = [];
  for (let current = dir; !fs.existsSync(current); current = path.dirname(current)) created.unshift(current);
  for (const folder of created) fs.mkdirSync(folder, { mode: 0o755 });
  return created;
}

/** A file reached through a symbolic link (dotfile setups) is written where the link points. */
function realTarget(file: string): string {
  try {
    if (fs.lstatSync(file).isSymbolicLink()) return fs.realpathSync(file);
  } catch {
    // a new file
  }
  return file;
}

let tempCounter = 0;
function writeAtomic(file: string, bytes: Uint8Array, mode: number): void {
  const target = realTarget(file);
  tempCounter += 1;
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${tempCounter}.gsd-tmp`);
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    fs.writeSync(fd, bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(temp, mode);
  fs.renameSync(temp, target);
}

function modeOf(file: string): number {
  try {
    return fs.statSync(file).mode & 0o777;
  } catch {
    return 0o644;
  }
}

// ---------------------------------------------------------------- plans

interface Plan {
  report: Report;
  /** Copies made before anything is replaced or removed. */
  backups: { from: string; bytes: Buffer; display: string; installed: string; current: string }[];
  backupDir: string;
  /** Home or the project: backups keep paths relative to it. */
  base: string;
  writes: { dest: string; bytes: Buffer; mode: number }[];
  removals: string[];
  /** Folders to take away when empty, deepest first (uninstall, dropped files). */
  prune: string[];
  manifestPath: string;
  /** Written last; null removes it (uninstall). */
  installed: InstalledManifest | null;
  previousDirs: string[];
}

export function readInstalled(root: string): InstalledManifest | null {
  const file = path.join(root, INSTALLED_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let value: InstalledManifest;
  try {
    value = JSON.parse(text) as InstalledManifest;
  } catch (error) {
    throw refused(`${file}: not valid JSON (${(error as Error).message}); the record of the install is damaged, nothing was changed`);
  }
  const strings = ['target', 'scope', 'base', 'root', 'bundleRoot'] as const;
  if (
    value?.installManifestVersion !== 1 ||
    !Array.isArray(value.files) ||
    !Array.isArray(value.config) ||
    !Array.isArray(value.dirs) ||
    strings.some((key) => typeof value[key] !== 'string') ||
    (value.relocation !== null && (typeof value.relocation?.from !== 'string' || typeof value.relocation?.to !== 'string'))
  ) {
    throw refused(`${file}: not an install record this gsd-tools can read; nothing was changed`);
  }
  return value;
}

function display(dest: string, placement: Placement, scope: 'global' | 'local'): string {
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

/** Install, or update when an install record is already at the root. */
export function planInstall(bundle: Bundle, options: Options): Plan {
  const manifest = bundle.manifest;
  if (options.scope && options.scope !== manifest.scope) {
    throw usage(`this is the ${manifest.scope} bundle of ${manifest.runtime}; --${options.scope} needs the ${options.scope} bundle (gsd-${manifest.target}-${options.scope}-${manifest.version}.zip)`);
  }
  const policies = options.policies ?? LANDING_POLICIES;
  // Our own data decides where files may land; the manifest only names the target.
  checkManifestLanding(manifest, policies, bundle.dir ?? 'bundle');
  const placement = resolvePlacement(manifest, options);
  if (bundle.dir && (isInside(bundle.dir, placement.base) || isInside(bundle.dir, placement.root))) {
    throw refused(`refused: the install would land inside the unzipped bundle (${bundle.dir}); run it from your ${manifest.scope === 'local' ? 'project folder' : 'home'}, outside the bundle`);
  }
  const previous = readInstalled(placement.root);
  if (previous && (previous.target !== manifest.target || previous.scope !== manifest.scope)) {
    throw refused(`refused: ${placement.root} holds GSD for ${previous.target} (${previous.scope}); uninstall that first`);
  }
  // An update removes what the old record lists: the record must still describe this install.
  if (previous) checkRecordLanding(previous, placement.root, options.home, policies, path.join(placement.root, INSTALLED_FILE));
  const manifestPath = path.join(placement.root, INSTALLED_FILE);
  const report: Report = {
    action: previous ? 'update' : 'install',
    dryRun: Boolean(options.dryRun),
    target: manifest.target,
    scope: manifest.scope,
    version: manifest.version,
    ...(previous ? { previousVersion: previous.version } : {}),
    root: placement.root,
    relocated: placement.relocation ? { from: placement.relocation.from, to: placement.relocation.to, by: placement.relocation.by } : null,
    files: { added: [], updated: [], unchanged: 0, removed: [], kept: [] },
    config: [],
    backedUp: [],
    backupDir: null,
    notes: [],
  };
  const show = (dest: string) => display(dest, placement, manifest.scope);
  const plan: Plan = { report, backups: [], backupDir: backupDirFor(placement.root, options.now), base: placement.base, writes: [], removals: [], prune: [], manifestPath, installed: null, previousDirs: previous?.dirs ?? [] };
  const previousFiles = new Map((previous?.files ?? []).map((file) => [file.dest, file]));
  const previousConfig = new Map((previous?.config ?? []).map((entry) => [entry.dest, entry]));
  const files: InstalledFile[] = [];
  const config: InstalledConfig[] = [];
  const conflicts: string[] = [];
  const bytesFor = (file: BundleManifest['files'][number]) => {
    const raw = bundle.read(file.path);
    if (!placement.relocation || file.generated) return raw;
    const text = raw.toString('utf8');
    const moved = relocateText(text, placement.relocation);
    return moved === text ? raw : Buffer.from(moved, 'utf8');
  };
  for (const file of manifest.files) {
    const dest = destinationOf(file.path, manifest, placement);
    confine(dest, file.path, placement, manifest);
    if (dest === manifestPath || isInside(path.join(placement.root, PATCHES_DIR), dest)) throw refused(`refused: "${file.path}" would overwrite the installer's own records; nothing was written`);
    const bytes = bytesFor(file);
    if (file.merge) {
      config.push(planConfig(plan, file.path, dest, file.merge, bytes.toString('utf8'), previousConfig.get(dest) ?? null, show));
      previousConfig.delete(dest);
      continue;
    }
    const hash = sha256(bytes);
    const mode = file.mode;
    files.push({ path: file.path, dest, sha256: hash, mode });
    const before = previousFiles.get(dest);
    previousFiles.delete(dest);
    const current = readIfFile(dest);
    if (current === null) {
      plan.writes.push({ dest, bytes, mode: parseInt(mode, 8) });
      (before ? report.files.updated : report.files.added).push(show(dest));
      continue;
    }
    const currentHash = sha256(current);
    if (currentHash === hash) {
      if (modeOf(dest) !== parseInt(mode, 8)) plan.writes.push({ dest, bytes, mode: parseInt(mode, 8) });
      if (before) report.files.unchanged += 1;
      else conflicts.push(show(dest));
      continue;
    }
    if (!before) conflicts.push(show(dest));
    else if (currentHash !== before.sha256) plan.backups.push({ from: dest, bytes: current, display: show(dest), installed: before.sha256, current: currentHash });
    plan.writes.push({ dest, bytes, mode: parseInt(mode, 8) });
    report.files.updated.push(show(dest));
  }
  if (conflicts.length > 0) {
    if (!options.force) {
      throw refused(
        `refused: ${conflicts.length} file(s) GSD would write already exist and are not from a GSD install here: ${conflicts.slice(0, 5).join(', ')}${conflicts.length > 5 ? ', …' : ''}. Move them away, or pass --force to back them up to ${show(path.join(placement.root, PATCHES_DIR))}/ and replace them; nothing was written`,
        { conflicts },
      );
    }
    for (const dest of conflicts) {
      const full = files.find((file) => show(file.dest) === dest)!;
      const current = readIfFile(full.dest)!;
      plan.backups.push({ from: full.dest, bytes: current, display: dest, installed: '', current: sha256(current) });
    }
    report.notes.push(`--force: ${conflicts.length} file(s) that were not from a GSD install were backed up, then replaced`);
  }
  // Files the new bundle no longer has: removed when unmodified, kept (and no longer tracked) when changed.
  for (const before of previousFiles.values()) {
    const current = readIfFile(before.dest);
    if (current === null) continue;
    if (sha256(current) === before.sha256) {
      plan.removals.push(before.dest);
      report.files.removed.push(show(before.dest));
    } else report.files.kept.push(show(before.dest));
  }
  for (const before of previousConfig.values()) planConfigRemoval(plan, before, show);
  report.backedUp = plan.backups.map((backup) => backup.display);
  report.backupDir = plan.backups.length > 0 ? plan.backupDir : null;
  plan.installed = {
    installManifestVersion: 1,
    target: manifest.target,
    runtime: manifest.runtime,
    scope: manifest.scope,
    version: manifest.version,
    bundleManifestSha256: bundle.manifestSha256,
    installedAt: options.now.toISOString(),
    base: placement.base,
    root: placement.root,
    bundleRoot: manifest.root,
    relocation: placement.relocation,
    files,
    config,
    dirs: previous?.dirs ?? [],
  };
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
  if (merged.text !== current) plan.writes.push({ dest, bytes: Buffer.from(merged.text, 'utf8'), mode: current === null ? 0o644 : modeOf(dest) });
  plan.report.config.push({ path: label, action: current === null ? 'created' : merged.text === current ? 'unchanged' : before ? 'updated' : 'merged' });
  return { path: file, dest, format, created, sha256: sha256(merged.text), edits: merged.edits, added: merged.added };
}

function planConfigRemoval(plan: Plan, before: InstalledConfig, show: (dest: string) => string): void {
  const label = show(before.dest);
  const current = readIfFile(before.dest)?.toString('utf8') ?? null;
  if (current === null) return;
  const base = withoutPrevious(current, before, label, plan.report.notes);
  if (base === null) {
    plan.removals.push(before.dest);
    plan.report.config.push({ path: label, action: 'deleted' });
  } else if (base !== current) {
    plan.writes.push({ dest: before.dest, bytes: Buffer.from(base, 'utf8'), mode: modeOf(before.dest) });
    plan.report.config.push({ path: label, action: 'restored' });
  } else plan.report.config.push({ path: label, action: 'unchanged' });
}

/** Uninstall what the record at `root` says was installed. */
export function planUninstall(root: string, options: Pick<Options, 'now' | 'dryRun' | 'policies'> & { home?: string }): Plan {
  const installed = readInstalled(root);
  if (!installed) throw refused(`no GSD install found at ${root} (no ${INSTALLED_FILE}); nothing was changed`);
  // Every path the record lists is checked against the target's policy before any is touched.
  checkRecordLanding(installed, root, options.home ?? os.homedir(), options.policies ?? LANDING_POLICIES, path.join(root, INSTALLED_FILE));
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
  const plan: Plan = { report, backups: [], backupDir: backupDirFor(root, options.now), base: installed.base, writes: [], removals: [], prune: installed.dirs, manifestPath: path.join(root, INSTALLED_FILE), installed: null, previousDirs: installed.dirs };
  for (const file of installed.files) {
    const current = readIfFile(file.dest);
    if (current === null) continue;
    const hash = sha256(current);
    if (hash !== file.sha256) plan.backups.push({ from: file.dest, bytes: current, display: show(file.dest), installed: file.sha256, current: hash });
    plan.removals.push(file.dest);
    report.files.removed.push(show(file.dest));
  }
  for (const entry of installed.config) planConfigRemoval(plan, entry, show);
  report.backedUp = plan.backups.map((backup) => backup.display);
  report.backupDir = plan.backups.length > 0 ? plan.backupDir : null;
  return plan;
}

// ---------------------------------------------------------------- applying a plan

export function applyPlan(plan: Plan, meta: { now: Date; fromVersion?: string; toVersion?: string }): void {
  if (plan.backups.length > 0) {
    makeDirs(plan.backupDir);
    for (const backup of plan.backups) {
      const relative = isInside(plan.base, backup.from) ? path.relative(plan.base, backup.from) : path.join('_root', path.relative(plan.report.root, backup.from));
      const target = path.join(plan.backupDir, relative);
      makeDirs(path.dirname(target));
      fs.writeFileSync(target, backup.bytes, { mode: 0o600 });
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
    fs.writeFileSync(path.join(plan.backupDir, 'backup-meta.json'), `${JSON.stringify(metaFile, null, 2)}\n`, { mode: 0o600 });
  }
  const created: string[] = [];
  // What each step replaced, so a failure part-way puts every file back as it was.
  const journal: { file: string; bytes: Buffer | null; mode: number }[] = [];
  const remember = (file: string) => {
    const target = realTarget(file);
    journal.push({ file: target, bytes: fs.existsSync(target) ? fs.readFileSync(target) : null, mode: modeOf(target) });
  };
  try {
    for (const write of plan.writes) {
      created.push(...makeDirs(path.dirname(write.dest)));
      remember(write.dest);
      writeAtomic(write.dest, write.bytes, write.mode);
    }
    for (const file of plan.removals) {
      remember(file);
      fs.rmSync(file, { force: true });
    }
  } catch (error) {
    for (const entry of journal.reverse()) {
      try {
        if (entry.bytes === null) fs.rmSync(entry.file, { force: true });
        else writeAtomic(entry.file, entry.bytes, entry.mode);
      } catch {
        // best effort: the message below says what failed
      }
    }
    pruneEmpty(created);
    throw failed(`${plan.report.action} failed (${(error as Error).message}); every file it had changed was put back${plan.backups.length > 0 ? ` (copies of your edited files are in ${plan.backupDir})` : ''}`);
  }
  if (plan.installed) {
    created.push(...makeDirs(path.dirname(plan.manifestPath)));
    const dirs = [...new Set([...plan.previousDirs, ...created])].sort();
    // Folders GSD made that held only files this update removed.
    pruneEmpty(dirs.filter((dir) => plan.removals.some((file) => isInside(dir, file))));
    plan.installed.dirs = dirs.filter((dir) => fs.existsSync(dir));
    writeAtomic(plan.manifestPath, Buffer.from(`${JSON.stringify(plan.installed, null, 2)}\n`, 'utf8'), 0o600);
  } else {
    fs.rmSync(plan.manifestPath, { force: true });
    pruneEmpty(plan.prune);
  }
}

function pruneEmpty(dirs: readonly string[]): void {
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      fs.rmdirSync(dir);
    } catch {
      // not empty (the user's files, or the backups), or already gone
    }
  }
}

export function install(bundle: Bundle, options: Options): Report {
  const plan = planInstall(bundle, options);
  if (!options.dryRun) applyPlan(plan, { now: options.now, ...(plan.report.previousVersion ? { fromVersion: plan.report.previousVersion } : {}), toVersion: bundle.manifest.version });
  return plan.report;
}

export function uninstall(root: string, options: Pick<Options, 'now' | 'dryRun' | 'policies'> & { home?: string }): Report {
  const plan = planUninstall(root, options);
  if (!options.dryRun) applyPlan(plan, { now: options.now, fromVersion: plan.report.version });
  return plan.report;
}
