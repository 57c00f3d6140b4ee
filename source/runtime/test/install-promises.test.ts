// What the README promises for update, reapply-patches and uninstall, each
// tried against the case that would break it: a file the new release dropped
// that the user edited (kept, reported), reapply-patches meeting a live
// install lock of another process (waits, then refuses), an edited GSD file at
// uninstall (saved to gsd-local-patches/<time>/ first), and a shared config
// file GSD created (taken away when it holds nothing of the user's, kept with
// only GSD's entries removed when the user added their own). Every check is on
// the exact bytes and paths left on disk, and on the report.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import type { VirtualTree } from '../../../compiler/emit/virtual-tree.ts';
import { bundleFromFiles } from '../install/bundle.ts';
import { install, INSTALLED_FILE, PATCHES_DIR, uninstall, type InstalledManifest, type Options } from '../install/install.ts';
import { LOCK_FILE } from '../install/journal.ts';
import { reapplyPatches, META_FILE } from '../install/reapply.ts';
import type { LandingPolicy } from '../install/landing.ts';
import { processStart } from '../core/lock.ts';
import { tmpDir } from './helpers.ts';
import { builtBundles, manifestOf, nextRelease, sha, snapshot, treeFiles, type Files } from './install-fixtures.ts';

const s = suite('install promises');
let bundles: Map<string, VirtualTree>;
let policies: LandingPolicy[];

s.before(async () => {
  ({ bundles, policies } = await builtBundles());
});

const filesOf = (key: string): Files => treeFiles(bundles.get(key)!);
const STAMP = '2026-01-02T03-04-05Z';

function options(home: string, project: string, extra: Partial<Options> = {}): Options {
  return { home, cwd: project, env: {}, now: new Date('2026-01-02T03:04:05Z'), policies, ...extra };
}

/** The paths under `dir` (folders end in /), sorted. */
const pathsUnder = (dir: string) => [...snapshot(dir).keys()].sort();

/** `files` (relative, / separated) and every folder above them, as snapshot() names them. */
function withFolders(files: readonly string[]): string[] {
  const out = new Set<string>();
  for (const file of files) {
    out.add(file);
    for (let dir = path.dirname(file); dir !== '.'; dir = path.dirname(dir)) out.add(`${dir}/`);
  }
  return [...out].sort();
}

const recordOf = (root: string) => JSON.parse(fs.readFileSync(path.join(root, INSTALLED_FILE), 'utf8')) as InstalledManifest;

s('should keep a file the new release dropped when the user edited it, report it kept, and remove the dropped file the user left alone', () => {
  const files = filesOf('claude/local');
  const manifest = manifestOf(files);
  const home = tmpDir('gsd-home-');
  const project = tmpDir('gsd-project-');
  const root = path.join(project, '.claude');
  install(bundleFromFiles(files), options(home, project));
  const [edited, untouched] = manifest.files.filter((file) => !file.merge && file.path.includes('/references/')).map((file) => file.path) as [string, string];
  const editedPath = path.join(project, edited);
  fs.appendFileSync(editedPath, '\nmy own note on this reference\n');
  const mine = fs.readFileSync(editedPath);
  const mode = fs.statSync(editedPath).mode & 0o777;

  const report = install(bundleFromFiles(nextRelease(nextRelease(files, edited), untouched)), options(home, project));
  assert.is(report.action, 'update');
  assert.equal(report.files.kept, [edited], 'the edited file is reported kept');
  assert.equal(report.files.removed, [untouched], 'only the file the user left alone is removed');
  assert.equal(report.backedUp, [], 'a kept file stays where it is; nothing to back up');
  assert.is(report.backupDir, null);
  assert.ok(fs.readFileSync(editedPath).equals(mine), 'the edited file is byte for byte as the user left it');
  assert.is(fs.statSync(editedPath).mode & 0o777, mode);
  assert.not.ok(fs.existsSync(path.join(project, untouched)), 'the untouched dropped file is gone');
  assert.not.ok(fs.existsSync(path.join(root, PATCHES_DIR)), 'no backup folder');
  const record = recordOf(root);
  assert.is(record.version, '9.9.9');
  assert.equal(record.files.filter((file) => file.path === edited || file.path === untouched), [], 'neither is tracked any longer');

  // The kept file is the user's now: uninstall neither removes nor backs it up.
  const gone = uninstall(root, options(home, project));
  assert.not.ok(gone.files.removed.includes(edited));
  assert.equal(gone.backedUp, []);
  assert.ok(fs.readFileSync(editedPath).equals(mine));
  assert.equal(pathsUnder(project), withFolders([edited]), 'only the kept file (and its folders) is left');
});

