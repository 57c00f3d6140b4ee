// The Claude Code plugin and marketplace (gsd-build plugin): laid out from the
// claude/global bundle, manifests valid against
// schemas/claude-plugin-manifest.schema.json, every hook command on a script
// the plugin ships under ${CLAUDE_PLUGIN_ROOT}. The real `claude plugin
// validate` runs on it in scripts/runtimes/claude.mjs (npm run test:runtimes).
import * as fs from 'node:fs';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { compile, emitBundles, REPO_ROOT, type Compiled } from '../pipeline.ts';
import { claudePlugin, linkHookScript, loadPluginData, pluginFolder } from '../emit/claude-plugin.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { schemaValidator } from '../schemas.ts';
import { suite, assert } from './harness.ts';
import { runCli, snapshotTree, temporaryDir } from './fixture-support.ts';

const plugin = suite('claude plugin');
let compiled: Compiled;
let bundle: VirtualTree;

plugin.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  bundle = emitBundles(compiled, [{ target: 'claude', scope: 'global' }]).bundles.get('claude/global')!;
});

const text = (tree: VirtualTree, file: string) => String(tree.get(file)!.contents);

plugin('should lay out the claude/global bundle as a plugin listed by its marketplace, with valid manifests', () => {
  const data = loadPluginData();
  const tree = claudePlugin(bundle, compiled.version, data, '.claude', 'gsd-core');
  const folder = pluginFolder(data);
  const manifest = JSON.parse(text(tree, `${folder}/.claude-plugin/plugin.json`)) as { name: string; version: string };
  const marketplace = JSON.parse(text(tree, '.claude-plugin/marketplace.json')) as { plugins: { name: string; source: string }[] };
  const validPlugin = schemaValidator('claude-plugin-manifest.schema.json', 'plugin');
  const validMarketplace = schemaValidator('claude-plugin-manifest.schema.json', 'marketplace');
  assert.ok(validPlugin(manifest) as boolean, JSON.stringify(validPlugin.errors));
  assert.ok(validMarketplace(marketplace) as boolean, JSON.stringify(validMarketplace.errors));
  assert.is(manifest.version, compiled.version);
  assert.equal(marketplace.plugins.map((entry) => [entry.name, entry.source]), [[manifest.name, `./${folder}`]]);
  // Every skill, agent, hook script and payload file of the bundle, at the same place under the plugin.
  const carried = [...bundle.keys()].filter((file) => /^\.claude\/(?:skills|agents|hooks|gsd-core)\//.test(file));
  assert.ok(carried.length > 100, `expected the bundle's files, found ${carried.length}`);
  for (const file of carried) assert.ok(tree.has(`${folder}/${file.slice('.claude/'.length)}`), file);
  assert.ok(tree.has(`${folder}/gsd-core/bin/gsd-tools.cjs`));
  // Nothing only the zip installer reads, no settings a plugin cannot set.
  assert.not.ok([...tree.keys()].some((file) => /gsd-file-manifest\.json$|README\.txt$|settings\.json$/.test(file)));
});

plugin('should run every hook from the plugin\'s own copy under ${CLAUDE_PLUGIN_ROOT}', () => {
  const data = loadPluginData();
  const tree = claudePlugin(bundle, compiled.version, data, '.claude', 'gsd-core');
  const folder = pluginFolder(data);
  const hooks = JSON.parse(text(tree, `${folder}/hooks/hooks.json`)).hooks as Record<string, { hooks: { command: string }[] }[]>;
  const commands = Object.values(hooks).flat().flatMap((group) => group.hooks.map((hook) => hook.command));
  const settings = JSON.parse(text(bundle, '.claude/settings.json')).hooks as Record<string, { hooks: unknown[] }[]>;
  // The bundle's hooks, and the plugin's own link hook first at session start.
  assert.is(commands.length, Object.values(settings).flat().flatMap((group) => group.hooks).length + 1);
  assert.is(hooks.SessionStart?.[0]?.hooks[0]?.command, 'node "${CLAUDE_PLUGIN_ROOT}/hooks/gsd-plugin-link.cjs"');
  assert.ok(tree.get(`${folder}/hooks/gsd-plugin-link.cjs`)!.executable);
  assert.match(text(tree, `${folder}/hooks/gsd-plugin-link.cjs`), 'const SETTINGS = {"root":".claude","payload":"gsd-core","plugin":"gsd"};');
  for (const command of commands) {
    const match = /^node "\$\{CLAUDE_PLUGIN_ROOT\}\/(hooks\/[A-Za-z0-9_.-]+)"$/.exec(command);
    assert.ok(match, command);
    assert.ok(tree.has(`${folder}/${match![1]}`), `${command}: the plugin ships no ${match![1]}`);
  }
  // A hook command the plugin cannot place fails the build rather than ship a hook on $HOME.
  const broken: VirtualTree = new Map(bundle);
  broken.set('.claude/settings.json', { contents: JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'node "$HOME/.claude/hooks/gsd-missing.cjs"' }] }] } }) });
  assert.throws(() => claudePlugin(broken, compiled.version, data, '.claude', 'gsd-core'), /gsd-missing\.cjs/);
});

