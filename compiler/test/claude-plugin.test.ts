// The Claude Code plugin and marketplace (gsd-build plugin): laid out from the
// claude/global bundle, manifests valid against
// schemas/claude-plugin-manifest.schema.json, every hook command on a script
// the plugin ships under ${CLAUDE_PLUGIN_ROOT}. The real `claude plugin
// validate` runs on it in scripts/runtimes/claude.mjs (npm run test:runtimes).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { compile, emitBundles, REPO_ROOT, type Compiled } from '../pipeline.ts';
import { claudePlugin, loadPluginData, pluginFolder } from '../emit/claude-plugin.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { schemaValidator } from '../schemas.ts';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';

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
  assert.is(commands.length, Object.values(settings).flat().flatMap((group) => group.hooks).length);
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
    for (const file of ['.claude-plugin/marketplace.json', 'plugins/gsd/hooks/hooks.json', 'plugins/gsd/skills/gsd-plan-phase/SKILL.md']) {
      assert.is(readFileSync(path.join(out, 'b', file), 'utf8'), readFileSync(path.join(out, 'a', file), 'utf8'), file);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

plugin.run();
