// Installs that survive anything. For every bundle (15 runtimes x global and
// local), with the user's own config in every format the runtime shares with
// GSD (comments, odd spacing, flow maps, a TOML line that looks like GSD's in
// another table, hooks of the user's on the same events, an event hook file
// of the user's that --force replaces), the installer is stopped after the
// Nth write at 10 points spread over the whole install, and then
//   (a) install is run again, then an update to a changed bundle, then the
//       user edits each shared config file, then uninstall; or
//   (b) uninstall is run at once;
// and the user's tree must be byte for byte what it was (with the user's
// edit, for a), with no GSD file or entry left. In-process the stop is a
// thrown SimulatedCrash that skips every cleanup (journal.ts); a sample of
// bundles runs the shipped gsd-tools in a child process that sends itself a
// real SIGKILL at the Nth write. Then: configs GSD cannot merge safely are
// refused with their line and column and nothing written, and concurrent
// installs into one root serialise on its lock.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import type { VirtualTree } from '../../../compiler/emit/virtual-tree.ts';
import { bundleFromFiles, type BundleManifest } from '../install/bundle.ts';
import { install, INSTALLED_FILE, PATCHES_DIR, uninstall, type Options } from '../install/install.ts';
import { crashAfterWrites, fsyncForTests, isCrash, LOCK_FILE, writesSoFar } from '../install/journal.ts';
import type { LandingPolicy } from '../install/landing.ts';
import { processStart } from '../core/lock.ts';
import { builtBundles, manifestOf, nextRelease, sha, snapshot, treeFiles, type Files } from './install-fixtures.ts';

const s = suite('install interruptions');
let bundles: Map<string, VirtualTree>;
let policies: LandingPolicy[];

s.before(async () => {
  ({ bundles, policies } = await builtBundles());
});

const filesOf = (key: string): Files => treeFiles(bundles.get(key)!);
/** Every file and folder under `dir`, without GSD's backups folder (kept on purpose). */
const snapshotUser = (dir: string) => snapshot(dir, (_, name) => name === PATCHES_DIR);

/** Scratch folders this file removes itself (the matrix makes hundreds, one at a time): in memory where there is a tmpfs, as the disk is shared. */
const SCRATCH = fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').isDirectory() ? '/dev/shm' : os.tmpdir();
function scratch(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(SCRATCH, prefix)));
}
const drop = (...dirs: string[]) => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true }));

function write(file: string, text: string, mode = 0o644): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  fs.chmodSync(file, mode);
}

// ---------------------------------------------------------------- the user's own config

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The user's entries beside GSD's: the same events and lists, their own commands. */
function mine(value: unknown): unknown {
  if (Array.isArray(value)) return value.length > 0 && isObject(value[0]) ? [mine(value[0])] : value.length > 0 && typeof value[0] === 'string' ? ['mine'] : [];
  if (isObject(value)) {
    if (Object.values(value).every((inner) => !isObject(inner) && !Array.isArray(inner))) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, typeof inner === 'string' ? `echo mine ${key}` : inner]));
    }
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, mine(inner)]));
  }
  return value;
}

/** JSON(C) with comments, odd spacing and the user's hooks on GSD's events. */
function userJson(gsdText: string, jsonc: boolean): string {
  const gsd = JSON.parse(gsdText) as Record<string, unknown>;
  const user: Record<string, unknown> = { userKey: 1 };
  for (const [key, value] of Object.entries(gsd)) if (isObject(value) || Array.isArray(value)) user[key] = mine(value);
  const text = JSON.stringify(user, null, 3)
    .replace('{\n', '{\n   // my own settings; odd spacing below\n')
    .replace('"userKey": 1,', '"userKey" :    1, /* inline */');
  return jsonc ? text.replace(/\n}$/, ',\n}\n') : `${text}\n`;
}

const USER_TOML =
  '# my config\nmodel   =   "o3"    # trailing comment\ninline = { a = 1,  b = [ 2, 3 ] }\n\n[agents]\nmax_threads = 4\n\n[profiles.deep]\nmax_depth = 1    # the same line GSD adds to [agents]\n\n[[hooks]]\nevent = "PreToolUse"\nmatcher = "^Bash$"\ncommand = "echo mine"\n';
const USER_YAML =
  '# my profile\nmodel:   big    # odd spacing\ndisplay: {theme: dark,  compact: true}\nhooks:\n  pre_tool_call:\n    - command: echo mine   # my guard\n      timeout: 5\n  post_tool_call: [{command: echo flow}]\nterminal:\n    backend: local\n';
