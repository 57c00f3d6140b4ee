// The qwen, hermes, codebuddy and cline targets: where each surface lands in
// both scopes, the frontmatter each runtime reads, slash syntax and
// arguments, tool maps, hook registration, the roots a bundle may touch, and
// the limits each runtime documents.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { formatDiagnostic } from '../diagnostics.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { routedCommands } from '../emit/nest-routers.ts';
import { isBundleMetadata } from '../emit/bundle-manifest.ts';
import { allBundles, compile, emitBundles, REPO_ROOT, type BundleSelection, type Compiled } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { copySource, FIXTURES, temporaryDir } from './fixture-support.ts';

const IDS = ['qwen', 'hermes', 'codebuddy', 'cline'] as const;
type Id = (typeof IDS)[number];
const SCOPES = ['global', 'local'] as const;

/** The folders each bundle may write to, relative to home (global) or the project (local). */
const ROOTS: Record<string, readonly string[]> = {
  'qwen/global': ['.qwen/'],
  'qwen/local': ['.qwen/'],
  'hermes/global': ['.hermes/'],
  'hermes/local': ['.hermes/'],
  'codebuddy/global': ['.codebuddy/'],
  'codebuddy/local': ['.codebuddy/'],
  'cline/global': ['.cline/'],
  'cline/local': ['.cline/', '.clinerules/'],
};

/** Where one command lands in the flat layout (no router owns it). */
const FLAT_PATH: Record<string, (name: string) => string> = {
  'qwen/global': (name) => `.qwen/skills/gsd-${name}/SKILL.md`,
  'qwen/local': (name) => `.qwen/skills/gsd-${name}/SKILL.md`,
  'hermes/global': (name) => `.hermes/skills/gsd/gsd-${name}/SKILL.md`,
  'hermes/local': (name) => `.hermes/skills/gsd/gsd-${name}/SKILL.md`,
  'codebuddy/global': (name) => `.codebuddy/commands/gsd-${name}.md`,
  'codebuddy/local': (name) => `.codebuddy/commands/gsd-${name}.md`,
  'cline/global': (name) => `.cline/skills/gsd-${name}/SKILL.md`,
  'cline/local': (name) => `.cline/skills/gsd-${name}/SKILL.md`,
};

/** Runtimes whose skills sit in the namespace layout: a routed command lives under its router. */
const NESTED_ROOT: Record<string, string> = { qwen: '.qwen/skills/', hermes: '.hermes/skills/gsd/', cline: '.cline/skills/' };

/** Where one command of the compiled corpus lands in bundle `key`. */
function commandPath(key: string, name: string): string {
  const nestedRoot = NESTED_ROOT[key.split('/')[0]!];
  const owner = nestedRoot ? routedCommands(commandsOf(compiled)).get(name) : undefined;
  return owner ? `${nestedRoot}gsd-${owner}/skills/gsd-${name}/SKILL.md` : FLAT_PATH[key]!(name);
}

const AGENT_PATH: Record<string, (name: string) => string> = {
  'qwen/global': (name) => `.qwen/agents/${name}.md`,
  'qwen/local': (name) => `.qwen/agents/${name}.md`,
  'hermes/global': (name) => `.hermes/agents/${name}.md`,
  'hermes/local': (name) => `.hermes/agents/${name}.md`,
  'codebuddy/global': (name) => `.codebuddy/agents/${name}.md`,
  'codebuddy/local': (name) => `.codebuddy/agents/${name}.md`,
  'cline/global': (name) => `.cline/agents/${name}.yaml`,
  'cline/local': (name) => `.cline/agents/${name}.yaml`,
};

const PAYLOAD_ROOT: Record<string, string> = {
  qwen: '.qwen/gsd-core/',
  hermes: '.hermes/gsd-core/',
  codebuddy: '.codebuddy/gsd-core/',
  cline: '.cline/gsd-core/',
};

/** Claude Code tool names that must not survive in a runtime's own tool lists. */
const CLAUDE_TOOLS = ['Read', 'Write', 'Edit', 'MultiEdit', 'Bash', 'Grep', 'Glob', 'WebFetch', 'WebSearch', 'Agent', 'Task', 'AskUserQuestion'];

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

targets('should declare both scopes for every runtime of the group', () => {
  for (const id of IDS) {
    const target = compiled.targets.find((candidate) => candidate.definition.id === id);
    assert.ok(target, `targets/${id}/target.json`);
    assert.equal(Object.keys(target!.definition.scopes).sort(), ['global', 'local'], id);
    assert.is(target!.definition.unsupportedScopes, undefined, id);
  }
  assert.equal(
    allBundles(compiled.targets).filter((selection) => (IDS as readonly string[]).includes(selection.target)),
    selections(IDS).sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0)),
  );
});

