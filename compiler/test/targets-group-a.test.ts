// The opencode, kilo, kimi (Kimi Code) and copilot targets: where each surface
// lands in both scopes, the frontmatter each runtime reads, slash syntax and
// $ARGUMENTS or {{GSD_ARGS}}, tool maps, hook registration in each runtime's
// format, that no bundle names a root but its own, and the limits they
// document (with failing fixtures, and agent prompts that spill instead of
// breaking a cap).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { allBundles, compile, emitBundles, REPO_ROOT, type Compiled } from '../pipeline.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { isBundleMetadata } from '../emit/bundle-manifest.ts';
import type { ScopeId, TargetDefinition } from '../targets/target-types.ts';
import { suite, assert } from './harness.ts';
import { diagnoseTree, FIXTURES } from './fixture-support.ts';

const GROUP = ['opencode', 'kilo', 'kimi', 'copilot'] as const;
type Id = (typeof GROUP)[number];
const SCOPES: readonly ScopeId[] = ['global', 'local'];
const FIXTURE_DIR = path.join(FIXTURES, 'targets-group-a');

/** Each runtime's root per scope: home-relative for global, project-relative for local. */
const ROOTS: Record<Id, Record<ScopeId, string>> = {
  opencode: { global: '.config/opencode', local: '.opencode' },
  kilo: { global: '.config/kilo', local: '.kilo' },
  kimi: { global: '.kimi-code', local: '.kimi-code' },
  copilot: { global: '.copilot', local: '.github' },
};
const ENV: Record<Id, string[]> = {
  opencode: ['OPENCODE_CONFIG_DIR', 'XDG_CONFIG_HOME'],
  kilo: ['KILO_CONFIG_DIR', 'XDG_CONFIG_HOME'],
  kimi: ['KIMI_CODE_HOME'],
  copilot: ['COPILOT_HOME'],
};
/** The one invocation surface of each runtime, per command stem. */
const COMMAND_PATH: Record<Id, (root: string, stem: string) => string> = {
  opencode: (root, stem) => `${root}/commands/gsd-${stem}.md`,
  kilo: (root, stem) => `${root}/commands/gsd-${stem}.md`,
  kimi: (root, stem) => `${root}/skills/gsd-${stem}/SKILL.md`,
  copilot: (root, stem) => `${root}/skills/gsd-${stem}/SKILL.md`,
};
const SLASH: Record<Id, string> = { opencode: '/gsd-', kilo: '/gsd-', kimi: '/skill:gsd-', copilot: '/gsd-' };
/** Hook events each runtime accepts (Kimi Code 2.1.0's config schema, HOOK_EVENT_TYPES; Copilot CLI hooks reference, both spellings). */
const KIMI_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionResult', 'UserPromptSubmit', 'UserPromptQueued', 'TurnStarted', 'Stop', 'StopFailure', 'Interrupt', 'SessionStart', 'SessionEnd', 'SessionHeartbeat', 'SubagentStart', 'SubagentStop', 'TaskStarted', 'PreCompact', 'PostCompact', 'Notification']);
/** Kimi Code 2.1.0's built-in tool names (what a profile's tools list and a hook matcher name). */
const KIMI_TOOLS = new Set(['Agent', 'AgentSwarm', 'AskUserQuestion', 'Bash', 'Edit', 'FetchURL', 'Glob', 'Grep', 'Read', 'ReadMediaFile', 'Skill', 'TodoList', 'WebSearch', 'Write']);
/** Names Kimi Code fills in an agent prompt (renderPrompt over systemPromptVars and base_prompt). */
const KIMI_PROMPT_VARIABLES = /\$\{(?:role_additional|product_name|reply_style_guide|notify_user_guidance|os|windows_notes|shell|cwd|cwd_listing|agents_md|additional_dirs_info|additional_dirs_section|skills|skills_section|plugin_sections|base_prompt)\}/;
const COPILOT_EVENTS = new Set(['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SubagentStop', 'PreCompact', 'subagentStart', 'permissionRequest', 'notification', 'errorOccurred']);
const COPILOT_AGENT_TOOLS = new Set(['read', 'edit', 'execute', 'search', 'agent', 'web', 'todo']);
const OPENCODE_PERMISSIONS = ['read', 'edit', 'glob', 'grep', 'bash', 'webfetch', 'websearch', 'todowrite', 'question', 'skill', 'task'];