const USER_MARKDOWN = '# My instructions\n\n  Always answer in haiku.   \n\n<!-- my own comment -->\n';

function userConfig(format: string, file: string, gsdText: string): string {
  if (format === 'json') return userJson(gsdText, file.endsWith('.jsonc'));
  if (format === 'toml') return USER_TOML;
  if (format === 'yaml') return USER_YAML;
  return USER_MARKDOWN;
}

/** The user's edit after the install, in each format. */
function userEdit(format: string, text: string): string {
  if (format === 'json') return text.replace('"userKey"', '"later": true,\n   "userKey"');
  if (format === 'toml') return `${text}\n[later]\nx = 1\n`;
  if (format === 'yaml') return `${text}later: true\n`;
  return `${text}\nmore of mine\n`;
}

interface Scene {
  key: string;
  files: Files;
  manifest: BundleManifest;
  home: string;
  project: string;
  base: string;
  root: string;
  /** The user's tree before anything. */
  before: { home: Map<string, string>; project: Map<string, string> };
  merged: { path: string; format: string; text: string }[];
  force: boolean;
}

/** A home and a project holding the user's files for one bundle. */
function scene(key: string): Scene {
  const files = filesOf(key);
  const manifest = manifestOf(files);
  const home = scratch('gsd-int-home-');
  const project = path.join(home, 'work', 'project');
  fs.mkdirSync(project, { recursive: true });
  write(path.join(project, 'src', 'main.ts'), 'export {};\n');
  const base = manifest.scope === 'global' ? home : project;
  const merged: Scene['merged'] = [];
  for (const file of manifest.files.filter((entry) => entry.merge)) {
    const text = userConfig(file.merge!, file.path, Buffer.from(files.get(file.path)!).toString('utf8'));
    write(path.join(base, file.path), text);
    merged.push({ path: file.path, format: file.merge!, text });
  }
  // Bundles without shared config start from no root at all: GSD creates it and must take it away again.
  if (merged.length > 0) write(path.join(base, manifest.root, 'my-notes.md'), 'my own file in the runtime folder\n');
  // Cline: the user's own event hook, which only --force may replace (and uninstall must put back).
  let force = false;
  for (const file of manifest.files.filter((entry) => /\/hooks\/(PreToolUse|PostToolUse)$/.test(entry.path))) {
    write(path.join(base, file.path), '#!/bin/sh\n# my own hook\necho mine\n', 0o755);
    force = true;
  }
  return { key, files, manifest, home, project, base, root: path.join(base, manifest.root), before: { home: snapshotUser(home), project: snapshotUser(project) }, merged, force };
}

const options = (sc: Scene, extra: Partial<Options> = {}): Options => ({ home: sc.home, cwd: sc.project, env: {}, now: new Date('2026-01-02T03:04:05Z'), policies, force: sc.force, ...extra });

/** The differences between the user's tree as it should be and as it is, or [] when identical. */
function differences(sc: Scene, edited: boolean): string[] {
  const expected = new Map(sc.before.home);
  if (edited) {
    const prefix = sc.manifest.scope === 'global' ? '' : path.relative(sc.home, sc.project) + path.sep;
    for (const entry of sc.merged) {
      const relative = prefix + entry.path.split('/').join(path.sep);
      const mode = expected.get(relative)!.split(' ')[0];
      expected.set(relative, `${mode} ${sha(userEdit(entry.format, entry.text))}`);
    }
  }
  const actual = snapshotUser(sc.home);
  const out: string[] = [];
  for (const [file, value] of expected) if (actual.get(file) !== value) out.push(`${actual.has(file) ? 'changed' : 'missing'}: ${file}`);
  for (const file of actual.keys()) if (!expected.has(file)) out.push(`left: ${file}`);
  return out;
}

function editConfigs(sc: Scene): void {
  for (const entry of sc.merged) {
    const file = path.join(sc.base, entry.path);
    fs.writeFileSync(file, userEdit(entry.format, fs.readFileSync(file, 'utf8')));
  }
}

/** Each bundle (and its next release) read and checked once: the matrix installs them hundreds of times. */
const readBundles = new Map<string, ReturnType<typeof bundleFromFiles>>();
function bundleOf(sc: Scene, next = false) {
  const id = `${sc.key}${next ? '+next' : ''}`;
  if (!readBundles.has(id)) readBundles.set(id, bundleFromFiles(next ? nextRelease(sc.files) : sc.files, id));
  return readBundles.get(id)!;
}