plugin('should write the marketplace tree with gsd-build plugin, the same bytes each time', () => {
  const out = temporaryDir('plugin');
  try {
    const first = runCli(['plugin', '--out', path.join(out, 'a')]);
    assert.is(first.status, 0, first.stderr.slice(-2000));
    assert.match(first.stdout, /wrote the Claude Code plugin gsd \S+ \(\d+ files: \d+ skills, \d+ agents, \d+ hook scripts\)/);
    assert.ok(existsSync(path.join(out, 'a/.claude-plugin/marketplace.json')));
    assert.ok(existsSync(path.join(out, 'a/plugins/gsd/.claude-plugin/plugin.json')));
    const second = runCli(['plugin', '--out', path.join(out, 'b')]);
    assert.is(second.status, 0, second.stderr.slice(-2000));
    const tree = snapshotTree(path.join(out, 'a'));
    assert.ok(tree.has('plugins/gsd/skills/gsd-plan-phase/SKILL.md') && tree.has('plugins/gsd/hooks/hooks.json'));
    assert.equal(snapshotTree(path.join(out, 'b')), tree);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

// The link hook (compiler/data/claude-plugin-link.cjs), called as a module with
// a home and a plugin folder of the test's own, then run as Claude Code runs it.
type LinkOutcome = { outcome: string; link: string; target: string; detail: string };
const link = createRequire(import.meta.url)('../data/claude-plugin-link.cjs') as {
  linkPayload(options: { home: string; pluginRoot: string; root: string; payload: string; plugin: string; files?: typeof fs }): LinkOutcome;
  notice(outcome: LinkOutcome): string;
};

/** A plugin cache as Claude Code lays it out: <cache>/<version>/ holding the manifest and gsd-core/. */
function pluginCopy(cache: string, version: string, name = 'gsd'): string {
  const root = path.join(cache, version);
  mkdirSync(path.join(root, '.claude-plugin'), { recursive: true });
  mkdirSync(path.join(root, 'gsd-core', 'bin'), { recursive: true });
  writeFileSync(path.join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({ name, version }));
  writeFileSync(path.join(root, 'gsd-core', 'bin', 'gsd-tools.cjs'), `// ${version}\n`);
  return root;
}

function linkCase(label: string, body: (home: string, cache: string) => void) {
  plugin(`link hook: ${label}`, () => {
    const dir = temporaryDir('plugin-link');
    try {
      mkdirSync(path.join(dir, 'home'));
      body(path.join(dir, 'home'), path.join(dir, 'cache', 'gsd', 'gsd'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

const settingsOf = (home: string, pluginRoot: string, files?: typeof fs) => ({ home, pluginRoot, root: '.claude', payload: 'gsd-core', plugin: 'gsd', ...(files ? { files } : {}) });
const gsdTools = (home: string) => readFileSync(path.join(home, '.claude/gsd-core/bin/gsd-tools.cjs'), 'utf8');

linkCase('should link ~/.claude/gsd-core to the plugin\'s copy when nothing is there, then leave its own link be', (home, cache) => {
  const root = pluginCopy(cache, '1.0.0');
  const first = link.linkPayload(settingsOf(home, root));
  assert.is(first.outcome, 'linked', first.detail);
  assert.is(readlinkSync(path.join(home, '.claude/gsd-core')), path.join(realpathSync(root), 'gsd-core'));
  assert.is(gsdTools(home), '// 1.0.0\n');
  assert.is(link.notice(first), '');
  assert.is(link.linkPayload(settingsOf(home, root)).outcome, 'current');
});

linkCase('should never touch a user\'s own install at ~/.claude/gsd-core', (home, cache) => {
  const root = pluginCopy(cache, '1.0.0');
  mkdirSync(path.join(home, '.claude/gsd-core/bin'), { recursive: true });
  writeFileSync(path.join(home, '.claude/gsd-core/bin/gsd-tools.cjs'), '// mine\n');
  const outcome = link.linkPayload(settingsOf(home, root));
  assert.is(outcome.outcome, 'kept');
  assert.ok(lstatSync(path.join(home, '.claude/gsd-core')).isDirectory());
  assert.is(gsdTools(home), '// mine\n');
  assert.is(link.notice(outcome), '', 'a working install of the user\'s needs no notice');
});

linkCase('should replace its own link left dangling by a plugin update, and one to another copy of the plugin', (home, cache) => {
  const old = pluginCopy(cache, '1.0.0');
  const root = pluginCopy(cache, '1.1.0');
  mkdirSync(path.join(home, '.claude'));
  symlinkSync(path.join(realpathSync(old), 'gsd-core'), path.join(home, '.claude/gsd-core'));
  rmSync(old, { recursive: true });
  const healed = link.linkPayload(settingsOf(home, root));
  assert.is(healed.outcome, 'relinked', healed.detail);
  assert.is(gsdTools(home), '// 1.1.0\n');
  // A live copy of the same plugin elsewhere (another marketplace): the session's own copy wins.
  const other = pluginCopy(path.join(path.dirname(cache), 'elsewhere'), '2.0.0');
  assert.is(link.linkPayload(settingsOf(home, other)).outcome, 'relinked');
  assert.is(gsdTools(home), '// 2.0.0\n');
  assert.equal(readdirSync(path.join(home, '.claude')), ['gsd-core'], 'no temporary link left behind');
});

linkCase('should leave alone a link of the user\'s, live or dangling, and say so when it leads nowhere', (home, cache) => {
  const root = pluginCopy(cache, '1.0.0');
  const mine = path.join(path.dirname(home), 'my-checkout', 'gsd-core');
  mkdirSync(mine, { recursive: true });
  mkdirSync(path.join(home, '.claude'));
  symlinkSync(mine, path.join(home, '.claude/gsd-core'));
  const live = link.linkPayload(settingsOf(home, root));
  assert.is(live.outcome, 'kept');
  assert.is(link.notice(live), '');
  // Dangling, outside the plugin's version folders: not ours to replace.
  rmSync(mine, { recursive: true });
  const dangling = link.linkPayload(settingsOf(home, root));
  assert.is(dangling.outcome, 'kept');
  assert.is(readlinkSync(path.join(home, '.claude/gsd-core')), mine);
  assert.match(link.notice(dangling), /leads to no folder; the plugin leaves it alone/);
  // A link to a copy of some other plugin named differently is not ours either.
  rmSync(path.join(home, '.claude/gsd-core'));
  const stranger = pluginCopy(path.join(path.dirname(cache), 'other'), '1.0.0', 'not-gsd');
  symlinkSync(path.join(stranger, 'gsd-core'), path.join(home, '.claude/gsd-core'));
  assert.is(link.linkPayload(settingsOf(home, root)).outcome, 'kept');
});

linkCase('should fail closed and tell the model when the home is read-only or something appears meanwhile', (home, cache) => {
  const root = pluginCopy(cache, '1.0.0');
  const readOnly = (error: string) => () => {
    throw Object.assign(new Error(`${error}: read-only file system`), { code: error });
  };
  const failed = link.linkPayload(settingsOf(home, root, { ...fs, mkdirSync: readOnly('EROFS'), symlinkSync: readOnly('EROFS') } as typeof fs));
  assert.is(failed.outcome, 'failed');
  assert.match(link.notice(failed), /could not link .*\.claude\/gsd-core .*EROFS/);
  assert.not.ok(existsSync(path.join(home, '.claude')));
  // A user's install that appears between the look and the link is not replaced.
  mkdirSync(path.join(home, '.claude/gsd-core'), { recursive: true });
  writeFileSync(path.join(home, '.claude/gsd-core/mine'), 'x');
  const raced = link.linkPayload(settingsOf(home, root, { ...fs, lstatSync: readOnly('ENOENT') } as typeof fs));
  assert.is(raced.outcome, 'failed');
  assert.ok(lstatSync(path.join(home, '.claude/gsd-core')).isDirectory());
  assert.is(readFileSync(path.join(home, '.claude/gsd-core/mine'), 'utf8'), 'x');
  // Another session's link made between the look and ours: looked at again, and it is the same.
  rmSync(path.join(home, '.claude/gsd-core'), { recursive: true });
  symlinkSync(path.join(realpathSync(root), 'gsd-core'), path.join(home, '.claude/gsd-core'));
  let looks = 0;
  const lateLook = ((file: string) => {
    looks += 1;
    if (looks === 1) throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    return fs.lstatSync(file);
  }) as typeof fs.lstatSync;
  assert.is(link.linkPayload(settingsOf(home, root, { ...fs, lstatSync: lateLook } as typeof fs)).outcome, 'current');
  assert.is(looks, 2);
  rmSync(path.join(home, '.claude/gsd-core'));
  // A replacement whose rename fails leaves the old link and no temporary one.
  const old = pluginCopy(cache, '0.9.0');
  symlinkSync(path.join(realpathSync(old), 'gsd-core'), path.join(home, '.claude/gsd-core'));
  const stuck = link.linkPayload(settingsOf(home, root, { ...fs, renameSync: readOnly('EXDEV') } as typeof fs));
  assert.is(stuck.outcome, 'failed');
  assert.equal(readdirSync(path.join(home, '.claude')), ['gsd-core']);
  assert.is(gsdTools(home), '// 0.9.0\n');
  // A plugin without its payload links nothing.
  rmSync(path.join(root, 'gsd-core'), { recursive: true });
  rmSync(path.join(home, '.claude/gsd-core'));
  assert.is(link.linkPayload(settingsOf(home, root)).outcome, 'failed');
  assert.not.ok(existsSync(path.join(home, '.claude/gsd-core')));
});

plugin('link hook: the emitted script, run as Claude Code runs it, links the written plugin\'s payload', () => {
  const dir = temporaryDir('plugin-hook');
  try {
    const data = loadPluginData();
    const tree = claudePlugin(bundle, compiled.version, data, '.claude', 'gsd-core');
    const root = path.join(dir, 'plugin');
    for (const file of [`${pluginFolder(data)}/.claude-plugin/plugin.json`, `${pluginFolder(data)}/hooks/gsd-plugin-link.cjs`, `${pluginFolder(data)}/gsd-core/bin/gsd-tools.cjs`]) {
      const into = path.join(root, file.slice(pluginFolder(data).length + 1));
      mkdirSync(path.dirname(into), { recursive: true });
      writeFileSync(into, tree.get(file)!.contents);
    }
    const home = path.join(dir, 'home');
    mkdirSync(home);
    const run = () => spawnSync(process.execPath, [path.join(root, 'hooks/gsd-plugin-link.cjs')], { env: { ...process.env, HOME: home, USERPROFILE: home, CLAUDE_PLUGIN_ROOT: root }, encoding: 'utf8', input: '{}' });
    const first = run();
    assert.is(first.status, 0, first.stderr);
    assert.is(first.stdout, '');
    assert.is(readlinkSync(path.join(home, '.claude/gsd-core')), path.join(realpathSync(root), 'gsd-core'));
    assert.ok(existsSync(path.join(home, '.claude/gsd-core/bin/gsd-tools.cjs')));
    // A home where ~/.claude is a file: exit 0 all the same, and one line for the model.
    rmSync(path.join(home, '.claude'), { recursive: true });
    writeFileSync(path.join(home, '.claude'), '');
    const blocked = run();
    assert.is(blocked.status, 0, blocked.stderr);
    assert.match(blocked.stdout, /^GSD plugin: could not link .*ENOTDIR/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

plugin('link hook: the settings line is filled in once, or the build stops', () => {
  assert.match(linkHookScript({ root: '.claude', payload: 'gsd-core', plugin: 'gsd' }), /^const SETTINGS = \{"root":"\.claude","payload":"gsd-core","plugin":"gsd"\};$/m);
  assert.not.match(linkHookScript({ root: '.claude', payload: 'gsd-core', plugin: 'gsd' }), 'const SETTINGS = null;');
});

plugin.run();