let compiled: Compiled;
let bundles: Map<string, VirtualTree>;

const group = suite('targets: opencode, kilo, kimi, copilot');

group.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  bundles = emitBundles(compiled, GROUP.flatMap((target) => SCOPES.map((scope) => ({ target, scope })))).bundles;
});

const definition = (id: Id): TargetDefinition => compiled.targets.find((target) => target.definition.id === id)!.definition;
const tree = (id: Id, scope: ScopeId) => bundles.get(`${id}/${scope}`)!;
const text = (id: Id, scope: ScopeId, file: string) => {
  const entry = tree(id, scope).get(file);
  assert.ok(entry, `missing ${id}/${scope}/${file}`);
  return String(entry!.contents);
};
const stems = () => compiled.ir.nodes.filter((node) => node.kind === 'command' && node.variant === undefined).map((node) => node.name);
const agents = () => compiled.ir.nodes.filter((node) => node.kind === 'agent' && node.variant === undefined);
const frontmatter = (contents: string): Record<string, unknown> => {
  const match = /^---\n([\s\S]*?\n)---\n/.exec(contents);
  assert.ok(match, `no frontmatter in ${contents.slice(0, 80)}`);
  return parseYaml(match![1]!) as Record<string, unknown>;
};
/** Text files rendered from the corpus (built code, kept as a digest in goldens, is runtime-neutral). */
const corpusText = (id: Id, scope: ScopeId) => [...tree(id, scope)].filter(([, entry]) => entry.source !== undefined).map(([file, entry]) => [file, String(entry.contents)] as const);

group('should declare each root, its env overrides and both scopes', () => {
  for (const id of GROUP) {
    const target = definition(id);
    for (const scope of SCOPES) {
      assert.is(target.scopes[scope]?.root, ROOTS[id][scope], `${id}/${scope}`);
      assert.is(target.scopes[scope]?.base, scope === 'global' ? 'home' : 'project');
    }
    assert.equal(target.scopes.global!.env, ENV[id]);
    assert.is(target.scopes.local!.env, undefined, `${id}: env moves the home root only`);
    assert.is(target.unsupportedScopes, undefined, `${id} has both scopes`);
  }
});

group('should put every file under the runtime\'s own root', () => {
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      for (const file of tree(id, scope).keys()) assert.ok(file.startsWith(`${ROOTS[id][scope]}/`) || isBundleMetadata(file), `${id}/${scope}/${file}`);
    }
  }
});

group('should emit one invocation surface per command, never a command and a skill of one name', () => {
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      const root = ROOTS[id][scope];
      for (const stem of stems()) assert.ok(tree(id, scope).has(COMMAND_PATH[id](root, stem)), `${id}/${scope} ${stem}`);
      const invocable = [...tree(id, scope).keys()].filter((file) => /\/(?:commands|command|skills|prompts)\//.test(file));
      assert.is(invocable.length, stems().length, `${id}/${scope}: ${invocable.join(', ')}`);
    }
  }
});

group('should write agents where each runtime discovers them', () => {
  for (const scope of SCOPES) {
    for (const agent of agents()) {
      assert.ok(tree('opencode', scope).has(`${ROOTS.opencode[scope]}/agents/${agent.name}.md`));
      assert.ok(tree('kilo', scope).has(`${ROOTS.kilo[scope]}/agents/${agent.name}.md`));
      assert.ok(tree('copilot', scope).has(`${ROOTS.copilot[scope]}/agents/${agent.name}.agent.md`));
      assert.ok(tree('kimi', scope).has(`.kimi-code/agents/${agent.name}.md`));
    }
    assert.is([...tree('kimi', scope).keys()].filter((file) => file.startsWith('.kimi-code/agents/')).length, agents().length, 'one profile per agent, nothing else Kimi Code would scan');
  }
});