/** The writes of a whole install of `sc`'s bundle and of its uninstall, counted by running both unstopped. */
function measureWrites(sc: Scene): { install: number; uninstall: number } {
  crashAfterWrites(Number.MAX_SAFE_INTEGER);
  install(bundleOf(sc), options(sc));
  const installWrites = writesSoFar();
  crashAfterWrites(Number.MAX_SAFE_INTEGER);
  uninstall(sc.root, options(sc));
  return { install: installWrites, uninstall: writesSoFar() };
}

/** Runs `fn` with the installer stopped after `writes` writes; true when it was stopped. */
function interrupted(writes: number, fn: () => unknown): boolean {
  crashAfterWrites(writes);
  try {
    fn();
    return false;
  } catch (error) {
    if (isCrash(error)) return true;
    throw error;
  } finally {
    crashAfterWrites(null);
  }
}

const points = (total: number, count: number) => [...new Set(Array.from({ length: count }, (_, i) => Math.round((i * (total - 1)) / (count - 1))))];

// ---------------------------------------------------------------- the matrix

s('should recover every bundle from an install stopped at 10 points, by installing again (then update and uninstall) or by uninstalling', () => {
  fsyncForTests(false);
  const figures = { bundles: 0, tried: 0, reinstall: 0, uninstall: 0, update: 0, uninstallStops: 0, failures: [] as string[] };
  const started = Date.now();
  try {
    // GSD_MATRIX_KEYS=claude/global,codex/local narrows the matrix while working on it.
    const only = process.env.GSD_MATRIX_KEYS?.split(',');
    for (const key of [...bundles.keys()].sort().filter((entry) => !only || only.includes(entry))) {
      figures.bundles += 1;
      // The size of a whole install and uninstall of this bundle, in writes.
      const probe = scene(key);
      const { install: total, uninstall: uninstallTotal } = measureWrites(probe);
      install(bundleOf(probe), options(probe));
      crashAfterWrites(Number.MAX_SAFE_INTEGER);
      install(bundleOf(probe, true), options(probe));
      const updateTotal = writesSoFar();
      crashAfterWrites(null);
      uninstall(probe.root, options(probe));
      const clean = differences(probe, false);
      if (clean.length > 0) figures.failures.push(`${key}: plain install + uninstall: ${clean.slice(0, 3).join('; ')}`);
      drop(probe.home);
      for (const at of points(total, 10)) {
        figures.tried += 1;
        // (a) install again, update, the user edits, uninstall.
        const a = scene(key);
        try {
          if (!interrupted(at, () => install(bundleOf(a), options(a)))) throw new Error('the install was not stopped');
          const pending = fs.existsSync(path.join(a.root, 'gsd-install-journal', 'journal.json'));
          const again = install(bundleOf(a), options(a));
          if (pending && !again.notes.some((note) => note.includes('rolled back'))) throw new Error(`no rollback reported: ${again.notes.join(' | ')}`);
          install(bundleOf(a, true), options(a));
          editConfigs(a);
          uninstall(a.root, options(a));
          const diff = differences(a, true);
          if (diff.length === 0) figures.reinstall += 1;
          else figures.failures.push(`${key} @${at}/${total} (install again): ${diff.slice(0, 4).join('; ')}`);
        } catch (error) {
          figures.failures.push(`${key} @${at}/${total} (install again): ${(error as Error).message.slice(0, 300)}`);
        }
        drop(a.home);
        // (b) uninstall at once.
        const b = scene(key);
        try {
          if (!interrupted(at, () => install(bundleOf(b), options(b)))) throw new Error('the install was not stopped');
          try {
            uninstall(b.root, options(b));
          } catch (error) {
            // Stopped before its first write there is nothing to uninstall, and saying so is right.
            if (!(at === 0 && /no GSD install found/.test((error as Error).message))) throw error;
          }
          const diff = differences(b, false);
          if (diff.length === 0) figures.uninstall += 1;
          else figures.failures.push(`${key} @${at}/${total} (uninstall): ${diff.slice(0, 4).join('; ')}`);
        } catch (error) {
          figures.failures.push(`${key} @${at}/${total} (uninstall): ${(error as Error).message.slice(0, 300)}`);
        }
        drop(b.home);
      }
      // An update and an uninstall stopped part-way, recovered by the next run.
      for (const [phase, at] of [['update', 0.6], ['uninstall', 0.4]] as const) {
        const c = scene(key);
        try {
          install(bundleOf(c), options(c));
          if (phase === 'update') {
            if (!interrupted(Math.floor(updateTotal * at), () => install(bundleOf(c, true), options(c)))) throw new Error('the update was not stopped');
            install(bundleOf(c, true), options(c));
            uninstall(c.root, options(c));
          } else {
            if (!interrupted(Math.floor(uninstallTotal * at), () => uninstall(c.root, options(c)))) throw new Error('the uninstall was not stopped');
            uninstall(c.root, options(c));
          }
          const diff = differences(c, false);
          if (diff.length === 0) figures[phase === 'update' ? 'update' : 'uninstallStops'] += 1;
          else figures.failures.push(`${key} ${phase} stopped at ${at}: ${diff.slice(0, 4).join('; ')}`);
        } catch (error) {
          figures.failures.push(`${key} ${phase} stopped at ${at}: ${(error as Error).message.slice(0, 300)}`);
        }
        drop(c.home);
      }
    }
  } finally {
    fsyncForTests(true);
    crashAfterWrites(null);
  }
  console.log(
    `  interruption matrix (in-process, stopped after the Nth write): ${figures.bundles} bundles x 10 points = ${figures.tried} installs stopped; recovered by install again (+ update + uninstall): ${figures.reinstall}; recovered by uninstall: ${figures.uninstall}; updates stopped and recovered: ${figures.update}/${figures.bundles}; uninstalls stopped and recovered: ${figures.uninstallStops}/${figures.bundles}; failures: ${figures.failures.length} (${Math.round((Date.now() - started) / 1000)} s)`,
  );
  assert.equal(figures.failures, []);
  assert.is(figures.reinstall, figures.tried);
  assert.is(figures.uninstall, figures.tried);
});


