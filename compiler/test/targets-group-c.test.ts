// The qwen, hermes, codebuddy and cline targets: what their data cannot say
// by itself. Every command, agent and payload file in place, the frontmatter
// values each runtime needs, slash syntax and arguments, memory-file and
// product-name rewrites, each hook file's shape, Cline's
// dispatcher run as Cline runs it, and limits with a failing fixture. Roots,
// events, tool names, keys and limits are the target's data, checked against
// its facts.json by target-folders.test.ts.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { formatDiagnostic } from '../diagnostics.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { routedCommands } from '../emit/nest-routers.ts';
import { escapeRegExp } from '../util/text.ts';
import { compile, emitBundles, REPO_ROOT, type BundleSelection, type Compiled } from '../pipeline.ts';
import type { ScopeId, TargetScope } from '../targets/target-types.ts';
import { suite, assert } from './harness.ts';
import { copySource, FIXTURES, temporaryDir } from './fixture-support.ts';

const IDS = ['qwen', 'hermes', 'codebuddy', 'cline'] as const;
type Id = (typeof IDS)[number];
const SCOPES = ['global', 'local'] as const;

/** The definition of bundle `key` (target/scope). */
function scopeOf(key: string): TargetScope {
  const [id, scope] = key.split('/') as [Id, ScopeId];
  return compiled.targets.find((target) => target.definition.id === id)!.definition.scopes[scope]!;
}
const fill = (pattern: string, scope: TargetScope, names: Record<string, string>) => Object.entries(names).reduce((out, [key, value]) => out.replaceAll(`{${key}}`, value), pattern.replaceAll('{root}', scope.root));

/** Where one command of the compiled corpus lands in bundle `key`: under its router in a nested layout. */
function commandPath(key: string, name: string): string {
  const surface = scopeOf(key).commands[0]!;
  const owner = surface.nested ? routedCommands(commandsOf(compiled)).get(name) : undefined;
  return fill(owner ? surface.nested!.child : surface.path, scopeOf(key), { name, router: owner ?? '' });
}
const agentPath = (key: string, name: string) => fill(scopeOf(key).agents[0]!.path, scopeOf(key), { name });
const payloadRoot = (key: string) => `${scopeOf(key).root}/gsd-core/`;

function selections(ids: readonly string[]): BundleSelection[] {
  return ids.flatMap((target) => SCOPES.map((scope) => ({ target, scope })));
}

function text(tree: VirtualTree, file: string): string {
  const entry = tree.get(file);
  assert.ok(entry, `missing ${file}`);
  return String(entry!.contents);
}

/** The YAML frontmatter of an emitted file, parsed, plus its body. */
function frontmatter(contents: string): { data: Record<string, unknown>; keys: string[]; body: string } {
  const match = /^---\n([\s\S]*?\n)---\n([\s\S]*)$/.exec(contents);
  assert.ok(match, `no frontmatter in:\n${contents.slice(0, 200)}`);
  const data = parseYaml(match![1]!) as Record<string, unknown>;
  return { data, keys: Object.keys(data), body: match![2]! };
}

const commandsOf = (compiled: Compiled) => compiled.ir.nodes.filter((node) => node.kind === 'command' && node.variant === undefined);
const agentsOf = (compiled: Compiled) => compiled.ir.nodes.filter((node) => node.kind === 'agent' && node.variant === undefined);

let compiled: Compiled;
let bundles: Map<string, VirtualTree>;
let hooksRegistered = false;

const targets = suite('targets group c');

targets.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  const built = emitBundles(compiled, selections(IDS));
  assert.equal(built.diagnostics.map((d) => formatDiagnostic(d)), []);
  bundles = built.bundles;
  hooksRegistered = compiled.hooks.some((hook) => !hook.optIn && (hook.event === 'PreToolUse' || hook.event === 'PostToolUse'));
});