targets('should put every command, agent and payload file where the runtime reads it', () => {
  for (const [key, tree] of bundles) {
    const id = key.split('/')[0]!;
    for (const command of commandsOf(compiled)) assert.ok(tree.has(commandPath(key, command.name)), `${key}: command ${command.name}`);
    for (const agent of agentsOf(compiled)) assert.ok(tree.has(AGENT_PATH[key]!(agent.name)), `${key}: agent ${agent.name}`);
    for (const node of compiled.ir.nodes.filter((n) => n.path.startsWith('gsd-core/') && n.variant === undefined && n.kind !== 'hook')) {
      assert.ok(tree.has(`${PAYLOAD_ROOT[id]}${node.path.slice('gsd-core/'.length)}`), `${key}: ${node.path}`);
    }
    assert.ok(tree.has(`${PAYLOAD_ROOT[id]}VERSION`), key);
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

targets('should write nothing outside the runtime\'s own folders and no other root', () => {
  const forbidden = [REPO_ROOT, os.homedir(), os.tmpdir()].filter((p) => p.length > 1);
  for (const [key, tree] of bundles) {
    const local = key.endsWith('/local');
    for (const [file, entry] of tree) {
      assert.ok(ROOTS[key]!.some((root) => file.startsWith(root)) || isBundleMetadata(file), `${key}: ${file}`);
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
      const priority = QWEN_PRIORITY[command.name];
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

/** Qwen Code sorts /skills by priority (targets/qwen/target.json). */
const QWEN_PRIORITY: Record<string, number> = {
  'new-project': 100, 'discuss-phase': 95, 'plan-phase': 90, 'execute-phase': 85, progress: 80, 'verify-work': 75, phase: 70, review: 65,
  ship: 60, config: 55, surface: 50, 'resume-work': 45, 'pause-work': 40, help: 35, update: 30,
};

targets('should write agents in each runtime\'s own format and tool names', () => {
  for (const scope of SCOPES) {
    for (const agent of agentsOf(compiled)) {
      const tools = String(agent.frontmatter!.data!['tools']).split(',').map((tool) => tool.trim());

      const qwen = frontmatter(text(bundles.get(`qwen/${scope}`)!, AGENT_PATH[`qwen/${scope}`]!(agent.name)));
      assert.equal(qwen.keys, ['name', 'description', 'tools', 'color'], agent.name);
      const qwenTools = qwen.data['tools'] as string[];
      assert.ok(Array.isArray(qwenTools) && qwenTools.length > 0, agent.name);
      for (const tool of qwenTools) assert.not.ok(CLAUDE_TOOLS.includes(tool), `${agent.name}: ${tool}`);
      if (tools.includes('Bash')) assert.ok(qwenTools.includes('run_shell_command'), agent.name);
      if (tools.includes('Read')) assert.ok(qwenTools.includes('read_file'), agent.name);

      const hermes = frontmatter(text(bundles.get(`hermes/${scope}`)!, AGENT_PATH[`hermes/${scope}`]!(agent.name)));
      assert.equal(hermes.keys, ['schema_version', 'name', 'description', 'delegation'], agent.name);
      assert.is(hermes.data['schema_version'], 1);
      assert.equal(hermes.data['delegation'], { role: 'leaf' });
      assert.ok(hermes.body.trim().length > 200, agent.name);

      const codebuddy = frontmatter(text(bundles.get(`codebuddy/${scope}`)!, AGENT_PATH[`codebuddy/${scope}`]!(agent.name)));
      assert.equal(codebuddy.keys, ['name', 'description', 'tools'], agent.name);
      assert.is(codebuddy.data['tools'], tools.join(', '));

      const cline = frontmatter(text(bundles.get(`cline/${scope}`)!, AGENT_PATH[`cline/${scope}`]!(agent.name)));
      assert.equal(cline.keys, ['name', 'description'], agent.name);
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
      assert.ok(text(built.get(`${id}/${scope}`)!, `${PAYLOAD_ROOT[id]}references/questioning.md`).endsWith(`\n${expected[id]}\n`), `${id}/${scope}`);
    }
  }
});

targets('should nest routed commands under their router for qwen, hermes and cline, and keep codebuddy flat', async () => {
  const source = copySource();
  // A command no router routes: it stays at the top of the nested layout.
  writeFileSync(path.join(source, 'commands/gsd/probe.md'), '---\nname: gsd:probe\ndescription: A command no router routes\nallowed-tools:\n  - Read\n---\nSay hello.\n');
  writeFileSync(
    path.join(source, 'commands/gsd/ns-workflow.md'),
    `---
name: gsd-workflow
description: "workflow | plan execute"
allowed-tools:
  - Read
  - Skill
requires: [plan-phase, execute-phase]
---
Route to the phase skill the user wants.

| User wants | Invoke |
|---|---|
| Create a PLAN.md | gsd-plan-phase |
| Execute plans in a phase | gsd-execute-phase --wave |

Invoke the matched skill directly using the Skill tool.
`,
  );
  const result = await compile({ sourceDir: source });
  assert.equal(result.diagnostics, []);
  const built = emitBundles(result, selections(IDS));
  assert.equal(built.diagnostics, []);
  const nested: Record<string, { router: string; child: string }> = {
    qwen: { router: '.qwen/skills/gsd-ns-workflow/SKILL.md', child: '.qwen/skills/gsd-ns-workflow/skills/gsd-plan-phase/SKILL.md' },
    hermes: { router: '.hermes/skills/gsd/gsd-ns-workflow/SKILL.md', child: '.hermes/skills/gsd/gsd-ns-workflow/skills/gsd-plan-phase/SKILL.md' },
    cline: { router: '.cline/skills/gsd-ns-workflow/SKILL.md', child: '.cline/skills/gsd-ns-workflow/skills/gsd-plan-phase/SKILL.md' },
  };
  for (const [id, place] of Object.entries(nested)) {
    for (const scope of SCOPES) {
      const tree = built.bundles.get(`${id}/${scope}`)!;
      assert.ok(tree.has(place.child), `${id}/${scope}: nested child`);
      assert.not.ok(tree.has(FLAT_PATH[`${id}/${scope}`]!('plan-phase')), `${id}/${scope}: no top-level copy`);
      assert.ok(tree.has(FLAT_PATH[`${id}/${scope}`]!('probe')), `${id}/${scope}: unrouted command stays on top`);
      const router = text(tree, place.router);
      assert.is(frontmatter(router).data['name'], 'gsd-ns-workflow');
      assert.match(router, /^\| Create a PLAN\.md \| Read `skills\/gsd-plan-phase\/SKILL\.md` \|$/m);
      assert.match(router, /^\| Execute plans in a phase \| Read `skills\/gsd-execute-phase\/SKILL\.md` \(--wave\) \|$/m);
      assert.not.match(router, /Skill tool/);
      // A nested skill keeps a name equal to its folder.
      assert.is(frontmatter(text(tree, place.child)).data['name'], 'gsd-plan-phase');
    }
  }
  for (const scope of SCOPES) {
    const tree = built.bundles.get(`codebuddy/${scope}`)!;
    assert.ok(tree.has('.codebuddy/commands/gsd-ns-workflow.md'));
    assert.ok(tree.has('.codebuddy/commands/gsd-plan-phase.md'));
  }
});

targets('should register hooks in each runtime\'s own file, events and tool names', () => {
  const hookFiles: Record<string, (file: string) => boolean> = {
    'qwen/global': (file) => file === '.qwen/settings.json',
    'qwen/local': (file) => file === '.qwen/settings.json',
    'hermes/global': (file) => file === '.hermes/config.yaml',
    'hermes/local': () => false,
    'codebuddy/global': (file) => file === '.codebuddy/settings.json',
    'codebuddy/local': (file) => file === '.codebuddy/settings.json',
    'cline/global': (file) => /^\.cline\/hooks\/[A-Z][A-Za-z]+$/.test(file),
    'cline/local': (file) => /^\.clinerules\/hooks\/[A-Z][A-Za-z]+$/.test(file),
  };
  for (const [key, tree] of bundles) {
    const registrations = [...tree.keys()].filter(hookFiles[key]!);
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
  const qwenEvents = new Set(['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SubagentStart', 'SubagentStop', 'PreCompact', 'Notification', 'PermissionRequest']);
  for (const scope of SCOPES) {
    const qwen = JSON.parse(text(bundles.get(`qwen/${scope}`)!, '.qwen/settings.json')) as { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] }[]> };
    for (const [event, groups] of Object.entries(qwen.hooks)) {
      assert.ok(qwenEvents.has(event), event);
      for (const group of groups) {
        for (const tool of (group.matcher ?? '').split('|').filter(Boolean)) assert.not.ok(CLAUDE_TOOLS.includes(tool), `qwen matcher ${tool}`);
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
    for (const [event, groups] of Object.entries(codebuddy.hooks)) {
      assert.ok(['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SubagentStop', 'PreCompact', 'Notification'].includes(event), event);
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
    assert.ok(['on_session_start', 'on_session_end', 'pre_llm_call', 'pre_tool_call', 'post_tool_call', 'post_llm_call', 'subagent_start', 'subagent_stop'].includes(event), event);
    for (const entry of entries) {
      assert.match(entry.command, /^sh -c 'node "\$\{HERMES_HOME:-\$HOME\/\.hermes\}\/agent-hooks\/gsd-[a-z-]+\.cjs" --runtime hermes'$/);
      assert.ok(entry.timeout === undefined || entry.timeout <= 300, entry.command);
      for (const tool of (entry.matcher ?? '').split('|').filter(Boolean)) assert.not.ok(CLAUDE_TOOLS.includes(tool), `hermes matcher ${tool}`);
      if (entry.fail_closed) assert.is(event, 'pre_tool_call');
    }
  }
  const denying = registry.filter((hook) => hook.event === 'PreToolUse' && hook.crashPolicy === 'deny');
  for (const hook of denying) {
    assert.ok(hermes.hooks['pre_tool_call']!.some((entry) => entry.fail_closed && entry.command.includes(`/${hook.id}.cjs`)), hook.id);
  }

  for (const [key, folder] of [['cline/global', '.cline/hooks/'], ['cline/local', '.clinerules/hooks/']] as const) {
    const tree = bundles.get(key)!;
    const files = [...tree.keys()].filter(hookFiles[key]!);
    for (const file of files) {
      assert.ok(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'TaskStart', 'TaskComplete'].includes(file.slice(folder.length)), file);
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
