// The opencode, kilo, kimi and copilot targets: where each surface lands in
// both scopes, the frontmatter each runtime reads, slash syntax and
// {{GSD_ARGS}}, tool maps, hook registration in each runtime's format, that
// no bundle names a root but its own, and the limits they document (with a
// failing fixture, and agent prompts that spill instead of breaking a cap).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { allBundles, compile, emitBundles, REPO_ROOT, type Compiled } from '../pipeline.ts';
import type { VirtualTree } from '../emit/emit-bundle.ts';
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
  kimi: { global: '.kimi', local: '.kimi' },
  copilot: { global: '.copilot', local: '.github' },
};
const ENV: Record<Id, string[]> = {
  opencode: ['OPENCODE_CONFIG_DIR', 'XDG_CONFIG_HOME'],
  kilo: ['KILO_CONFIG_DIR', 'XDG_CONFIG_HOME'],
  kimi: ['KIMI_SHARE_DIR'],
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
/** Hook events each runtime documents (Kimi CLI hooks; Copilot CLI hooks reference, both spellings). */
const KIMI_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit', 'Stop', 'StopFailure', 'SessionStart', 'SessionEnd', 'SubagentStart', 'SubagentStop', 'PreCompact', 'PostCompact', 'Notification']);
const KIMI_TOOLS = new Set(['Agent', 'AskUserQuestion', 'SetTodoList', 'Shell', 'ReadFile', 'ReadMediaFile', 'Glob', 'Grep', 'WriteFile', 'StrReplaceFile', 'SearchWeb', 'FetchURL']);
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
      assert.ok(tree('kimi', scope).has(`.kimi/agents/subagents/${agent.name}.yaml`));
      assert.ok(tree('kimi', scope).has(`.kimi/agents/subagents/${agent.name}.md`));
    }
    assert.ok(tree('kimi', scope).has('.kimi/agents/gsd.yaml'));
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
      const kimi = frontmatter(text('kimi', scope, COMMAND_PATH.kimi('.kimi', stem)));
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
        for (const [file, contents] of files) assert.not.match(contents, /(?<![\w.\/:])\/gsd-(?!core\/)[a-z]/, `${id}/${scope}/${file} keeps a /gsd- mention`);
      }
      const native = id === 'opencode' || id === 'kilo';
      for (const [file, contents] of files) {
        // OpenCode and Kilo expand $ARGUMENTS in commands; Kimi and Copilot skills get {{GSD_ARGS}}, defined by their preamble.
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
  assert.match(text('kimi', 'global', '.kimi/skills/gsd-plan-phase/SKILL.md'), /^@~\/\.kimi\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text('kimi', 'local', '.kimi/skills/gsd-plan-phase/SKILL.md'), /^@\.kimi\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text('copilot', 'global', '.copilot/skills/gsd-plan-phase/SKILL.md'), /^@~\/\.copilot\/gsd-core\/workflows\/plan-phase\.md$/m);
  assert.match(text('copilot', 'local', '.github/skills/gsd-plan-phase/SKILL.md'), /^@\.github\/gsd-core\/workflows\/plan-phase\.md$/m);
  for (const id of GROUP) {
    for (const [file, contents] of corpusText(id, 'local')) assert.not.match(contents, /(?:~|\$HOME)\/\.(?:config\/opencode|config\/kilo|kimi|copilot)\b/, `${id}/local/${file}`);
  }
});

group('should name no root but the runtime\'s own', () => {
  const { diagnostics } = emitBundles(compiled, GROUP.flatMap((target) => SCOPES.map((scope) => ({ target, scope }))));
  assert.equal(diagnostics, []);
  const foreign: Record<Id, RegExp> = {
    opencode: /\.claude\b|\.kilo\/|\.kimi\/|\.copilot\/|\.github\/|\.codex\//,
    kilo: /\.claude\b|\.opencode\/|\.kimi\/|\.copilot\/|\.github\/|\.codex\//,
    kimi: /\.claude\b|\.opencode\/|\.kilo\/|\.copilot\/|\.github\/|\.codex\//,
    copilot: /\.claude\b|\.opencode\/|\.kilo\/|\.kimi\/|\.codex\//,
  };
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      for (const [file, contents] of corpusText(id, scope)) assert.not.match(contents, foreign[id], `${id}/${scope}/${file}`);
    }
  }
});