group('should write OpenCode and Kilo commands with a description only, and agents as permission-scoped subagents', () => {
  for (const id of ['opencode', 'kilo'] as const) {
    for (const scope of SCOPES) {
      for (const stem of stems()) {
        const command = text(id, scope, COMMAND_PATH[id](ROOTS[id][scope], stem));
        assert.equal(Object.keys(frontmatter(command)), ['description']);
        assert.match(command, new RegExp(`^---\\n[\\s\\S]*?\\n---\\n<${id}_command_notes>\\n`));
      }
      for (const agent of agents()) {
        const data = frontmatter(text(id, scope, `${ROOTS[id][scope]}/agents/${agent.name}.md`));
        assert.is(data['mode'], 'subagent');
        assert.not.ok('tools' in data, `${id}: no tools key (OpenCode rejects a string there)`);
        assert.not.ok('name' in data || 'color' in data, `${id}: the file name is the id; colour names fail validation`);
        const permission = (data['permission'] ?? {}) as Record<string, string>;
        for (const [key, value] of Object.entries(permission)) {
          assert.ok(OPENCODE_PERMISSIONS.includes(key), key);
          assert.is(value, 'deny', `${id} ${agent.name}.${key}: granted tools keep the user's own policy`);
        }
        const tools = String(agent.frontmatter!.data!['tools']);
        assert.is('edit' in permission, !/\b(?:Write|Edit)\b/.test(tools), `${agent.name} edit`);
        assert.is('bash' in permission, !/\bBash\b/.test(tools), `${agent.name} bash`);
        assert.is(permission['task'], 'deny', 'subagents do not spawn subagents');
      }
    }
  }
  assert.equal(frontmatter(text('kilo', 'global', '.config/kilo/agents/gsd-plan-checker.md'))['permission'], {
    edit: 'deny', webfetch: 'deny', websearch: 'deny', todowrite: 'deny', question: 'deny', skill: 'deny', task: 'deny',
  });
});

group('should merge a permission for the global gsd-core folder into opencode.json and kilo.jsonc', () => {
  assert.equal(JSON.parse(text('opencode', 'global', '.config/opencode/opencode.json')), { permission: { external_directory: { '~/.config/opencode/gsd-core/*': 'allow' } } });
  assert.equal(JSON.parse(text('kilo', 'global', '.config/kilo/kilo.jsonc')), { permission: { external_directory: { '~/.config/kilo/gsd-core/*': 'allow' } } });
  assert.not.ok(tree('opencode', 'local').has('.opencode/opencode.json'), 'a local gsd-core is inside the project already');
  assert.not.ok(tree('kilo', 'local').has('.kilo/kilo.jsonc'));
});

group('should write Kimi and Copilot skills in the Agent Skills shape', () => {
  for (const scope of SCOPES) {
    for (const stem of stems()) {
      const source = compiled.ir.nodes.find((node) => node.kind === 'command' && node.name === stem)!.frontmatter!.data!;
      const kimi = frontmatter(text('kimi', scope, COMMAND_PATH.kimi('.kimi-code', stem)));
      assert.equal(kimi, { name: `gsd-${stem}`, description: source['description'] });
      const copilot = frontmatter(text('copilot', scope, COMMAND_PATH.copilot(ROOTS.copilot[scope], stem)));
      assert.equal(Object.keys(copilot), ['name', 'description', 'allowed-tools']);
      assert.is(copilot['name'], `gsd-${stem}`);
      // Claude's names, which Copilot accepts as aliases; Agent is Copilot's Task alias, AskUserQuestion and Skill have none.
      const expected = (source['allowed-tools'] as string[]).map((tool) => (tool === 'Agent' ? 'Task' : tool)).filter((tool) => tool !== 'AskUserQuestion' && tool !== 'Skill');
      assert.is(copilot['allowed-tools'], expected.join(', '), stem);
    }
  }
});