s('should make reapply-patches wait for a live install lock held by another process, refuse after the bounded wait without writing, and go on once it is released', async () => {
  const files = filesOf('claude/global');
  const manifest = manifestOf(files);
  const home = tmpDir('gsd-home-');
  const root = path.join(home, '.claude');
  const opts = options(home, home);
  install(bundleFromFiles(files), opts);
  const file = manifest.files.find((entry) => !entry.merge && entry.path.includes('/workflows/'))!.path;
  const dest = path.join(home, file);
  fs.appendFileSync(dest, '\nmy rule\n');
  const mine = fs.readFileSync(dest);
  install(bundleFromFiles(nextRelease(files)), { ...opts, now: new Date('2026-01-02T03:04:06Z') });
  const pristine = fs.readFileSync(dest);
  assert.is(sha(pristine), manifest.files.find((entry) => entry.path === file)!.sha256, 'the update replaced the edit');

  const lock = path.join(root, LOCK_FILE);
  const holder = spawn('sleep', ['30']);
  const saved = process.env.GSD_INSTALL_LOCK_TIMEOUT_MS;
  try {
    const body = `${holder.pid}\n${processStart(holder.pid!) ?? '-'}\nanother-install\n`;
    fs.writeFileSync(lock, body);
    const before = snapshot(home);
    process.env.GSD_INSTALL_LOCK_TIMEOUT_MS = '300';
    const started = Date.now();
    assert.throws(
      () => reapplyPatches(root, { home, policies }),
      (error: Error) => (error as Error & { reason?: string }).reason === 'locked' && error.message.includes(`another gsd-tools install or uninstall is working on ${root} (`) && error.message.includes(`lock held by live process ${holder.pid}; gave up after 300 ms`),
    );
    assert.ok(Date.now() - started >= 300, 'it waited before refusing');
    assert.equal([...snapshot(home)], [...before], 'nothing written: the file is not restored, no temp file, the lock untouched');
    assert.is(fs.readFileSync(lock, 'utf8'), body);

    // The holder lets go while reapply waits: it goes on and restores the edit.
    process.env.GSD_INSTALL_LOCK_TIMEOUT_MS = '20000';
    const release = spawn('sh', ['-c', 'sleep 0.8; rm -f "$1"', 'sh', lock]);
    const exited = new Promise((resolve) => release.on('exit', resolve));
    const waitFrom = Date.now();
    const done = reapplyPatches(root, { home, policies });
    assert.ok(Date.now() - waitFrom >= 700, `it waited for the holder (${Date.now() - waitFrom} ms)`);
    await exited;
    assert.equal(done.entries.map((entry) => [entry.path, entry.status]), [[`~/${file}`, 'restored']]);
    assert.ok(fs.readFileSync(dest).equals(mine), 'the edit is back, byte for byte');
    assert.not.ok(fs.existsSync(lock), 'the lock is released');
  } finally {
    if (saved === undefined) delete process.env.GSD_INSTALL_LOCK_TIMEOUT_MS;
    else process.env.GSD_INSTALL_LOCK_TIMEOUT_MS = saved;
    holder.kill();
  }
});