// ---------------------------------------------------------------- the shipped gsd-tools, killed for real

function unzipTo(dir: string, files: Files): void {
  for (const [file, bytes] of files) {
    const full = path.join(dir, ...file.split('/'));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, bytes);
  }
  for (const file of manifestOf(files).files) if (file.mode === '0755') fs.chmodSync(path.join(dir, ...file.path.split('/')), 0o755);
}

function cli(sc: Scene, folder: string, args: string[], env: Record<string, string> = {}, tools = path.join(folder, sc.manifest.root, 'gsd-core', 'bin', 'gsd-tools.cjs')) {
  return spawnSync(process.execPath, [tools, ...args], {
    cwd: sc.project,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: sc.home, GSD_NO_CODE_CACHE: '1', GSD_NOW: '2026-01-02T03:04:05Z', ...env },
  });
}

const SAMPLE = ['claude/global', 'codex/local', 'hermes/global', 'cline/local'];

s(`should recover ${SAMPLE.length} bundles from a real SIGKILL of the shipped gsd-tools at 3 points each`, () => {
  const figures = { tried: 0, killed: 0, reinstall: 0, uninstall: 0, failures: [] as string[] };
  for (const key of SAMPLE) {
    // Where to stop: the in-process count of writes for the same install.
    const probe = scene(key);
    crashAfterWrites(Number.MAX_SAFE_INTEGER);
    install(bundleFromFiles(probe.files, key), options(probe));
    const total = writesSoFar();
    crashAfterWrites(null);
    drop(probe.home);
    const scope = `--${probe.manifest.scope}`;
    for (const [index, at] of [2, Math.floor(total / 2), total - 2].entries()) {
      figures.tried += 1;
      const sc = scene(key);
      const folder = scratch('gsd-int-zip-');
      unzipTo(folder, sc.files);
      const flags = sc.force ? [scope, '--force'] : [scope];
      const killed = cli(sc, folder, ['install', ...flags], { GSD_TEST_INSTALL_CRASH_AFTER: String(at) });
      if (killed.signal === 'SIGKILL') figures.killed += 1;
      else figures.failures.push(`${key} @${at}: not killed (status ${killed.status}, ${killed.stderr.slice(0, 200)})`);
      if (index !== 1) {
        // Install again from the bundle, then uninstall with the installed copy.
        const again = cli(sc, folder, ['install', ...flags]);
        const removed = again.status === 0 ? cli(sc, folder, ['uninstall'], {}, path.join(sc.root, 'gsd-core', 'bin', 'gsd-tools.cjs')) : again;
        const diff = removed.status === 0 ? differences(sc, false) : [`exit ${removed.status}: ${removed.stderr.slice(0, 300)}`];
        if (diff.length === 0) figures.reinstall += 1;
        else figures.failures.push(`${key} @${at} (install again): ${diff.slice(0, 4).join('; ')}`);
      } else {
        // Uninstall at once, with the bundle's gsd-tools (the installed copy may not be there yet).
        const removed = cli(sc, folder, ['uninstall', scope]);
        const diff = removed.status === 0 ? differences(sc, false) : [`exit ${removed.status}: ${removed.stderr.slice(0, 300)}`];
        if (diff.length === 0) figures.uninstall += 1;
        else figures.failures.push(`${key} @${at} (uninstall): ${diff.slice(0, 4).join('; ')}`);
      }
      drop(sc.home, folder);
    }
  }
  console.log(`  SIGKILL sample (shipped gsd-tools in a child process): ${SAMPLE.length} bundles x 3 points = ${figures.tried} tried, ${figures.killed} killed mid-install; recovered by install again: ${figures.reinstall}; by uninstall: ${figures.uninstall}; failures: ${figures.failures.length}`);
  assert.equal(figures.failures, []);
  assert.is(figures.killed, figures.tried);
});

