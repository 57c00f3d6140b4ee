// Install, update and uninstall of every bundle into a scratch home and
// project that already hold the user's own config (comments, their hooks,
// unrelated keys) and files: the user's bytes survive, a GSD file the user
// edited is backed up before an update replaces it, and uninstall leaves the
// exact tree that was there before, except the backup folder.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { parse as parseJsonc } from 'jsonc-parser';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { bytesOf } from '../../../compiler/emit/bundle-manifest.ts';
import type { VirtualTree } from '../../../compiler/emit/virtual-tree.ts';
import { bundleFromFiles, MANIFEST_FILE, type BundleManifest } from '../install/bundle.ts';
import { install, INSTALLED_FILE, PATCHES_DIR, uninstall, type Options, type Report } from '../install/install.ts';
import { mergeConfig, mergeJson, mergeToml, undoEdits, unmergeConfig, type MergeFormat } from '../install/merge.ts';
import { tmpDir } from './helpers.ts';
import { builtBundles, manifestOf, nextRelease, sha, snapshot, treeFiles } from './install-fixtures.ts';
import { REPO_ROOT } from '../../../compiler/pipeline.ts';
import type { LandingPolicy } from '../install/landing.ts';

const s = suite('install');
let bundles: Map<string, VirtualTree>;
let policies: LandingPolicy[];

s.before(async () => {
  ({ bundles, policies } = await builtBundles());
});

const filesOf = treeFiles;

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** The user's own config, in the format of each file GSD merges into, plus hand-written richer files for some runtimes. */
const USER_CONFIG: Record<string, string> = {
  json: '{\n  // my own settings\n  "userKey": 1, /* inline */\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo mine" }] } // my hook\n    ]\n  }\n}\n',
  toml: '# my config\nmodel = "o3" # trailing comment\n\n[agents]\nmax_threads = 4\n\n[[hooks]]\nevent = "Stop"\ncommand = "echo mine"\n',
  yaml: '# my profile\nmodel: big\nterminal:\n  backend: local # keep\n',
  markdown: '# My instructions\n\nAlways answer in haiku.\n',
};
const SPECIAL: Record<string, string> = {
  'opencode/global:.config/opencode/opencode.json': '{\n  "$schema": "https://opencode.ai/config.json",\n  // mine\n  "permission": {\n    "external_directory": { "/srv/*": "ask" }\n  }\n}\n',
  'kilo/global:.config/kilo/kilo.jsonc': '{\n\t// tabs, and a trailing comma\n\t"theme": "dark",\n}\n',
  'hermes/global:.hermes/config.yaml': '# my profile\nhooks:\n  pre_tool_call:\n    - command: echo mine\n      timeout: 5\nmodel: big\n',
};

/** How many scopes the target definitions declare, all targets together: the bundles a build must make. */
function scopesOfAllTargets(): number {
  const dir = path.join(REPO_ROOT, 'targets');
  const ids = fs.readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  return ids.reduce((sum, id) => sum + Object.keys(JSON.parse(fs.readFileSync(path.join(dir, id, 'target.json'), 'utf8')).scopes).length, 0);
}

function seedUser(key: string, manifest: BundleManifest, home: string, project: string): void {
  const base = manifest.scope === 'global' ? home : project;
  for (const file of manifest.files.filter((entry) => entry.merge)) write(path.join(base, file.path), SPECIAL[`${key}:${file.path}`] ?? USER_CONFIG[file.merge!]!);
  write(path.join(base, manifest.root, 'my-notes.md'), 'my own file in the runtime folder\n');
  write(path.join(base, manifest.root, 'agents', 'my-agent.md'), '---\nname: mine\n---\nmy agent\n');
  write(path.join(project, 'src', 'main.ts'), 'export {};\n');
}

function options(home: string, project: string, extra: Partial<Options> = {}): Options {
  return { home, cwd: project, env: {}, now: new Date('2026-01-02T03:04:05Z'), policies, ...extra };
}

