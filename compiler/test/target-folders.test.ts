// One walk over targets/: every runtime is one folder, and each folder is
// complete on its own terms. Its definition, hook payload and facts load
// without a finding (the loader checks target.json against facts.json:
// mapped events, tool maps, frontmatter rules, permissions, limits); every
// file in it is one the definition names, its README, its payload, its facts
// or its own tests; its README says what it lays out and how it differs from
// upstream, with the vendor sources its facts name; each scope it declares has
// a golden bundle and a support-matrix row, and no other golden scope exists.
// Then every bundle, built from source/ and from the upstream corpus, is held
// to its runtime's facts: the events and matcher tools its hook registration
// names, and the frontmatter keys and agent tools of every file a surface
// writes. Adding a runtime is adding a folder this test accepts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { hookFiles, runtimeHooks } from '../emit/hook-formats.ts';
import { hookScriptName } from '../emit/emit-bundle.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { allBundles, compile, emitBundles, REPO_ROOT, type Compiled } from '../pipeline.ts';
import { FACTS_FILE, keyGroup, toolNames, usesActions } from '../targets/check-facts.ts';
import { HOOK_PAYLOAD_FILE, loadTargets } from '../targets/load-targets.ts';
import { SCOPE_IDS, type Target, type TargetScope } from '../targets/target-types.ts';
import { escapeRegExp } from '../util/text.ts';
import { suite, assert } from './harness.ts';

const s = suite('target folders');
const TARGETS = path.join(REPO_ROOT, 'targets');
const GOLDEN = path.join(REPO_ROOT, 'golden');

let targets: Target[] = [];
s.before(async () => {
  const loaded = await loadTargets();
  assert.equal(loaded.diagnostics, []);
  targets = loaded.targets;
});

/** Files a definition names (preambles with {scope} filled, wrapper templates, config texts). */
function namedFiles(target: Target): Set<string> {
  return new Set(Object.keys(target.files));
}