targets('should put every command, agent and payload file where the runtime reads it', () => {
  for (const [key, tree] of bundles) {
    for (const command of commandsOf(compiled)) assert.ok(tree.has(commandPath(key, command.name)), `${key}: command ${command.name}`);
    for (const agent of agentsOf(compiled)) assert.ok(tree.has(agentPath(key, agent.name)), `${key}: agent ${agent.name}`);
    for (const node of compiled.ir.nodes.filter((n) => n.path.startsWith('gsd-core/') && n.variant === undefined && n.kind !== 'hook')) {
      assert.ok(tree.has(`${payloadRoot(key)}${node.path.slice('gsd-core/'.length)}`), `${key}: ${node.path}`);
    }
    assert.ok(tree.has(`${payloadRoot(key)}VERSION`), key);
  }
  // Config files each runtime reads.
  assert.ok(bundles.get('hermes/global')!.has('.hermes/skills/gsd/DESCRIPTION.md'));
  assert.ok(bundles.get('hermes/local')!.has('.hermes/skills/gsd/DESCRIPTION.md'));
  assert.ok(bundles.get('cline/global')!.has('.cline/rules/gsd.md'));
  assert.ok(bundles.get('cline/local')!.has('.clinerules/gsd.md'));
  // CodeBuddy has one slash surface: commands, never also same-named skills.
  for (const scope of SCOPES) {
    assert.not.ok([...bundles.get(`codebuddy/${scope}`)!.keys()].some((file) => file.includes('/skills/')), scope);
  }
});

targets('should name no build-machine path, no Claude Code root and (locally) no home root', () => {
  const forbidden = [REPO_ROOT, os.homedir(), os.tmpdir()].filter((p) => p.length > 1);
  for (const [key, tree] of bundles) {
    const local = key.endsWith('/local');
    for (const [file, entry] of tree) {
      const contents = String(entry.contents);
      for (const absolute of forbidden) assert.not.ok(contents.includes(absolute), `${key}/${file} names ${absolute}`);
      if (entry.source === undefined) continue;
      assert.not.match(contents, /(?<![\w-])\.claude\b/, `${key}/${file}`);
      if (local) assert.not.match(contents, /(?:~|\$HOME)\/\.(?:qwen|hermes|codebuddy|cline)\b/, `${key}/${file}`);
    }
  }
  // Cline's project folder .clinerules holds only its rules file and hook executables.
  for (const file of bundles.get('cline/local')!.keys()) {
    if (file.startsWith('.clinerules/')) assert.match(file, /^\.clinerules\/(?:gsd\.md|hooks\/[A-Z][A-Za-z]+)$/, file);
  }
});

targets('should write the skill and command frontmatter each runtime reads', () => {
  const version = compiled.version;
  for (const scope of SCOPES) {
    for (const command of commandsOf(compiled)) {
      const source = command.frontmatter!.data!;
      const description = String(source['description']).replace(/\s+/g, ' ').trim();
      const hint = typeof source['argument-hint'] === 'string' && source['argument-hint'].trim() !== '' ? ['argument-hint'] : [];

      const qwen = frontmatter(text(bundles.get(`qwen/${scope}`)!, commandPath(`qwen/${scope}`, command.name)));
      const priority = qwenPriority(scope)[command.name];
      assert.equal(qwen.keys, ['name', 'description', ...hint, ...(priority === undefined ? [] : ['priority'])], command.name);
      assert.is(qwen.data['name'], `gsd-${command.name}`);
      assert.is(qwen.data['description'], description);
      assert.is(qwen.data['priority'], priority);

      const hermes = frontmatter(text(bundles.get(`hermes/${scope}`)!, commandPath(`hermes/${scope}`, command.name)));
      assert.equal(hermes.keys, ['name', 'description', 'version'], command.name);
      assert.is(hermes.data['version'], version);

      const codebuddy = frontmatter(text(bundles.get(`codebuddy/${scope}`)!, commandPath(`codebuddy/${scope}`, command.name)));
      assert.equal(codebuddy.keys, ['description', ...hint, 'allowed-tools'], command.name);
      assert.is(codebuddy.data['allowed-tools'], (source['allowed-tools'] as string[]).join(', '));

      const clineFile = commandPath(`cline/${scope}`, command.name);
      const cline = frontmatter(text(bundles.get(`cline/${scope}`)!, clineFile));
      assert.equal(cline.keys, ['name', 'description'], command.name);
      // Cline requires a skill's name to equal its folder.
      assert.is(cline.data['name'], clineFile.split('/').at(-2));
    }
  }
  const description = frontmatter(text(bundles.get('hermes/global')!, '.hermes/skills/gsd/DESCRIPTION.md'));
  assert.equal(description.keys, ['name', 'description']);
  assert.is(description.data['name'], 'gsd');
});

/** Qwen Code sorts /skills by priority: the lookup in targets/qwen/target.json. */
const qwenPriority = (scope: ScopeId) => {
  const rules = scopeOf(`qwen/${scope}`).commands[0]!.frontmatter;
  return (Array.isArray(rules) ? rules.find((rule) => rule.key === 'priority')?.lookup : undefined) ?? {};
};