group('should render command mentions and $ARGUMENTS in each runtime\'s syntax', () => {
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      const files = corpusText(id, scope);
      const all = files.map(([, contents]) => contents).join('\n');
      assert.ok(all.includes(`${SLASH[id]}execute-phase`), `${id}/${scope}`);
      if (id === 'kimi') {
        // A path such as ${TMPDIR:-/tmp}/gsd-pr-1.md is not a mention.
        for (const [file, contents] of files) assert.not.match(contents, /(?<![\w.\/:}])\/gsd-(?!core\/)[a-z]/, `${id}/${scope}/${file} keeps a /gsd- mention`);
      }
      const native = id === 'opencode' || id === 'kilo' || id === 'kimi';
      for (const [file, contents] of files) {
        // OpenCode, Kilo and Kimi Code expand $ARGUMENTS themselves; Copilot skills get {{GSD_ARGS}}, defined by their preamble.
        if (native) assert.not.ok(contents.includes('{{GSD_ARGS}}'), `${id}/${scope}/${file}`);
        else assert.not.match(contents, /\$ARGUMENTS/, `${id}/${scope}/${file}`);
      }
      const command = text(id, scope, COMMAND_PATH[id](ROOTS[id][scope], 'plan-phase'));
      if (native) {
        assert.match(command, /Phase and flags: \$ARGUMENTS/);
      } else {
        // The preamble defines {{GSD_ARGS}} before the body first uses it.
        const definitionAt = command.indexOf('`{{GSD_ARGS}}` below stands for');
        assert.ok(definitionAt > 0 && definitionAt < command.indexOf('Phase and flags: {{GSD_ARGS}}'), id);
      }
    }
  }
});

group('should address the bundle root home-relative globally and project-relative locally', () => {
  assert.match(text('opencode', 'global', '.config/opencode/commands/gsd-plan-phase.md'), /^@~\/\.config\/opencode\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text('opencode', 'local', '.opencode/commands/gsd-plan-phase.md'), /^@\.opencode\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text('kilo', 'global', '.config/kilo/gsd-core/workflows/plan-phase.md'), /"\$HOME\/\.config\/kilo\/gsd-core\/bin\/gsd-tools\.cjs"/);
  assert.match(text('kimi', 'global', '.kimi-code/skills/gsd-plan-phase/SKILL.md'), /^@~\/\.kimi-code\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text('kimi', 'local', '.kimi-code/skills/gsd-plan-phase/SKILL.md'), /^@\.kimi-code\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text('copilot', 'global', '.copilot/skills/gsd-plan-phase/SKILL.md'), /^@~\/\.copilot\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text('copilot', 'local', '.github/skills/gsd-plan-phase/SKILL.md'), /^@\.github\/gsd-core\/workflows\/plan-phase\.md$/m);
  for (const id of GROUP) {
    for (const [file, contents] of corpusText(id, 'local')) assert.not.match(contents, /(?:~|\$HOME)\/\.(?:config\/opencode|config\/kilo|kimi-code|copilot)\b/, `${id}/local/${file}`);
  }
});

group('should name no root but the runtime\'s own', () => {
  const { diagnostics } = emitBundles(compiled, GROUP.flatMap((target) => SCOPES.map((scope) => ({ target, scope }))));
  assert.equal(diagnostics, []);
  const foreign: Record<Id, RegExp> = {
    opencode: /\.claude\b|\.kilo\/|\.kimi-code\/|\.copilot\/|\.github\/|\.codex\//,
    kilo: /\.claude\b|\.opencode\/|\.kimi-code\/|\.copilot\/|\.github\/|\.codex\//,
    kimi: /\.claude\b|\.opencode\/|\.kilo\/|\.copilot\/|\.github\/|\.codex\//,
    copilot: /\.claude\b|\.opencode\/|\.kilo\/|\.kimi-code\/|\.codex\//,
  };
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      for (const [file, contents] of corpusText(id, scope)) assert.not.match(contents, foreign[id], `${id}/${scope}/${file}`);
    }
  }
});