group('should write Kimi agents as YAML specs with module-path tools and Jinja-safe prompts', () => {
  for (const scope of SCOPES) {
    const index = parseYaml(text('kimi', scope, '.kimi/agents/gsd.yaml')) as { version: number; agent: { extend: string; name: string; subagents: Record<string, { path: string; description: string }> } };
    assert.is(index.version, 1);
    assert.is(index.agent.extend, 'default', 'keeps Kimi\'s own system prompt and tools');
    assert.is(index.agent.name, 'gsd');
    assert.equal(Object.keys(index.agent.subagents).sort(), agents().map((agent) => agent.name).sort());
    for (const agent of agents()) {
      assert.is(index.agent.subagents[agent.name]!.path, `./subagents/${agent.name}.yaml`);
      assert.match(index.agent.subagents[agent.name]!.description, /\/skill:gsd-/);
      const spec = parseYaml(text('kimi', scope, `.kimi/agents/subagents/${agent.name}.yaml`)) as { version: number; agent: Record<string, unknown> };
      assert.equal(Object.keys(spec.agent), ['name', 'system_prompt_path', 'tools', 'allowed_tools']);
      assert.is(spec.agent['system_prompt_path'], `./${agent.name}.md`);
      const tools = spec.agent['tools'] as string[];
      assert.equal(spec.agent['allowed_tools'], tools);
      for (const tool of tools) assert.match(tool, /^kimi_cli\.tools\.[a-z_.]+:[A-Z][A-Za-z]+$/);
      assert.ok(!tools.some((tool) => tool.endsWith(':Agent') || tool.endsWith(':AskUserQuestion')), 'Kimi subagents neither spawn agents nor ask the user');
      const declared = String(agent.frontmatter!.data!['tools']);
      assert.is(tools.includes('kimi_cli.tools.shell:Shell'), /\bBash\b/.test(declared), agent.name);
      const prompt = text('kimi', scope, `.kimi/agents/subagents/${agent.name}.md`);
      assert.match(prompt, /^Working directory: \$\{KIMI_WORK_DIR\}\n\n\{% raw %\}\n[\s\S]*\{% endraw %\}\n$/);
      assert.not.match(prompt, /@GSD core\//, 'no broken includes');
    }
  }
  assert.equal((parseYaml(text('kimi', 'global', '.kimi/agents/subagents/gsd-plan-checker.yaml')) as { agent: { tools: string[] } }).agent.tools, [
    'kimi_cli.tools.file:ReadFile', 'kimi_cli.tools.shell:Shell', 'kimi_cli.tools.file:Glob', 'kimi_cli.tools.file:Grep',
  ]);
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
  assert.match(text('kimi', 'global', '.kimi/skills/gsd-help/SKILL.md'), /kimi --agent-file ~\/\.kimi\/agents\/gsd\.yaml/);
  assert.match(text('kimi', 'local', '.kimi/skills/gsd-help/SKILL.md'), /kimi --agent-file \.kimi\/agents\/gsd\.yaml/);
});

group('should register hooks in Kimi\'s config.toml and Copilot\'s hook file, and nowhere else', () => {
  const hasRegistry = existsSync(path.join(REPO_ROOT, 'source/hooks/hooks.json'));
  for (const id of ['opencode', 'kilo'] as const) {
    for (const scope of SCOPES) assert.not.ok([...tree(id, scope).keys()].some((file) => file.includes('/hooks/')), `${id}: no hook registry, no scripts`);
  }
  assert.not.ok([...tree('kimi', 'local').keys()].some((file) => file.includes('/hooks/') || file.endsWith('config.toml')), 'Kimi reads hooks from the user config only');
  if (!hasRegistry) return;
  const registered = compiled.hooks.filter((hook) => !hook.optIn && hook.event !== 'StatusLine');
  const kimi = parseToml(text('kimi', 'global', '.kimi/config.toml')) as { hooks: Record<string, unknown>[] };
  assert.is(kimi.hooks.length, registered.length);
  for (const hook of kimi.hooks) {
    for (const key of Object.keys(hook)) assert.ok(['event', 'matcher', 'command', 'timeout'].includes(key), key);
    assert.ok(KIMI_EVENTS.has(String(hook['event'])), String(hook['event']));
    if (hook['matcher'] !== undefined) for (const tool of String(hook['matcher']).split('|')) assert.ok(KIMI_TOOLS.has(tool), tool);
    assert.match(String(hook['command']), /^node "\$\{KIMI_SHARE_DIR:-\$HOME\/\.kimi\}\/hooks\/gsd-[a-z-]+\.(?:js|sh)" --runtime kimi$/);
    assert.ok(Number(hook['timeout']) >= 1 && Number(hook['timeout']) <= 600);
    const script = /hooks\/(.+)" --runtime kimi$/.exec(String(hook['command']))![1]!;
    assert.ok(tree('kimi', 'global').has(`.kimi/hooks/${script}`), script);
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

group('should declare the size limits each runtime documents', () => {
  const limits = (id: Id, scope: ScopeId) => (definition(id).scopes[scope]!.limits ?? []).map((limit) => `${limit.frontmatterKey ?? 'bytes'}:${limit.maxChars ?? limit.maxBytes}`);
  for (const scope of SCOPES) {
    assert.equal(limits('opencode', scope), []);
    assert.equal(limits('kilo', scope), []);
    assert.equal(limits('kimi', scope), ['description:1024', 'name:64']);
    assert.equal(limits('copilot', scope), ['description:1024', 'name:64', 'bytes:30000']);
  }
  const spill = definition('copilot').scopes.global!.agents[0]!.spill!;
  assert.is(spill.maxBytes, 30000, 'agents spill before the 30,000-character prompt cap');
});

const fixtures = suite('targets: opencode, kilo, kimi, copilot (fixtures)');

fixtures('should report a skill name past the Kimi and Copilot limit with its position', async () => {
  const dir = path.join(FIXTURE_DIR, 'skill-name-limit');
  const ours = (await diagnoseTree(dir)).filter((line) => /^(?:opencode|kilo|kimi|copilot)\//.test(line));
  const actual = `${ours.join('\n')}\n`;
  const expectedFile = path.join(dir, 'expected.txt');
  if (process.env['UPDATE_FIXTURES'] === '1') writeFileSync(expectedFile, actual);
  assert.fixture(actual, readFileSync(expectedFile, 'utf8'));
  assert.is(ours.length, 4, 'kimi and copilot, both scopes; OpenCode and Kilo document no name cap');
  for (const line of ours) assert.match(line, /: error limit-exceeded expected "name" of at most 64 characters/);
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
  // Settings-style registries carry events Kimi lacks (FileChanged…): they are dropped, never passed through.
  const kimi = parseToml(String(built('kimi', 'global').get('.kimi/config.toml')!.contents)) as { hooks: { event: string; matcher?: string }[] };
  assert.ok(kimi.hooks.length > 0);
  for (const hook of kimi.hooks) {
    assert.ok(KIMI_EVENTS.has(hook.event), hook.event);
    for (const tool of hook.matcher?.split('|') ?? []) assert.ok(KIMI_TOOLS.has(tool), tool);
  }
  for (const scope of SCOPES) {
    // Every Kimi prompt is Jinja-safe: upstream agents carry shell ${…} that Kimi's StrictUndefined would reject.
    const prompts = [...built('kimi', scope)].filter(([file]) => /^\.kimi\/agents\/subagents\/.+\.md$/.test(file));
    assert.ok(prompts.length > 30);
    for (const [file, entry] of prompts) {
      const contents = String(entry.contents);
      assert.match(contents, /^Working directory: \$\{KIMI_WORK_DIR\}\n\n\{% raw %\}\n/, file);
      assert.is(contents.match(/\{% endraw %\}/g)!.length, 1, file);
      assert.not.match(contents, /@GSD core\//, file);
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