targets('should write agents in each runtime\'s own format and tool names', () => {
  for (const scope of SCOPES) {
    for (const agent of agentsOf(compiled)) {
      const tools = String(agent.frontmatter!.data!['tools']).split(',').map((tool) => tool.trim());

      const qwen = frontmatter(text(bundles.get(`qwen/${scope}`)!, agentPath(`qwen/${scope}`, agent.name)));
      const qwenTools = qwen.data['tools'] as string[];
      assert.ok(Array.isArray(qwenTools) && qwenTools.length > 0, agent.name);
      if (tools.includes('Bash')) assert.ok(qwenTools.includes('run_shell_command'), agent.name);
      if (tools.includes('Read')) assert.ok(qwenTools.includes('read_file'), agent.name);

      const hermes = frontmatter(text(bundles.get(`hermes/${scope}`)!, agentPath(`hermes/${scope}`, agent.name)));
      assert.is(hermes.data['schema_version'], 1);
      assert.equal(hermes.data['delegation'], { role: 'leaf' });
      assert.ok(hermes.body.trim().length > 200, agent.name);

      const codebuddy = frontmatter(text(bundles.get(`codebuddy/${scope}`)!, agentPath(`codebuddy/${scope}`, agent.name)));
      assert.is(codebuddy.data['tools'], tools.join(', '));

      const cline = frontmatter(text(bundles.get(`cline/${scope}`)!, agentPath(`cline/${scope}`, agent.name)));
      assert.is(cline.data['name'], agent.name);
      assert.ok(cline.body.trim().length > 200, `${agent.name}: Cline needs a prompt body`);
    }
  }
});

targets('should render slash commands and arguments in each runtime\'s syntax', () => {
  const plan = 'plan-phase';
  for (const scope of SCOPES) {
    for (const id of ['qwen', 'hermes', 'cline'] as const) {
      const contents = text(bundles.get(`${id}/${scope}`)!, commandPath(`${id}/${scope}`, plan));
      const { body } = frontmatter(contents);
      // The preamble comes first and defines {{GSD_ARGS}} before the body uses it.
      assert.ok(body.startsWith(`<${id}_skill_adapter>\n`), `${id}/${scope}`);
      const adapterEnd = body.indexOf(`</${id}_skill_adapter>`);
      assert.ok(adapterEnd > 0 && body.indexOf('{{GSD_ARGS}}') < adapterEnd, `${id}/${scope}: {{GSD_ARGS}} defined first`);
      assert.ok(body.slice(adapterEnd).includes('{{GSD_ARGS}}'), `${id}/${scope}`);
      assert.match(body, /`\/gsd-execute-phase`/);
    }
    const codebuddy = text(bundles.get(`codebuddy/${scope}`)!, commandPath(`codebuddy/${scope}`, plan));
    assert.match(codebuddy, /\$ARGUMENTS/);
    assert.not.match(codebuddy, /\{\{GSD_ARGS\}\}/);
    assert.match(codebuddy, /`\/gsd-execute-phase`/);
  }
  for (const [key, tree] of bundles) {
    for (const [file, entry] of tree) {
      if (entry.source === undefined) continue;
      const contents = String(entry.contents);
      // Upstream's colon form of a command mention; the marker grammar's `/gsd:section` is not one.
      assert.not.match(contents, /\/gsd:(?!section\b|only\b)[a-z]/, `${key}/${file}`);
      if (!key.startsWith('codebuddy/')) assert.not.match(contents, /\$ARGUMENTS/, `${key}/${file}`);
    }
  }
  // Includes and paths point into the bundle's own root, home-relative or project-relative.
  assert.match(text(bundles.get('qwen/global')!, commandPath('qwen/global', 'plan-phase')), /^@~\/\.qwen\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text(bundles.get('qwen/local')!, commandPath('qwen/local', 'plan-phase')), /^@\.qwen\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text(bundles.get('hermes/global')!, commandPath('hermes/global', 'plan-phase')), /^@~\/\.hermes\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text(bundles.get('codebuddy/local')!, '.codebuddy/commands/gsd-plan-phase.md'), /^@\.codebuddy\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text(bundles.get('cline/global')!, '.cline/gsd-core/workflows/plan-phase.md'), /"\$HOME\/\.cline\/gsd-core\/bin\/gsd-tools\.cjs"/);
});