group('should write Kimi Code agents as Markdown profiles naming Kimi Code\'s tools', () => {
  for (const scope of SCOPES) {
    for (const agent of agents()) {
      const file = text('kimi', scope, `.kimi-code/agents/${agent.name}.md`);
      const data = frontmatter(file);
      assert.equal(Object.keys(data), ['name', 'description', 'tools']);
      assert.match(String(data['name']), /^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Kimi Code skips a profile whose name is not kebab-case');
      assert.is(data['name'], agent.name);
      assert.match(String(data['description']), /\/skill:gsd-/);
      const tools = data['tools'] as string[];
      assert.ok(tools.length > 0, 'a profile without tools gets every tool, Agent included');
      for (const tool of tools) assert.ok(KIMI_TOOLS.has(tool), tool);
      assert.not.ok(tools.includes('Agent') || tools.includes('AskUserQuestion'), 'GSD agents neither spawn agents nor ask the user');
      const declared = String(agent.frontmatter!.data!['tools']);
      assert.is(tools.includes('Bash'), /\bBash\b/.test(declared), agent.name);
      assert.is(tools.includes('FetchURL'), /\bWebFetch\b/.test(declared), agent.name);
      // The body is the whole system prompt, rendered by Kimi Code as a template: none of its variable names may appear.
      assert.not.match(file.slice(file.indexOf('\n---\n') + 5), KIMI_PROMPT_VARIABLES, agent.name);
    }
  }
  assert.equal(frontmatter(text('kimi', 'global', '.kimi-code/agents/gsd-plan-checker.md'))['tools'], ['Read', 'Bash', 'Glob', 'Grep']);
  assert.equal(frontmatter(text('kimi', 'local', '.kimi-code/agents/gsd-planner.md'))['tools'], ['Read', 'Write', 'Bash', 'Glob', 'Grep', 'FetchURL']);
});

group('should write Copilot agents as .agent.md with Copilot tool aliases', () => {
  for (const scope of SCOPES) {
    for (const agent of agents()) {
      const data = frontmatter(text('copilot', scope, `${ROOTS.copilot[scope]}/agents/${agent.name}.agent.md`));
      assert.equal(Object.keys(data), ['name', 'description', 'tools']);
      assert.is(data['name'], agent.name);
      for (const tool of data['tools'] as string[]) assert.ok(COPILOT_AGENT_TOOLS.has(tool), tool);
    }
  }
  assert.equal(frontmatter(text('copilot', 'local', '.github/agents/gsd-phase-researcher.agent.md'))['tools'], ['read', 'edit', 'execute', 'search', 'web']);
  assert.match(text('copilot', 'local', '.github/agents/gsd-phase-researcher.agent.md'), /^tools: \[ 'read', 'edit', 'execute', 'search', 'web' \]$/m);
});

group('should write the Copilot instructions block and Kimi and Copilot preambles without another runtime\'s vocabulary', () => {
  for (const scope of SCOPES) {
    const instructions = text('copilot', scope, `${ROOTS.copilot[scope]}/copilot-instructions.md`);
    assert.match(instructions, /^## GSD\n/);
    assert.match(instructions, /`\/gsd-help`/);
  }
  assert.not.ok([...tree('copilot', 'local').keys()].some((file) => file.endsWith('AGENTS.md')), 'AGENTS.md is shared with other runtimes');
  assert.match(text('kimi', 'global', '.kimi-code/skills/gsd-help/SKILL.md'), /profiles in `~\/\.kimi-code\/agents\/`/);
  assert.match(text('kimi', 'local', '.kimi-code/skills/gsd-help/SKILL.md'), /profiles in this project's `\.kimi-code\/agents\/`/);
  for (const scope of SCOPES) {
    const skill = text('kimi', scope, '.kimi-code/skills/gsd-help/SKILL.md');
    const notes = skill.slice(skill.indexOf('<kimi_skill_notes>'), skill.indexOf('</kimi_skill_notes>'));
    assert.match(notes, /WebFetch is FetchURL and TodoWrite is TodoList/);
    // The legacy Kimi CLI's names, and a placeholder Kimi Code would fill inside the notes themselves.
    assert.not.match(notes, /ReadFile|WriteFile|StrReplaceFile|Shell|SetTodoList|SearchWeb|--agent-file|\$ARGUMENTS|\{\{GSD_ARGS\}\}/);
  }
});

group('should register hooks in Kimi\'s config.toml and Copilot\'s hook file, and nowhere else', () => {
  const hasRegistry = existsSync(path.join(REPO_ROOT, 'source/hooks/hooks.json'));
  for (const id of ['opencode', 'kilo'] as const) {
    for (const scope of SCOPES) assert.not.ok([...tree(id, scope).keys()].some((file) => file.includes('/hooks/')), `${id}: no hook registry, no scripts`);
  }
  assert.not.ok([...tree('kimi', 'local').keys()].some((file) => file.includes('/hooks/') || file.endsWith('.toml')), 'Kimi Code reads hooks from the user config only');
  if (!hasRegistry) return;
  const registered = compiled.hooks.filter((hook) => !hook.optIn && hook.event !== 'StatusLine' && hook.event !== 'PermissionRequest');
  const kimi = parseToml(text('kimi', 'global', '.kimi-code/config.toml')) as { hooks: Record<string, unknown>[] };
  // Kimi Code registers an entry for every registry hook whose event its target maps (PostToolUse is mapped to nothing there).
  const kimiEvents = compiled.targets.find((target) => target.definition.id === 'kimi')!.definition.scopes.global!.hooks!.events!;
  assert.is(kimiEvents['PostToolUse'], null, 'post-tool hooks are fire-and-forget in Kimi Code, so none is registered');
  assert.is(kimi.hooks.length, registered.filter((hook) => kimiEvents[hook.event]).length);
  assert.ok(kimi.hooks.length > 0);
  for (const hook of kimi.hooks) {
    for (const key of Object.keys(hook)) assert.ok(['event', 'matcher', 'command', 'timeout'].includes(key), key);
    assert.ok(KIMI_EVENTS.has(String(hook['event'])), String(hook['event']));
    // Kimi Code tests a matcher as an unanchored regular expression: each name is anchored, or Read would also match ReadMediaFile.
    if (hook['matcher'] !== undefined) for (const tool of String(hook['matcher']).split('|')) assert.ok(/^\^\w+\$$/.test(tool) && KIMI_TOOLS.has(tool.slice(1, -1)), tool);
    assert.match(String(hook['command']), /^node "\$\{KIMI_CODE_HOME:-\$HOME\/\.kimi-code\}\/hooks\/gsd-[a-z-]+\.(?:cjs|sh)" --runtime kimi$/);
    assert.ok(Number(hook['timeout']) >= 1 && Number(hook['timeout']) <= 600);
    const script = /hooks\/(.+)" --runtime kimi$/.exec(String(hook['command']))![1]!;
    assert.ok(tree('kimi', 'global').has(`.kimi-code/hooks/${script}`), script);
  }
  for (const scope of SCOPES) {
    const root = ROOTS.copilot[scope];
    const copilot = JSON.parse(text('copilot', scope, `${root}/hooks/gsd.json`)) as { version: number; hooks: Record<string, Record<string, unknown>[]> };
    assert.is(copilot.version, 1);
    assert.is(Object.values(copilot.hooks).flat().length, registered.length);
    for (const [event, list] of Object.entries(copilot.hooks)) {
      assert.ok(COPILOT_EVENTS.has(event), event);
      for (const entry of list) {
        assert.equal(Object.keys(entry), ['type', 'bash', 'timeoutSec']);
        assert.is(entry['type'], 'command');
        const prefix = scope === 'global' ? 'node "${COPILOT_HOME:-$HOME/.copilot}/hooks/' : 'node ".github/hooks/';
        assert.ok(String(entry['bash']).startsWith(prefix), String(entry['bash']));
        // Copilot has no matcher: the script learns the runtime from its command line and keeps to its own tools.
        assert.ok(String(entry['bash']).endsWith('" --runtime copilot'), String(entry['bash']));
      }
    }
    // PascalCase event names make Copilot send Claude-style snake_case payloads.
    assert.ok('PreToolUse' in copilot.hooks && !('preToolUse' in copilot.hooks));
  }
});

group('should declare the limits each runtime documents', () => {
  const limits = (id: Id, scope: ScopeId) =>
    (definition(id).scopes[scope]!.limits ?? []).map((limit) => (limit.forbidden ? `no:${limit.forbidden}` : `${limit.frontmatterKey ?? 'bytes'}:${limit.maxChars ?? limit.maxBytes ?? limit.pattern}`));
  for (const scope of SCOPES) {
    assert.equal(limits('opencode', scope), []);
    assert.equal(limits('kilo', scope), []);
    // Kimi Code caps no skill name or description; it skips a profile with a non-kebab name and rewrites template text.
    assert.equal(limits('kimi', scope), ['name:^[a-z0-9]+(?:-[a-z0-9]+)*$', `no:${KIMI_PROMPT_VARIABLES.source}`, 'no:\\$\\d+(?!\\w)']);
    assert.equal(limits('copilot', scope), ['description:1024', 'name:64', 'bytes:30000']);
  }
  const spill = definition('copilot').scopes.global!.agents[0]!.spill!;
  assert.is(spill.maxBytes, 30000, 'agents spill before the 30,000-character prompt cap');
});

const fixtures = suite('targets: opencode, kilo, kimi, copilot (fixtures)');

/** The fixture's diagnostics for this group's runtimes, checked against its expected.txt (UPDATE_FIXTURES=1 rewrites it). */
async function groupDiagnostics(name: string): Promise<string[]> {
  const dir = path.join(FIXTURE_DIR, name);
  const ours = (await diagnoseTree(dir)).filter((line) => /^(?:opencode|kilo|kimi|copilot)\//.test(line));
  const actual = `${ours.join('\n')}\n`;
  const expectedFile = path.join(dir, 'expected.txt');
  if (process.env['UPDATE_FIXTURES'] === '1') writeFileSync(expectedFile, actual);
  assert.fixture(actual, readFileSync(expectedFile, 'utf8'));
  return ours;
}

fixtures('should report a skill name past the Copilot limit with its position', async () => {
  const ours = await groupDiagnostics('skill-name-limit');
  assert.is(ours.length, 2, 'copilot, both scopes; OpenCode, Kilo and Kimi Code set no name cap');
  for (const line of ours) assert.match(line, /^copilot\/.*: error limit-exceeded expected "name" of at most 64 characters/);
});

fixtures('should report text Kimi Code would rewrite in an agent prompt or a skill, with its position', async () => {
  const ours = await groupDiagnostics('kimi-template-text');
  assert.is(ours.length, 4, 'the agent\'s ${cwd} and the skill\'s $1, both scopes');
  for (const line of ours) assert.match(line, /^kimi\/(?:global|local)\/\.kimi-code\/.*: error limit-exceeded expected text the runtime keeps as written \(Kimi Code /);
  assert.ok(ours.some((line) => /agents\/gsd-shell-user\.md:\d+:\d+: .*found "\$\{cwd\}"$/.test(line)));
  assert.ok(ours.some((line) => /skills\/gsd-positional\/SKILL\.md:\d+:\d+: .*found "\$1"$/.test(line)));
});

fixtures('should move an oversized Copilot agent prompt to gsd-core/agents and keep the agent file under the cap', async () => {
  const result = await compile({ sourceDir: path.join(FIXTURE_DIR, 'agent-spill/source') });
  assert.equal(result.diagnostics.filter((d) => (d.severity ?? 'error') === 'error'), []);
  const emitted = emitBundles(result, allBundles(result.targets).filter((bundle) => bundle.target === 'copilot'));
  assert.equal(emitted.diagnostics, []);
  for (const scope of SCOPES) {
    const root = ROOTS.copilot[scope];
    const built = emitted.bundles.get(`copilot/${scope}`)!;
    const agent = String(built.get(`${root}/agents/gsd-huge.agent.md`)!.contents);
    const prompt = String(built.get(`${root}/gsd-core/agents/gsd-huge.md`)!.contents);
    assert.ok(Buffer.byteLength(agent) < 1000);
    assert.ok(Buffer.byteLength(prompt) > 30000);
    assert.equal(frontmatter(agent), { name: 'gsd-huge', description: 'A deliberately oversized agent. Spawned by /gsd-demo.', tools: ['read'] });
    assert.ok(agent.includes(`\`${scope === 'global' ? '~/' : ''}${root}/gsd-core/agents/gsd-huge.md\``), agent);
    assert.not.match(prompt, /^---/);
    // The small agent stays whole.
    assert.not.ok(built.has(`${root}/gsd-core/agents/gsd-tiny.md`));
    assert.match(String(built.get(`${root}/agents/gsd-tiny.agent.md`)!.contents), /Do the small thing\./);
  }
});

const upstream = suite('targets: opencode, kilo, kimi, copilot (upstream corpus)');
const UPSTREAM = path.join(REPO_ROOT, 'node_modules/@opengsd/gsd-core');

upstream('should keep the upstream corpus within each runtime\'s formats and limits', async () => {
  assert.ok(existsSync(UPSTREAM), 'the @opengsd/gsd-core dev dependency is not installed (npm ci)');
  const result = await compile({ sourceDir: UPSTREAM });
  assert.equal(result.diagnostics.filter((d) => (d.severity ?? 'error') === 'error'), []);
  const emitted = emitBundles(result, GROUP.flatMap((target) => SCOPES.map((scope) => ({ target, scope }))));
  assert.equal(emitted.diagnostics.filter((d) => (d.severity ?? 'error') === 'error').slice(0, 5), []);
  const built = (id: Id, scope: ScopeId) => emitted.bundles.get(`${id}/${scope}`)!;
  // Settings-style registries carry events Kimi Code lacks (FileChanged…): they are dropped, never passed through.
  const kimi = parseToml(String(built('kimi', 'global').get('.kimi-code/config.toml')!.contents)) as { hooks: { event: string; matcher?: string }[] };
  assert.ok(kimi.hooks.length > 0);
  for (const hook of kimi.hooks) {
    assert.ok(KIMI_EVENTS.has(hook.event), hook.event);
    for (const tool of hook.matcher?.split('|') ?? []) assert.ok(KIMI_TOOLS.has(tool.replace(/^\^|\$$/g, '')), tool);
  }
  for (const scope of SCOPES) {
    // Upstream agents carry shell ${…}: none is a name Kimi Code fills (the build's limits would have failed), and each profile names its tools.
    const profiles = [...built('kimi', scope)].filter(([file]) => /^\.kimi-code\/agents\/[^/]+\.md$/.test(file));
    assert.ok(profiles.length > 30);
    for (const [file, entry] of profiles) {
      const data = frontmatter(String(entry.contents));
      assert.match(String(data['name']), /^[a-z0-9]+(?:-[a-z0-9]+)*$/, file);
      assert.ok(String(data['description']).length > 0, file);
      for (const tool of (data['tools'] as string[] | undefined) ?? []) assert.ok(KIMI_TOOLS.has(tool) || tool.startsWith('mcp__'), `${file}: ${tool}`);
    }
    const root = ROOTS.copilot[scope];
    const copilot = built('copilot', scope);
    const agentFiles = [...copilot.keys()].filter((file) => file.startsWith(`${root}/agents/`));
    for (const file of agentFiles) assert.ok(Buffer.byteLength(String(copilot.get(file)!.contents)) <= 30000, file);
    assert.ok([...copilot.keys()].some((file) => file.startsWith(`${root}/gsd-core/agents/`)), 'upstream has agents past the cap');
    const events = Object.keys((JSON.parse(String(copilot.get(`${root}/hooks/gsd.json`)!.contents)) as { hooks: object }).hooks);
    for (const event of events) assert.ok(COPILOT_EVENTS.has(event), event);
  }
});

group.run();
fixtures.run();
upstream.run();