// ---------------------------------------------------------------- what GSD cannot merge safely is refused

function refusedWithNothingWritten(key: string, file: string, text: string, expect: RegExp): void {
  const sc = scene(key);
  const target = path.join(sc.base, file);
  write(target, text);
  const before = snapshotUser(sc.home);
  let message = '';
  try {
    install(bundleFromFiles(sc.files, key), options(sc));
  } catch (error) {
    message = (error as Error).message;
  }
  assert.match(message, expect, `${key} ${JSON.stringify(text)}: ${message || 'installed'}`);
  assert.equal(snapshotUser(sc.home), before, `${key}: something was written`);
  drop(sc.home);
}

s('should refuse a settings.json with duplicate keys or an unexpected hooks shape, and unparseable TOML or YAML, naming the line and column, writing nothing', () => {
  refusedWithNothingWritten('claude/global', '.claude/settings.json', '{\n  "hooks": {},\n  "model": "x",\n  "hooks": {}\n}\n', /\.claude\/settings\.json:4:3: refused: expected each key once in an object, found "hooks" again \(first at 2:3\)/);
  refusedWithNothingWritten('claude/local', '.claude/settings.json', '{ "hooks": [] }\n', /settings\.json:1:12: refused: expected hooks to be an object \(GSD adds its entries there\), found a list/);
  refusedWithNothingWritten('claude/local', '.claude/settings.json', '{ "hooks": { "PreToolUse": "x" } }\n', /settings\.json:1:28: refused: expected hooks\.PreToolUse to be a list \(GSD adds its entries to it\), found a string \("x"\)/);
  refusedWithNothingWritten('cursor/local', '.cursor/hooks.json', '{ "hooks": 3 }\n', /hooks\.json:1:12: refused: expected hooks to be an object/);
  refusedWithNothingWritten('claude/local', '.claude/settings.json', '{ "a": 1,, }\n', /settings\.json:1:10: not valid JSON/);
  refusedWithNothingWritten('kimi/global', '.kimi-code/config.toml', 'model = "x"\n[agents\n', /config\.toml:2:\d+: not valid TOML/);
  refusedWithNothingWritten('kimi/global', '.kimi-code/config.toml', 'hooks = "none"\n', /config\.toml:1:1: refused: expected hooks to be a list of tables \(\[\[hooks\]\]\) GSD adds its entries to, found a string/);
  refusedWithNothingWritten('hermes/global', '.hermes/config.yaml', 'model: big\nhooks: [1\n', /config\.yaml:\d+:\d+: not valid YAML/);
  refusedWithNothingWritten('hermes/global', '.hermes/config.yaml', 'hooks:\n  pre_tool_call: run it\n', /config\.yaml:2:18: refused: expected hooks\.pre_tool_call to be a list/);
  refusedWithNothingWritten('hermes/global', '.hermes/config.yaml', 'a: 1\na: 2\n', /config\.yaml:2:1: not valid YAML \(Map keys must be unique/);
});

// ---------------------------------------------------------------- the user's bytes, per format

s("should leave every byte of the user's YAML, TOML and hook files as they were, inside and after GSD's entries", () => {
  // Hermes: the user's lines are all still there, in order and unchanged; GSD's go in as whole lines or flow entries.
  const hermes = scene('hermes/global');
  install(bundleFromFiles(hermes.files, hermes.key), options(hermes));
  const yaml = fs.readFileSync(path.join(hermes.home, '.hermes/config.yaml'), 'utf8');
  let at = 0;
  for (const line of USER_YAML.split('\n').filter(Boolean)) {
    const found = yaml.split('\n').indexOf(line.replace('[{command: echo flow}]', ''), at);
    if (line.includes('post_tool_call')) assert.ok(yaml.includes('  post_tool_call: [{command: echo flow}, {'), 'flow list extended in flow style');
    else {
      assert.ok(found >= at, `user line kept: ${line}`);
      at = found;
    }
  }
  assert.ok(yaml.includes('    - command: echo mine   # my guard\n      timeout: 5\n    - matcher:'), "GSD's hook follows the user's, indented as the user's list is");
  drop(hermes.home);

  // Codex: the user's `max_depth = 1` in [profiles.deep] survives an uninstall after an edit; GSD's under [agents] goes.
  const codex = scene('codex/global');
  install(bundleFromFiles(codex.files, codex.key), options(codex));
  const toml = path.join(codex.home, '.codex/config.toml');
  assert.ok(fs.readFileSync(toml, 'utf8').includes('[agents]\nmax_depth = 1\nmax_threads = 4\n'));
  editConfigs(codex);
  uninstall(codex.root, options(codex));
  assert.is(fs.readFileSync(toml, 'utf8'), userEdit('toml', USER_TOML));
  drop(codex.home);

  // Cline: the user's own event hook is refused without --force; with it, backed up, replaced, and put back by uninstall.
  const cline = scene('cline/local');
  const hook = path.join(cline.project, '.clinerules/hooks/PreToolUse');
  assert.throws(() => install(bundleFromFiles(cline.files, cline.key), options(cline, { force: false })), /not from a GSD install here: .*\.clinerules\/hooks\/PreToolUse.*uninstall puts them back/);
  const report = install(bundleFromFiles(cline.files, cline.key), options(cline));
  assert.ok(report.backedUp.includes('.clinerules/hooks/PreToolUse'));
  assert.not.match(fs.readFileSync(hook, 'utf8'), /my own hook/);
  const record = JSON.parse(fs.readFileSync(path.join(cline.root, INSTALLED_FILE), 'utf8')) as { files: { path: string; original?: { backup: string } }[] };
  assert.match(record.files.find((file) => file.path === '.clinerules/hooks/PreToolUse')!.original!.backup, /^gsd-local-patches\//);
  install(bundleFromFiles(nextRelease(cline.files), cline.key), options(cline, { force: false }));
  uninstall(cline.root, options(cline));
  assert.is(fs.readFileSync(hook, 'utf8'), '#!/bin/sh\n# my own hook\necho mine\n');
  assert.is(fs.statSync(hook).mode & 0o777, 0o755);
  assert.equal(differences(cline, false), []);
  drop(cline.home);
});

// ---------------------------------------------------------------- one run at a time per root

s('should serialise two installs into one root: both succeed one after the other, leaving one correct install', async () => {
  const sc = scene('claude/global');
  const folder = scratch('gsd-int-zip-');
  unzipTo(folder, sc.files);
  const tools = path.join(folder, '.claude', 'gsd-core', 'bin', 'gsd-tools.cjs');
  const env = { PATH: process.env.PATH ?? '', HOME: sc.home, GSD_NO_CODE_CACHE: '1' };
  const run = () =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [tools, 'install', '--global'], { cwd: sc.project, env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  for (let round = 0; round < 3; round += 1) {
    const [first, second] = await Promise.all([run(), run()]);
    assert.is(first.status, 0, first.stderr);
    assert.is(second.status, 0, second.stderr);
    const actions = [first, second].map((r) => (JSON.parse(r.stdout) as { action: string }).action).sort();
    assert.equal(actions, round === 0 ? ['install', 'update'] : ['update', 'update']);
    const settings = fs.readFileSync(path.join(sc.home, '.claude/settings.json'), 'utf8');
    const gsd = Buffer.from(sc.files.get('.claude/settings.json')!).toString('utf8');
    assert.is(settings.split('gsd-secret-read-guard').length, gsd.split('gsd-secret-read-guard').length, "GSD's hooks are in settings.json once");
    for (const file of sc.manifest.files.filter((entry) => !entry.merge)) assert.is(sha(fs.readFileSync(path.join(sc.home, file.path))), file.sha256, file.path);
    assert.not.ok(fs.existsSync(path.join(sc.root, LOCK_FILE)), 'the lock is released');
  }
  uninstall(sc.root, options(sc));
  assert.equal(differences(sc, false), []);
  drop(sc.home, folder);
});

s('should wait for a live lock holder, refuse after the bounded wait with a clear message, and take over the lock of a dead or reused pid', async () => {
  const sc = scene('claude/local');
  const folder = scratch('gsd-int-zip-');
  unzipTo(folder, sc.files);
  const lock = path.join(sc.root, LOCK_FILE);
  const live = `${process.pid}\n${processStart(process.pid) ?? '-'}\ntest-holder\n`;
  // Held by a live process (this one): refused after the wait, nothing changed.
  write(lock, live);
  const before = snapshotUser(sc.home);
  const refusedRun = cli(sc, folder, ['install', '--local'], { GSD_INSTALL_LOCK_TIMEOUT_MS: '400' });
  assert.is(refusedRun.status, 1);
  assert.match(refusedRun.stderr, /another gsd-tools install or uninstall is working on .*\.claude .*lock held by live process \d+.*waited 0 s\. Run again when it has finished/);
  assert.equal(snapshotUser(sc.home), before);
  // Released while it waits: it goes on.
  const waiting = new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(folder, '.claude/gsd-core/bin/gsd-tools.cjs'), 'install', '--local'], { cwd: sc.project, env: { PATH: process.env.PATH ?? '', HOME: sc.home, GSD_NO_CODE_CACHE: '1', GSD_INSTALL_LOCK_TIMEOUT_MS: '20000' } });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stderr }));
  });
  await new Promise((resolve) => setTimeout(resolve, 700));
  assert.not.ok(fs.existsSync(path.join(sc.root, INSTALLED_FILE)), 'still waiting');
  fs.rmSync(lock);
  const waited = await waiting;
  assert.is(waited.status, 0, waited.stderr);
  assert.ok(fs.existsSync(path.join(sc.root, INSTALLED_FILE)));
  // A lock left by a dead process, and one whose pid is alive but started at another time (reused): taken over at once.
  const sleeper = spawn('sleep', ['30']);
  try {
    for (const body of ['999999\nlinux:1\nnonce\n', `${sleeper.pid}\nlinux:1\nnonce\n`]) {
      write(lock, body);
      const r = cli(sc, folder, ['uninstall', '--local'], { GSD_INSTALL_LOCK_TIMEOUT_MS: '2000' });
      assert.is(r.status, 0, `${JSON.stringify(body)}: ${r.stderr}`);
      assert.equal(differences(sc, false), []);
      if (body.startsWith('999999')) assert.is(cli(sc, folder, ['install', '--local']).status, 0);
    }
  } finally {
    sleeper.kill();
  }
  drop(sc.home, folder);
});