targets('should rewrite the memory file and the product name for each runtime', async () => {
  const source = copySource();
  const reference = path.join(source, 'gsd-core/references/questioning.md');
  writeFileSync(reference, `${readFileSync(reference, 'utf8')}\nRecord the decision in CLAUDE.md, as Claude Code users do.\n`);
  const result = await compile({ sourceDir: source });
  assert.equal(result.diagnostics, []);
  const built = emitBundles(result, selections(IDS)).bundles;
  const expected: Record<Id, string> = {
    qwen: 'Record the decision in QWEN.md, as Qwen Code users do.',
    hermes: 'Record the decision in AGENTS.md, as Hermes Agent users do.',
    codebuddy: 'Record the decision in CODEBUDDY.md, as CodeBuddy Code users do.',
    cline: 'Record the decision in AGENTS.md, as Cline users do.',
  };
  for (const id of IDS) {
    for (const scope of SCOPES) {
      assert.ok(text(built.get(`${id}/${scope}`)!, `${payloadRoot(`${id}/${scope}`)}references/questioning.md`).endsWith(`\n${expected[id]}\n`), `${id}/${scope}`);
    }
  }
});

targets('should register hooks in each runtime\'s own file, events and tool names', () => {
  /** Whether `file` is a hook registration of bundle `key`: the surface's path, {event} standing for an event name. */
  const hookFiles = (key: string) => {
    const hooks = scopeOf(key).hooks;
    const pattern = hooks ? new RegExp(`^${escapeRegExp(hooks.path.replaceAll('{root}', scopeOf(key).root)).replace('\\{event\\}', '[A-Z][A-Za-z]+')}$`) : undefined;
    return (file: string) => pattern?.test(file) ?? false;
  };
  for (const [key, tree] of bundles) {
    const registrations = [...tree.keys()].filter(hookFiles(key));
    if (!hooksRegistered || key === 'hermes/local') {
      assert.equal(registrations, [], key);
      continue;
    }
    assert.ok(registrations.length > 0, key);
  }
  // Hermes keeps shell hooks in the profile's config.yaml: the project scope has no hooks and ships no scripts.
  assert.not.ok([...bundles.get('hermes/local')!.keys()].some((file) => file.includes('hooks')));
  if (!hooksRegistered) return;

  const registry = compiled.hooks.filter((hook) => !hook.optIn);
  for (const scope of SCOPES) {
    const qwen = JSON.parse(text(bundles.get(`qwen/${scope}`)!, '.qwen/settings.json')) as { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] }[]> };
    for (const groups of Object.values(qwen.hooks)) {
      for (const group of groups) {
        for (const hook of group.hooks) {
          assert.is(hook.type, 'command');
          assert.match(hook.command, scope === 'global' ? /^node "\$\{QWEN_HOME:-\$HOME\/\.qwen\}\/hooks\/gsd-[a-z-]+\.cjs" --runtime qwen$/ : /^node "\$QWEN_PROJECT_DIR\/\.qwen\/hooks\/gsd-[a-z-]+\.cjs" --runtime qwen$/);
          // Qwen reads command-hook timeouts in seconds below 1000.
          assert.ok(hook.timeout === undefined || hook.timeout < 1000, hook.command);
        }
      }
    }
    assert.not.ok('StatusLine' in qwen.hooks);

    const codebuddy = JSON.parse(text(bundles.get(`codebuddy/${scope}`)!, '.codebuddy/settings.json')) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
    for (const groups of Object.values(codebuddy.hooks)) {
      for (const group of groups) {
        // CodeBuddy matches tool names as unanchored regexes: each name is anchored, and Task is its Agent tool.
        for (const part of (group.matcher ?? '').split('|').filter(Boolean)) assert.match(part, /^\^[A-Za-z]+\$$/, part);
        assert.not.match(group.matcher ?? '', /Task/);
        for (const hook of group.hooks) {
          assert.match(hook.command, scope === 'global' ? /^node "\$\{CODEBUDDY_CONFIG_DIR:-\$HOME\/\.codebuddy\}\/hooks\// : /^node "\$CODEBUDDY_PROJECT_DIR\/\.codebuddy\/hooks\//);
        }
      }
    }
  }

  const hermes = parseYaml(text(bundles.get('hermes/global')!, '.hermes/config.yaml')) as { hooks: Record<string, { matcher?: string; command: string; timeout?: number; fail_closed?: boolean }[]> };
  assert.equal(Object.keys(hermes), ['hooks']);
  for (const [event, entries] of Object.entries(hermes.hooks)) {
    for (const entry of entries) {
      assert.match(entry.command, /^sh -c 'node "\$\{HERMES_HOME:-\$HOME\/\.hermes\}\/agent-hooks\/gsd-[a-z-]+\.cjs" --runtime hermes'$/);
      assert.ok(entry.timeout === undefined || entry.timeout <= 300, entry.command);
      if (entry.fail_closed) assert.is(event, 'pre_tool_call');
    }
  }
  const denying = registry.filter((hook) => hook.event === 'PreToolUse' && hook.crashPolicy === 'deny');
  for (const hook of denying) {
    assert.ok(hermes.hooks['pre_tool_call']!.some((entry) => entry.fail_closed && entry.command.includes(`/${hook.id}.cjs`)), hook.id);
  }

  for (const [key, folder] of [['cline/global', '.cline/hooks/'], ['cline/local', '.clinerules/hooks/']] as const) {
    const tree = bundles.get(key)!;
    const files = [...tree.keys()].filter(hookFiles(key));
    for (const file of files) {
      const entry = tree.get(file)!;
      assert.is(entry.executable, true, file);
      assert.ok(String(entry.contents).startsWith('#!/usr/bin/env node\n'), file);
    }
    assert.ok(files.includes(`${folder}PreToolUse`), key);
  }
});