s('should back up each GSD file the user edited to gsd-local-patches/<time>/ with its backup-meta.json before uninstall removes it', () => {
  // A local install (backups keep the path relative to the project), and a global one moved outside home (relative to the root, under _root/).
  for (const moved of [false, true]) {
    const files = filesOf(moved ? 'claude/global' : 'claude/local');
    const manifest = manifestOf(files);
    const workflow = manifest.files.find((entry) => !entry.merge && entry.path.includes('/workflows/'))!;
    const hook = manifest.files.find((entry) => !entry.merge && entry.path.startsWith('.claude/hooks/') && entry.mode === '0755')!;
    assert.ok(hook, 'an executable hook to edit');
    const home = tmpDir('gsd-home-');
    const project = tmpDir('gsd-project-');
    const elsewhere = tmpDir('gsd-claude-dir-');
    const bundle = bundleFromFiles(files);
    const opts = options(home, project, moved ? { env: { CLAUDE_CONFIG_DIR: elsewhere } } : {});
    const root = install(bundle, opts).root;
    assert.is(root, moved ? elsewhere : path.join(project, '.claude'));
    const installed = recordOf(root).files;
    const edited = [workflow.path, hook.path].map((file) => installed.find((entry) => entry.path === file)!);
    const mine = edited.map((entry) => {
      fs.appendFileSync(entry.dest, '\n// my local tweak\n');
      return fs.readFileSync(entry.dest);
    });

    const report = uninstall(root, opts);
    const shown = edited.map((entry) => (moved ? entry.dest : path.relative(project, entry.dest)));
    const inBackup = edited.map((entry) => (moved ? path.join('_root', path.relative(root, entry.dest)) : path.relative(project, entry.dest)));
    const backupDir = path.join(root, PATCHES_DIR, STAMP);
    assert.equal(report.backedUp, shown, `${moved}: the edited files are listed`);
    assert.is(report.backupDir, backupDir);
    assert.ok(report.files.removed.length > 100 && shown.every((name) => report.files.removed.includes(name)), 'and removed');
    edited.forEach((entry, i) => {
      assert.not.ok(fs.existsSync(entry.dest), `${entry.path} is removed`);
      const copy = path.join(backupDir, inBackup[i]!);
      assert.ok(fs.readFileSync(copy).equals(mine[i]!), `${entry.path}: the backup holds the user's bytes`);
      assert.is(fs.statSync(copy).mode & 0o777, 0o600);
    });
    const meta = JSON.parse(fs.readFileSync(path.join(backupDir, META_FILE), 'utf8'));
    assert.equal(meta, {
      reason: 'uninstall',
      at: '2026-01-02T03:04:05.000Z',
      target: 'claude',
      scope: moved ? 'global' : 'local',
      fromVersion: manifest.version,
      files: edited.map((entry, i) => ({ path: shown[i], installedSha256: entry.sha256, currentSha256: sha(mine[i]!) })),
    });
    // Nothing else of GSD's is left: only the backup folder, under the root.
    const rootRelative = path.relative(moved ? elsewhere : project, root);
    const kept = [...inBackup.map((file) => path.join(PATCHES_DIR, STAMP, file)), path.join(PATCHES_DIR, STAMP, META_FILE)].map((file) => (rootRelative ? path.join(rootRelative, file) : file));
    assert.equal(pathsUnder(moved ? elsewhere : project), withFolders(kept), `${moved}: the tree after uninstall`);
    assert.equal(fs.readdirSync(home), [], 'home untouched');
    if (moved) assert.equal(fs.readdirSync(project), []);
    else assert.equal(fs.readdirSync(elsewhere), []);
  }
});

/** One shared config file GSD creates, the user's addition to it, and the exact file uninstall must leave. */
interface Addition {
  key: string;
  file: string;
  add: (text: string) => string;
  left: string;
}