s('should load every folder under targets/ as a target', () => {
  const folders = readdirSync(TARGETS, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  assert.equal(targets.map((target) => target.definition.id).sort(), folders);
  assert.ok(folders.length >= 18, `${folders.length} runtimes`);
});

s('should hold only files its definition names, its README, its hook payload, its facts and its own tests', () => {
  const strays: string[] = [];
  for (const target of targets) {
    const id = target.definition.id;
    const known = new Set(['target.json', 'README.md', HOOK_PAYLOAD_FILE, FACTS_FILE, ...namedFiles(target)]);
    for (const file of readdirSync(path.join(TARGETS, id))) if (!known.has(file) && !file.endsWith('.test.ts')) strays.push(`${id}/${file}`);
    assert.is(existsSync(path.join(TARGETS, id, HOOK_PAYLOAD_FILE)), target.hookPayload !== undefined, `${id}: a payload file that loads, or none`);
  }
  assert.equal(strays, []);
});

s('should document each runtime: surfaces, differences from upstream, the vendor pages followed', () => {
  for (const target of targets) {
    const id = target.definition.id;
    const readme = readFileSync(path.join(TARGETS, id, 'README.md'), 'utf8');
    const headings = readme.split('\n').filter((line) => line.startsWith('## ')).map((line) => line.slice(3));
    assert.ok(headings.includes('Surfaces'), `${id}/README.md: a "Surfaces" section`);
    assert.ok(headings.includes('Differences from upstream'), `${id}/README.md: a "Differences from upstream" section`);
    assert.ok(headings.includes('Vendor documentation checked') || headings.includes('Checked against'), `${id}/README.md: a "Vendor documentation checked" (or "Checked against") section naming the pages followed`);
  }
});

s('should have a facts.json for every runtime, each source named in its README\'s vendor documentation', () => {
  for (const target of targets) {
    const id = target.definition.id;
    assert.ok(target.facts, `${id}/${FACTS_FILE}`);
    const section = vendorSection(readFileSync(path.join(TARGETS, id, 'README.md'), 'utf8'));
    const groups = Object.entries(target.facts!).filter(([key]) => key !== 'runtime' && key !== 'gaps');
    const sources: [string, Record<string, string>][] = groups.flatMap(([key, value]) =>
      Array.isArray(value) ? value.map((limit, index): [string, Record<string, string>] => [`limits.${index}`, limit.source]) : [[key, (value as { source: Record<string, string> }).source]],
    );
    for (const [group, source] of sources) {
      // A page is named without its scheme; a program by name and version; a repository or document by name.
      const names = source['page'] ? [source['page'].replace(/^https:\/\//, '')] : source['program'] ? [source['program'], source['version']!] : [source['repository'] ?? source['document']!];
      for (const name of names) assert.ok(section.includes(name), `${id}/README.md: the vendor documentation section names "${name}" (facts.json ${group})`);
    }
  }
});

s('should have a golden bundle and a support-matrix row for each declared scope, and nothing else', () => {
  const matrix = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n').filter((line) => line.startsWith('| '));
  for (const target of targets) {
    const { id, name } = target.definition;
    for (const scope of SCOPE_IDS) {
      const declared = target.definition.scopes[scope] !== undefined;
      assert.is(existsSync(path.join(GOLDEN, id, scope, 'gsd-file-manifest.json')), declared, `golden/${id}/${scope}`);
      if (declared) assert.ok(matrix.some((line) => line.startsWith(`| ${name} | ${scope} |`)), `README.md: a matrix row for ${name} ${scope}`);
    }
  }
  const goldenTargets = readdirSync(GOLDEN, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  assert.equal(goldenTargets, targets.map((target) => target.definition.id).sort(), 'golden/ holds the targets there are');
});

/** The README's "Vendor documentation checked" (or "Checked against") section. */
function vendorSection(readme: string): string {
  const start = readme.search(/^## (?:Vendor documentation checked|Checked against)$/m);
  const rest = readme.slice(start + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

s.run();

const walk = suite('target folders: every bundle against its facts');
const UPSTREAM = path.join(REPO_ROOT, 'node_modules/@opengsd/gsd-core');
const corpora: { name: string; compiled: Compiled; bundles: Map<string, VirtualTree> }[] = [];

walk.before(async () => {
  for (const [name, sourceDir] of [['source', path.join(REPO_ROOT, 'source')], ['upstream', UPSTREAM]] as const) {
    const compiled = await compile({ sourceDir });
    const emitted = emitBundles(compiled, allBundles(compiled.targets));
    assert.equal(emitted.diagnostics.filter((d) => (d.severity ?? 'error') === 'error').slice(0, 3), [], name);
    corpora.push({ name, compiled, bundles: emitted.bundles });
  }
});

/** Each bundle of each corpus with its target and scope. */
function* everyBundle() {
  for (const { name, compiled, bundles } of corpora) {
    for (const target of compiled.targets) {
      for (const scopeId of SCOPE_IDS) {
        const scope = target.definition.scopes[scopeId];
        if (scope) yield { where: `${name} ${target.definition.id}/${scopeId}`, compiled, target, scopeId, scope, bundle: bundles.get(`${target.definition.id}/${scopeId}`)! };
      }
    }
  }
}

walk('should register only documented events, under each event name, in every bundle', () => {
  let checked = 0;
  for (const { where, compiled, target, scope, bundle } of everyBundle()) {
    const facts = target.facts!;
    if (!scope.hooks || !facts.events) continue;
    const registered = runtimeHooks(compiled.hooks, scope.hooks, target.definition.toolMaps ?? {}, hookScriptName);
    // A Cascade-style event (pre_{action}) is listed under each action its matcher names, or under every action.
    const eventsOf = (hook: (typeof registered)[number]) => (hook.event.includes('{action}') ? (hook.matcher?.split('|') ?? scope.hooks!.actions ?? []).map((action) => hook.event.replace('{action}', action)) : [hook.event]);
    const events = registered.flatMap(eventsOf);
    for (const event of events) assert.ok(facts.events.names.includes(event) || facts.settingsKeys?.names.includes(event), `${where}: "${event}" is not an event ${facts.runtime} documents`);
    for (const [file, list] of hookFiles(scope.hooks.path.replaceAll('{root}', scope.root), registered)) {
      const text = String(bundle.get(file)?.contents ?? '');
      assert.ok(text !== '', `${where}: ${file} is emitted`);
      for (const event of list.flatMap(eventsOf)) assert.ok(text.includes(event), `${where}: ${file} names "${event}"`);
    }
    checked += events.length;
  }
  assert.ok(checked > 100, `${checked} registrations`);
});

walk('should name only documented tools in every hook matcher', () => {
  let checked = 0;
  for (const { where, compiled, target, scope } of everyBundle()) {
    const tools = target.facts!.tools;
    if (!scope.hooks || !tools || usesActions(scope.hooks)) continue;
    for (const hook of runtimeHooks(compiled.hooks, scope.hooks, target.definition.toolMaps ?? {}, hookScriptName)) {
      for (const tool of toolNames(hook.matcher ?? '')) {
        assert.ok(tools.names.includes(tool), `${where}: matcher tool "${tool}" is not one ${target.facts!.runtime} documents`);
        checked += 1;
      }
    }
  }
  assert.ok(checked > 100, `${checked} matcher tools`);
});

walk('should write only documented frontmatter keys and agent tools in every file a surface writes', () => {
  let checked = 0;
  for (const { where, target, scope, bundle } of everyBundle()) {
    const facts = target.facts!;
    const surfaces = [
      ...scope.commands.filter((surface) => surface.frontmatter !== 'keep').map((surface) => ({ kind: 'commands' as const, paths: [surface.path, ...(surface.nested ? [surface.nested.child] : [])], format: 'markdown' })),
      ...scope.agents.map((surface) => ({ kind: 'agents' as const, paths: [surface.path], format: surface.format })),
    ];
    for (const surface of surfaces) {
      const pattern = new RegExp(`^(?:${surface.paths.map((file) => pathPattern(file, scope)).join('|')})$`);
      for (const [file, entry] of bundle) {
        if (!pattern.test(file)) continue;
        const data = topLevel(String(entry.contents), surface.format);
        if (!data) continue;
        const { group, names } = keyGroup(facts, file, surface.kind);
        if (names) for (const key of Object.keys(data)) assert.ok(names.names.includes(key), `${where}/${file}: "${key}" is not one of ${facts.runtime}'s ${group}`);
        const agentTools = facts.agentTools ?? facts.tools;
        if (surface.kind === 'agents' && agentTools && data['tools'] !== undefined) {
          const listed = Array.isArray(data['tools']) ? data['tools'].map(String) : String(data['tools']).split(/,\s*/);
          // Upstream agents may list an MCP server's tools, which are the user's, not the runtime's.
          for (const tool of listed) assert.ok(agentTools.names.includes(tool) || tool.startsWith('mcp__'), `${where}/${file}: agent tool "${tool}" is not one ${facts.runtime} documents`);
        }
        checked += 1;
      }
    }
  }
  assert.ok(checked > 1000, `${checked} files`);
});

/** A surface path ({root}, {name}, {router}) as a regular expression over bundle paths. */
function pathPattern(file: string, scope: TargetScope): string {
  return escapeRegExp(file.replaceAll('{root}', scope.root)).replace(/\\\{(?:name|router)\\\}/g, '[^/]+');
}

/** The keys a runtime reads at the top of a written file: its YAML frontmatter, or the whole TOML or YAML agent. */
function topLevel(contents: string, format: string): Record<string, unknown> | null {
  if (format === 'codex-toml') return parseToml(contents) as Record<string, unknown>;
  if (format === 'kimi-agent-spec') return parseYaml(contents) as Record<string, unknown>;
  const match = /^---\n([\s\S]*?\n)?---\n/.exec(contents);
  return match ? ((parseYaml(match[1] ?? '') ?? {}) as Record<string, unknown>) : null;
}

walk.run();