function userKeysKept(format: string, text: string, label: string): void {
  if (format === 'json') {
    const value = parseJsonc(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
    assert.ok(value.userKey === 1 || value.permission || value.theme === 'dark', `${label}: the user's keys`);
    if (value.userKey === 1) assert.ok(JSON.stringify(value.hooks).includes('echo mine'), `${label}: the user's hook`);
    assert.ok(text.includes('//'), `${label}: the user's comments`);
  } else if (format === 'toml') {
    const value = parseToml(text) as { model?: string; agents?: { max_threads?: number } };
    assert.is(value.model, 'o3', label);
    assert.is(value.agents?.max_threads, 4, label);
    assert.ok(text.includes('echo mine') && text.includes('# trailing comment'), label);
  } else if (format === 'yaml') {
    assert.is((parseYaml(text) as { model?: string }).model, 'big', label);
    assert.ok(text.includes('echo mine') || text.includes('# keep'), label);
  } else assert.ok(text.startsWith('# My instructions\n\nAlways answer in haiku.\n'), label);
}

s('should install, update over a user-edited file and uninstall every bundle, leaving the user tree as it was', () => {
  assert.is(bundles.size, scopesOfAllTargets(), 'one bundle per scope of every targets/<id>/target.json');
  for (const [key, tree] of bundles) {
    const files = filesOf(tree);
    const manifest = manifestOf(files);
    const home = tmpDir('gsd-home-');
    const project = tmpDir('gsd-project-');
    seedUser(key, manifest, home, project);
    const before = { home: snapshot(home), project: snapshot(project) };
    const base = manifest.scope === 'global' ? home : project;
    const opts = options(home, project);

    const first = install(bundleFromFiles(files, key), opts);
    assert.is(first.action, 'install', key);
    for (const file of manifest.files) {
      const dest = path.join(base, file.path);
      const text = fs.readFileSync(dest, 'utf8');
      if (!file.merge) {
        assert.is(sha(fs.readFileSync(dest)), file.sha256, `${key}: ${file.path}`);
        assert.is((fs.statSync(dest).mode & 0o777).toString(8), file.mode.slice(1), `${key}: ${file.path} mode`);
      } else userKeysKept(file.merge, text, `${key}: ${file.path}`);
    }
    for (const kept of ['my-notes.md', 'agents/my-agent.md']) assert.ok(before[manifest.scope === 'global' ? 'home' : 'project'].get(path.join(manifest.root, kept)) === snapshot(base).get(path.join(manifest.root, kept)), `${key}: ${kept}`);
    assert.ok(fs.existsSync(path.join(base, manifest.root, INSTALLED_FILE)), key);

    // The user edits one GSD file; a later release changes VERSION and drops one file.
    const edited = manifest.files.find((file) => !file.merge && file.path.endsWith('.md') && !file.path.endsWith('VERSION'))!;
    const editedPath = path.join(base, edited.path);
    fs.appendFileSync(editedPath, '\nmy local tweak\n');
    const editedBytes = fs.readFileSync(editedPath);
    const dropped = manifest.files.find((file) => !file.merge && file.path.includes('/references/') && file.path !== edited.path)!.path;
    const next = nextRelease(files, dropped);
    const second = install(bundleFromFiles(next, key), opts);
    assert.is(second.action, 'update', key);
    assert.is(second.previousVersion, manifest.version);
    const display = manifest.scope === 'global' ? `~/${edited.path}` : edited.path;
    assert.equal(second.backedUp, [display], `${key}: the edited file is listed`);
    const backup = path.join(base, manifest.root, PATCHES_DIR, '2026-01-02T03-04-05Z', edited.path);
    assert.ok(fs.readFileSync(backup).equals(editedBytes), `${key}: the edited file is backed up`);
    assert.is(sha(fs.readFileSync(editedPath)), edited.sha256, `${key}: and replaced`);
    assert.is(fs.readFileSync(path.join(base, manifest.root, 'gsd-core/VERSION'), 'utf8'), '9.9.9\n');
    assert.not.ok(fs.existsSync(path.join(base, dropped)), `${key}: the dropped file is removed`);
    assert.equal(second.files.removed, [manifest.scope === 'global' ? `~/${dropped}` : dropped]);
    for (const file of manifest.files.filter((entry) => entry.merge)) userKeysKept(file.merge!, fs.readFileSync(path.join(base, file.path), 'utf8'), `${key}: ${file.path} after update`);

    const third = uninstall(path.join(base, manifest.root), opts);
    assert.is(third.action, 'uninstall');
    const patches = (relative: string) => relative === path.join(manifest.root, PATCHES_DIR) || relative.startsWith(path.join(manifest.root, PATCHES_DIR) + path.sep);
    const skipRoot = (relative: string) => patches(relative);
    const after = { home: snapshot(home, manifest.scope === 'global' ? skipRoot : () => false), project: snapshot(project, manifest.scope === 'local' ? skipRoot : () => false) };
    const strip = (map: Map<string, string>, scope: string) => (scope === manifest.scope ? new Map([...map].filter(([relative]) => !patches(relative.replace(/\/$/, '')))) : map);
    assert.equal([...after.home], [...strip(before.home, 'global')], `${key}: home after uninstall`);
    assert.equal([...after.project], [...strip(before.project, 'local')], `${key}: project after uninstall`);
  }
});

s('should restore a tree GSD created from nothing, folders included', () => {
  const files = filesOf(bundles.get('claude/global')!);
  const home = tmpDir('gsd-home-');
  const project = tmpDir('gsd-project-');
  install(bundleFromFiles(files), options(home, project));
  assert.ok(fs.existsSync(path.join(home, '.claude/settings.json')));
  uninstall(path.join(home, '.claude'), options(home, project));
  assert.equal(fs.readdirSync(home), [], 'settings.json GSD created is deleted, and every folder it made');
});

s('should print the plan and write nothing with --dry-run', () => {
  for (const key of ['claude/global', 'codex/local']) {
    const files = filesOf(bundles.get(key)!);
    const manifest = manifestOf(files);
    const home = tmpDir('gsd-home-');
    const project = tmpDir('gsd-project-');
    seedUser(key, manifest, home, project);
    const before = [...snapshot(home), ...snapshot(project)];
    const report = install(bundleFromFiles(files), options(home, project, { dryRun: true }));
    assert.ok(report.dryRun);
    assert.is(report.files.added.length, manifest.files.filter((file) => !file.merge && !file.path.endsWith('/my-agent.md')).length);
    assert.ok(report.config.length > 0);
    assert.equal([...snapshot(home), ...snapshot(project)], before, `${key}: nothing written`);
    install(bundleFromFiles(files), options(home, project));
    const installed = [...snapshot(home), ...snapshot(project)];
    const base = manifest.scope === 'global' ? home : project;
    const dry = uninstall(path.join(base, manifest.root), options(home, project, { dryRun: true }));
    assert.ok(dry.files.removed.length > 100);
    assert.equal([...snapshot(home), ...snapshot(project)], installed, `${key}: uninstall --dry-run wrote nothing`);
  }
});

s('should refuse a bundle path that would land outside the root, writing nothing', () => {
  const files = filesOf(bundles.get('claude/local')!);
  const manifest = manifestOf(files);
  for (const evil of ['../outside.md', '.claude/../../outside.md', '/etc/evil.md', '.claude\\..\\x.md', '.claude//x.md']) {
    const tampered = new Map(files);
    tampered.set(evil, Buffer.from('x'));
    const listed = [...manifest.files, { path: evil, sha256: sha('x'), bytes: 1, mode: '0644' as const }];
    tampered.set(MANIFEST_FILE, Buffer.from(JSON.stringify({ ...manifest, files: listed })));
    const home = tmpDir('gsd-home-');
    const project = tmpDir('gsd-project-');
    assert.throws(() => install(bundleFromFiles(tampered), options(home, project)), /refused: the file .* could land outside the install root; nothing was written/, evil);
    assert.equal(fs.readdirSync(project), []);
    assert.equal(fs.readdirSync(path.dirname(project)).filter((name) => name === 'outside.md'), []);
  }
  // A symbolic link inside the root that points elsewhere.
  const home = tmpDir('gsd-home-');
  const project = tmpDir('gsd-project-');
  const elsewhere = tmpDir('gsd-elsewhere-');
  fs.mkdirSync(path.join(project, '.claude'));
  fs.symlinkSync(elsewhere, path.join(project, '.claude', 'agents'));
  assert.throws(() => install(bundleFromFiles(files), options(home, project)), /through a symbolic link, outside/);
  assert.equal(fs.readdirSync(elsewhere), []);
  assert.equal(fs.readdirSync(path.join(project, '.claude')), ['agents']);
});

s('should refuse a damaged bundle and a file that is not from a GSD install, unless --force backs it up', () => {
  const files = filesOf(bundles.get('claude/local')!);
  const damaged = new Map(files);
  damaged.set('.claude/gsd-core/VERSION', Buffer.from('0.0.0\n'));
  assert.throws(() => bundleFromFiles(damaged), /does not match its sha256/);
  const home = tmpDir('gsd-home-');
  const project = tmpDir('gsd-project-');
  write(path.join(project, '.claude/agents/gsd-planner.md'), 'my own planner\n');
  assert.throws(() => install(bundleFromFiles(files), options(home, project)), /1 file\(s\) GSD would write already exist and are not from a GSD install here: \.claude\/agents\/gsd-planner\.md/);
  assert.equal(fs.readdirSync(path.join(project, '.claude')), ['agents']);
  const report = install(bundleFromFiles(files), options(home, project, { force: true }));
  assert.equal(report.backedUp, ['.claude/agents/gsd-planner.md']);
  assert.is(fs.readFileSync(path.join(report.backupDir!, '.claude/agents/gsd-planner.md'), 'utf8'), 'my own planner\n');
});

s('should put everything back when a write fails part-way', () => {
  const files = filesOf(bundles.get('claude/local')!);
  const home = tmpDir('gsd-home-');
  const project = tmpDir('gsd-project-');
  write(path.join(project, '.claude/settings.json'), USER_CONFIG.json!);
  // A file where the hooks folder should be: every write before it succeeds, then one fails.
  write(path.join(project, '.claude/hooks'), 'not a folder\n');
  const before = snapshot(project);
  assert.throws(() => install(bundleFromFiles(files), options(home, project)), /install failed \(.*\); every file it had changed was put back/);
  assert.equal([...snapshot(project)], [...before]);
});

s('should move a global root for an env override or --config-dir in one pass, recorded, and undo it', () => {
  const files = filesOf(bundles.get('claude/global')!);
  const home = tmpDir('gsd-home-');
  const project = tmpDir('gsd-project-');
  const elsewhere = tmpDir('gsd-claude-dir-');
  const report = install(bundleFromFiles(files), options(home, project, { env: { CLAUDE_CONFIG_DIR: elsewhere } }));
  assert.equal(report.relocated, { from: '.claude', to: elsewhere, by: '$CLAUDE_CONFIG_DIR' });
  assert.not.ok(fs.existsSync(path.join(home, '.claude')), 'nothing under the default root');
  const settings = fs.readFileSync(path.join(elsewhere, 'settings.json'), 'utf8');
  assert.ok(settings.includes(`node \\"${elsewhere}/hooks/gsd-`), 'hook commands point at the moved root');
  assert.not.match(settings, /\.claude\//);
  const workflow = fs.readFileSync(path.join(elsewhere, 'gsd-core/workflows/plan-phase.md'), 'utf8');
  assert.ok(workflow.includes(`${elsewhere}/gsd-core/bin/gsd-tools.cjs`));
  assert.not.match(workflow, /(?:~|\$HOME)\/\.claude\b/);
  const record = JSON.parse(fs.readFileSync(path.join(elsewhere, INSTALLED_FILE), 'utf8')) as { relocation: { to: string; by: string } };
  assert.equal([record.relocation.to, record.relocation.by], [elsewhere, '$CLAUDE_CONFIG_DIR']);
  const cli = fs.readFileSync(path.join(elsewhere, 'gsd-core/bin/gsd-tools.cjs'));
  assert.is(sha(cli), manifestOf(files).files.find((file) => file.path === '.claude/gsd-core/bin/gsd-tools.cjs')!.sha256, 'built code is copied byte for byte');
  uninstall(elsewhere, options(home, project));
  assert.equal(fs.readdirSync(elsewhere), []);

  // --config-dir under home keeps the home-relative spelling; XDG_CONFIG_HOME moves OpenCode's .config.
  const moved = install(bundleFromFiles(files), options(home, project, { configDir: path.join(home, 'work', 'claude') }));
  assert.is(moved.relocated!.by, '--config-dir');
  assert.match(fs.readFileSync(path.join(home, 'work/claude/settings.json'), 'utf8'), /node \\"\$HOME\/work\/claude\/hooks\/gsd-/);
  assert.throws(() => install(bundleFromFiles(files), options(home, project, { configDir: '/tmp/with space' })), /characters GSD cannot write/);
  const opencode = filesOf(bundles.get('opencode/global')!);
  const xdg = tmpDir('gsd-xdg-');
  install(bundleFromFiles(opencode), options(home, project, { env: { XDG_CONFIG_HOME: xdg } }));
  const config = fs.readFileSync(path.join(xdg, 'opencode/opencode.json'), 'utf8');
  assert.ok(config.includes(`"${xdg}/opencode/gsd-core/*": "allow"`), config);
  assert.throws(() => install(bundleFromFiles(filesOf(bundles.get('claude/local')!)), options(home, project, { configDir: elsewhere })), /--config-dir moves the root of a global install/);
});

s('should merge into JSON and TOML as small edits that undo exactly', () => {
  const user = '{\n    "a": 1, // one\n    "list": [1, 2],\n    "obj": {}\n}\n';
  const merged = mergeJson(user, JSON.stringify({ b: { c: true }, list: [3], obj: { d: 'x' }, a: 2 }), 'x.json');
  assert.is(merged.text, '{\n    "a": 1, // one\n    "list": [1, 2, 3],\n    "obj": {\n        "d": "x"\n    },\n    "b": {\n        "c": true\n    }\n}\n');
  assert.equal(merged.skipped, ['x.json: a is already set to a value of yours; GSD\'s is not applied']);
  assert.is(undoEdits(merged.text, merged.edits), user);
  const toml = mergeToml('# mine\n[agents]\nmax_threads = 4\n', '[agents]\nmax_depth = 1\n\n[[hooks]]\nevent = "Stop"\n', 'c.toml');
  assert.is(toml.text, '# mine\n[agents]\nmax_depth = 1\nmax_threads = 4\n\n# GSD:BEGIN managed by gsd-tools install; gsd-tools uninstall removes this block\n[[hooks]]\nevent = "Stop"\n# GSD:END\n');
  assert.is(undoEdits(toml.text, toml.edits), '# mine\n[agents]\nmax_threads = 4\n');
  assert.throws(() => mergeJson('{ "a": ', '{}', 'bad.json'), /bad\.json:1:8: not valid JSON/);
});

s('should take GSD entries out of config the user changed after the install, keeping the change', () => {
  const cases: [MergeFormat, string, string, (text: string) => string][] = [
    ['json', '{\n  // mine\n  "a": 1,\n  "hooks": { "Stop": [ { "x": 1 } ] }\n}\n', JSON.stringify({ hooks: { Stop: [{ g: 1 }], Pre: [{ g: 2 }] }, statusLine: { type: 'command' } }), (t) => t.replace('"a": 1,', '"a": 1,\n  "b": 2,')],
    ['toml', '# mine\n[agents]\nmax_threads = 4\n', '[agents]\nmax_depth = 1\n\n[[hooks]]\nevent = "Stop"\n', (t) => `${t}\n[extra]\nx = 1\n`],
    ['yaml', '# mine\nhooks:\n  pre:\n    - command: mine\nmodel: big\n', 'hooks:\n  pre:\n    - command: gsd\n  post:\n    - command: gsd2\nother: 1\n', (t) => `${t}added: true\n`],
    ['markdown', '# Mine\n\ntext\n', 'GSD text\n', (t) => `${t}\nmore of mine\n`],
  ];
  for (const [format, user, gsd, edit] of cases) {
    const merged = mergeConfig(format, user, gsd, 'file');
    const out = unmergeConfig(format, edit(merged.text), merged.added, 'file');
    assert.equal(out.left, [], format);
    assert.is(out.text, edit(user), format);
  }
  // Through install and uninstall: the user adds a key to settings.json after installing.
  const files = filesOf(bundles.get('claude/local')!);
  const home = tmpDir('gsd-home-');
  const project = tmpDir('gsd-project-');
  const settings = path.join(project, '.claude/settings.json');
  write(settings, USER_CONFIG.json!);
  install(bundleFromFiles(files), options(home, project));
  fs.writeFileSync(settings, fs.readFileSync(settings, 'utf8').replace('"userKey": 1,', '"userKey": 1,\n  "later": true,'));
  const report = uninstall(path.join(project, '.claude'), options(home, project));
  assert.equal(report.config, [{ path: '.claude/settings.json', action: 'restored' }]);
  assert.is(fs.readFileSync(settings, 'utf8'), USER_CONFIG.json!.replace('"userKey": 1,', '"userKey": 1,\n  "later": true,'));
});

s('should run install and uninstall through gsd-tools from an unzipped bundle, loading the installer apart', () => {
  const tree = bundles.get('kimi/global')!;
  const dir = tmpDir('gsd-unzipped-');
  for (const [file, entry] of tree) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), bytesOf(entry));
    if (entry.executable) fs.chmodSync(path.join(dir, file), 0o755);
  }
  const home = tmpDir('gsd-home-');
  write(path.join(home, '.kimi-code/config.toml'), USER_CONFIG.toml!);
  const before = snapshot(home);
  const run = (cli: string, args: string[]) =>
    spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home, GSD_NOW: '2026-01-02T03:04:05Z' } });
  const cli = path.join(dir, '.kimi-code/gsd-core/bin/gsd-tools.cjs');
  let r = run(cli, ['install', '--local']);
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /this is the global bundle of Kimi Code; --local needs the local bundle \(gsd-kimi-local-/);
  r = run(cli, ['install', '--global', '--dry-run']);
  assert.is(r.status, 0, r.stderr);
  assert.ok((JSON.parse(r.stdout) as Report).dryRun);
  assert.equal([...snapshot(home)], [...before], 'the dry run wrote nothing, not even a code cache');
  r = run(cli, ['install', '--global', '--raw']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^install GSD \S+ for kimi \(global\) at /);
  const config = fs.readFileSync(path.join(home, '.kimi-code/config.toml'), 'utf8');
  assert.ok(config.startsWith(USER_CONFIG.toml!), 'the user text is untouched; GSD appends its block');
  assert.ok((parseToml(config) as { hooks: unknown[] }).hooks.length > 1);
  r = run(path.join(home, '.kimi-code/gsd-core/bin/gsd-tools.cjs'), ['uninstall']);
  assert.is(r.status, 0, r.stderr);
  assert.equal([...snapshot(home)], [...before], 'uninstall from the installed copy restores the tree');
});

s.run();