s("should keep a config file GSD created that the user then added entries to, with only GSD's entries taken out", () => {
  const additions: Addition[] = [
    {
      key: 'claude/local',
      file: '.claude/settings.json',
      // A key of the user's, and a hook of theirs inside the array GSD made.
      add: (text) => text.replace('{\n', '{\n  "model": "opus", // mine\n').replace('"PostToolUse": [\n', '"PostToolUse": [\n      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo mine" }] },\n'),
      left: '{\n  "model": "opus", // mine\n  "hooks": {\n    "PostToolUse": [\n      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo mine" }] }\n    ]\n  }\n}\n',
    },
    { key: 'codex/local', file: '.codex/config.toml', add: (text) => `${text}[mine]\nx = 1\n`, left: '[mine]\nx = 1\n' },
    { key: 'hermes/global', file: '.hermes/config.yaml', add: (text) => `${text}model: big # mine\n`, left: 'model: big # mine\n' },
    { key: 'copilot/local', file: '.github/copilot-instructions.md', add: (text) => `${text}\n## Mine\n\nAlways answer in haiku.\n`, left: '\n## Mine\n\nAlways answer in haiku.\n' },
  ];
  for (const { key, file, add, left } of additions) {
    const files = filesOf(key);
    const manifest = manifestOf(files);
    const home = tmpDir('gsd-home-');
    const project = tmpDir('gsd-project-');
    const base = manifest.scope === 'global' ? home : project;
    const show = (name: string) => (manifest.scope === 'global' ? `~/${name}` : name);
    const first = install(bundleFromFiles(files, key), options(home, project));
    const merged = manifest.files.filter((entry) => entry.merge).map((entry) => entry.path);
    assert.equal(first.config, merged.map((name) => ({ path: show(name), action: 'created' })), `${key}: GSD creates every config file`);
    assert.ok(recordOf(first.root).config.every((entry) => entry.created), `${key}: recorded as created`);
    const dest = path.join(base, file);
    const gsdText = fs.readFileSync(dest, 'utf8');
    const edited = add(gsdText);
    assert.is.not(edited, gsdText, `${key}: the addition applies`);
    fs.writeFileSync(dest, edited);

    const report = uninstall(first.root, options(home, project));
    // Codex also gets hooks.json from GSD, which the user did not touch: that one goes.
    assert.equal(report.config, merged.map((name) => ({ path: show(name), action: name === file ? 'restored' : 'deleted' })), `${key}: the report`);
    assert.equal(report.notes, [], `${key}: every GSD entry came out`);
    assert.is(fs.readFileSync(dest, 'utf8'), left, `${key}: the user's entries, and only them`);
    assert.equal(pathsUnder(base), withFolders([file]), `${key}: nothing else is left`);
    assert.equal(fs.readdirSync(manifest.scope === 'global' ? project : home), []);
  }
});

s('should delete on uninstall each config file GSD created that the user left alone, in every merge format, and the folders GSD made for it', () => {
  for (const key of ['claude/local', 'kilo/global', 'codex/local', 'hermes/global', 'cline/local']) {
    const files = filesOf(key);
    const manifest = manifestOf(files);
    const home = tmpDir('gsd-home-');
    const project = tmpDir('gsd-project-');
    const show = (name: string) => (manifest.scope === 'global' ? `~/${name}` : name);
    const merged = manifest.files.filter((entry) => entry.merge).map((entry) => entry.path);
    const first = install(bundleFromFiles(files, key), options(home, project));
    assert.equal(first.config, merged.map((name) => ({ path: show(name), action: 'created' })), `${key}: created`);
    const report = uninstall(first.root, options(home, project));
    assert.equal(report.config, merged.map((name) => ({ path: show(name), action: 'deleted' })), `${key}: the report`);
    for (const name of merged) assert.not.ok(fs.existsSync(path.join(manifest.scope === 'global' ? home : project, name)), `${key}: ${name} is gone`);
    assert.equal(fs.readdirSync(home), [], `${key}: home is empty again`);
    assert.equal(fs.readdirSync(project), [], `${key}: the project is empty again`);
  }
});

s.run();