targets('should block a secret read through the Cline dispatcher, as Cline calls it', () => {
  if (!hooksRegistered || !compiled.hooks.some((hook) => hook.id === 'gsd-secret-read-guard')) return;
  const project = temporaryDir('cline-project');
  for (const [file, entry] of bundles.get('cline/local')!) {
    const target = path.join(project, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, entry.contents, entry.executable ? { mode: 0o755 } : {});
  }
  const call = (toolName: string, parameters: Record<string, string>) => {
    const event = { clineVersion: '3.0.0', hookName: 'PreToolUse', taskId: 't1', workspaceRoots: [project], preToolUse: { toolName, parameters } };
    const run = spawnSync(path.join(project, '.clinerules/hooks/PreToolUse'), { input: JSON.stringify(event), encoding: 'utf8', cwd: project });
    assert.is(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as { cancel: boolean; errorMessage?: string };
  };
  const secret = call('read_file', { path: '.env' });
  assert.is(secret.cancel, true);
  assert.match(secret.errorMessage ?? '', /\.env/);
  assert.is(call('read_file', { path: 'src/index.ts' }).cancel, false);
  assert.is(call('list_files', { path: '.' }).cancel, false);
  // The CLI sends batched calls with JSON-text parameters; every file in the batch is checked.
  const batch = call('read_files', { files: JSON.stringify([{ path: 'README.md' }, { path: '.env.local' }]) });
  assert.is(batch.cancel, true);
  assert.match(batch.errorMessage ?? '', /\.env\.local/);
  assert.is(call('read_files', { files: JSON.stringify([{ path: 'README.md' }, { path: 'src/a.ts' }]) }).cancel, false);
});

targets('should stop the build when a qwen, hermes or cline limit is broken', async () => {
  const source = temporaryDir('group-c-limits');
  cpSync(path.join(FIXTURES, 'targets-group-c/limits/source'), source, { recursive: true });
  // Hermes' skill size limit: pad the command body past 100,000 bytes.
  const command = path.join(source, 'commands/gsd/long.md');
  writeFileSync(command, `${readFileSync(command, 'utf8')}${'Padding line for the Hermes skill size limit.\n'.repeat(2200)}`);
  const result = await compile({ sourceDir: source });
  // The corpus schema rejects these descriptions too; the targets' own limits must fire regardless.
  assert.ok(result.diagnostics.every((d) => d.code === 'frontmatter-schema'), result.diagnostics.map((d) => formatDiagnostic(d)).join('\n'));
  const actual = emitBundles(result, selections(IDS)).diagnostics.map((d) => formatDiagnostic(d)).join('\n') + '\n';
  const expectedFile = path.join(FIXTURES, 'targets-group-c/limits/expected.txt');
  if (process.env['UPDATE_FIXTURES'] === '1') writeFileSync(expectedFile, actual);
  assert.ok(existsSync(expectedFile), 'expected.txt is missing (run with UPDATE_FIXTURES=1)');
  assert.fixture(actual, readFileSync(expectedFile, 'utf8'));
  for (const line of actual.trim().split('\n')) assert.match(line, / error limit-exceeded expected /);
});

targets.run();