// ---------------------------------------------------------------- the journal is checked like the record

s("should refuse to roll back a journal edited to name a path outside the target's folders, touching nothing", () => {
  const tamperings: [string, (journal: Record<string, any>, sc: Scene) => void, RegExp][] = [
    ["a step's destination moved to ~/.ssh/authorized_keys", (j, sc) => { j.steps.find((step: { kind: string }) => step.kind === 'file').dest = path.join(sc.home, '.ssh', 'authorized_keys'); }, /destination: expected/],
    ['a step for ~/.bashrc', (j, sc) => { j.steps.push({ op: 'write', kind: 'file', path: '.bashrc', dest: path.join(sc.home, '.bashrc'), before: null, after: { sha256: sha('x'), mode: 420 } }); }, /file "\.bashrc": expected a file GSD owns/],
    ["an own step outside the installer's files", (j, sc) => { j.steps.push({ op: 'remove', kind: 'own', path: '../.profile', dest: path.join(sc.home, '.profile'), before: { sha256: sha('x'), mode: 420 }, after: null }); }, /own file "\.\.\/\.profile"/],
    ['a folder to create at /etc', (j) => { j.dirs.push('/etc'); }, /folder "\/etc"/],
  ];
  for (const [name, edit, expect] of tamperings) {
    const sc = scene('claude/global');
    write(path.join(sc.home, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA mine\n');
    write(path.join(sc.home, '.bashrc'), '# mine\n');
    assert.ok(interrupted(300, () => install(bundleFromFiles(sc.files, sc.key), options(sc))));
    const file = path.join(sc.root, 'gsd-install-journal', 'journal.json');
    const journal = JSON.parse(fs.readFileSync(file, 'utf8'));
    edit(journal, sc);
    fs.writeFileSync(file, JSON.stringify(journal));
    const before = snapshotUser(sc.home);
    for (const run of [() => install(bundleFromFiles(sc.files, sc.key), options(sc)), () => uninstall(sc.root, options(sc))]) {
      assert.throws(run, expect, name);
      assert.equal(snapshotUser(sc.home), before, `${name}: something was touched`);
    }
    drop(sc.home);
  }
});

s('should recover an uninstall stopped part-way after the user had deleted a whole folder of GSD files', () => {
  const sc = scene('claude/local');
  install(bundleFromFiles(sc.files, sc.key), options(sc));
  const record = JSON.parse(fs.readFileSync(path.join(sc.root, INSTALLED_FILE), 'utf8')) as { dirs: string[] };
  const emptied = record.dirs.filter((dir) => dir.startsWith(sc.root + path.sep) && fs.readdirSync(dir).every((name) => fs.statSync(path.join(dir, name)).isFile())).sort((a, b) => b.length - a.length)[0]!;
  for (const name of fs.readdirSync(emptied)) fs.rmSync(path.join(emptied, name));
  assert.ok(interrupted(40, () => uninstall(sc.root, options(sc))));
  uninstall(sc.root, options(sc));
  assert.equal(differences(sc, false), []);
  drop(sc.home);
});

s('should recover a root GSD creates from a stop at each of its first and last writes (the root made and taken away in one rename)', () => {
  let tried = 0;
  const failures: string[] = [];
  for (const key of ['trae/local', 'kilo/local']) {
    const probe = scene(key);
    assert.not.ok(fs.existsSync(probe.root), `${key}: starts without a root`);
    const { install: total, uninstall: uninstallTotal } = measureWrites(probe);
    crashAfterWrites(null);
    drop(probe.home);
    const runs: [string, number, (sc: Scene) => void][] = [];
    for (let at = 0; at < 6; at += 1) {
      runs.push([`install stopped at ${at}, install again`, at, (sc) => { interrupted(at, () => install(bundleOf(sc), options(sc))); install(bundleOf(sc), options(sc)); uninstall(sc.root, options(sc)); }]);
      runs.push([`install stopped at ${at}, uninstall`, at, (sc) => { interrupted(at, () => install(bundleOf(sc), options(sc))); try { uninstall(sc.root, options(sc)); } catch (error) { if (!/no GSD install found/.test((error as Error).message)) throw error; } }]);
    }
    for (let back = 1; back <= 6; back += 1) {
      const at = uninstallTotal - back;
      runs.push([`uninstall stopped at ${at}/${uninstallTotal}, uninstall again`, at, (sc) => { install(bundleOf(sc), options(sc)); interrupted(at, () => uninstall(sc.root, options(sc))); try { uninstall(sc.root, options(sc)); } catch (error) { if (!/no GSD install found/.test((error as Error).message)) throw error; } }]);
      runs.push([`uninstall stopped at ${at}/${uninstallTotal}, install again`, at, (sc) => { install(bundleOf(sc), options(sc)); interrupted(at, () => uninstall(sc.root, options(sc))); install(bundleOf(sc), options(sc)); uninstall(sc.root, options(sc)); }]);
    }
    for (const [name, , run] of runs) {
      tried += 1;
      const sc = scene(key);
      try {
        run(sc);
        const diff = differences(sc, false);
        if (diff.length > 0) failures.push(`${key} ${name}: ${diff.slice(0, 3).join('; ')}`);
      } catch (error) {
        failures.push(`${key} ${name}: ${(error as Error).message.slice(0, 200)}`);
      }
      drop(sc.home);
    }
    assert.ok(total > 6);
  }
  console.log(`  root made and taken away: ${tried} stops at the first and last writes tried, ${tried - failures.length} recovered, ${failures.length} failures`);
  assert.equal(failures, []);
});

s.run();
