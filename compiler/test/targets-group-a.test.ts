// The opencode, kilo, kimi (Kimi Code) and copilot targets: what their data
// cannot say by itself. One invocation surface per command, the frontmatter
// values each runtime needs (permission maps, tool lists, Copilot's aliases),
// slash syntax and $ARGUMENTS or {{GSD_ARGS}}, home- or project-relative
// paths, the shape of each hook file, and limits with failing fixtures and
// agent prompts that spill instead of breaking a cap. Roots, paths, events,
// tool names, keys and limits are the target's data, checked against its
// facts.json by target-folders.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { allBundles, compile, emitBundles, REPO_ROOT, type Compiled } from '../pipeline.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import type { ScopeId, TargetDefinition } from '../targets/target-types.ts';
import { suite, assert } from './harness.ts';
import { diagnoseTree, FIXTURES } from './fixture-support.ts';

const GROUP = ['opencode', 'kilo', 'kimi', 'copilot'] as const;
type Id = (typeof GROUP)[number];
const SCOPES: readonly ScopeId[] = ['global', 'local'];
const FIXTURE_DIR = path.join(FIXTURES, 'targets-group-a');

let compiled: Compiled;
let bundles: Map<string, VirtualTree>;

const group = suite('targets: opencode, kilo, kimi, copilot');

group.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  bundles = emitBundles(compiled, GROUP.flatMap((target) => SCOPES.map((scope) => ({ target, scope })))).bundles;
});

const target = (id: Id) => compiled.targets.find((candidate) => candidate.definition.id === id)!;
const definition = (id: Id): TargetDefinition => target(id).definition;
const root = (id: Id, scope: ScopeId) => definition(id).scopes[scope]!.root;
/** Where the command `stem` lands: the runtime's one command surface, from its definition. */
const commandPath = (id: Id, scope: ScopeId, stem: string) => definition(id).scopes[scope]!.commands[0]!.path.replace('{root}', root(id, scope)).replace('{name}', stem);
const agentPath = (id: Id, scope: ScopeId, name: string) => definition(id).scopes[scope]!.agents[0]!.path.replace('{root}', root(id, scope)).replace('{name}', name);
const slash = (id: Id) => definition(id).slash!.replace('{name}', '');
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

group('should emit one invocation surface per command, never a command and a skill of one name', () => {
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      for (const stem of stems()) assert.ok(tree(id, scope).has(commandPath(id, scope, stem)), `${id}/${scope} ${stem}`);
      const invocable = [...tree(id, scope).keys()].filter((file) => /\/(?:commands|command|skills|prompts)\//.test(file));
      assert.is(invocable.length, stems().length, `${id}/${scope}: ${invocable.join(', ')}`);
    }
  }
});

group('should write OpenCode and Kilo commands after their notes, and agents as permission-scoped subagents', () => {
  for (const id of ['opencode', 'kilo'] as const) {
    for (const scope of SCOPES) {
      for (const stem of stems()) assert.match(text(id, scope, commandPath(id, scope, stem)), new RegExp(`^---\\n[\\s\\S]*?\\n---\\n<${id}_command_notes>\\n`));
      for (const agent of agents()) {
        const data = frontmatter(text(id, scope, agentPath(id, scope, agent.name)));
        assert.is(data['mode'], 'subagent');
        assert.not.ok('tools' in data, `${id}: no tools key (OpenCode rejects a string there)`);
        const permission = (data['permission'] ?? {}) as Record<string, string>;
        for (const [key, value] of Object.entries(permission)) assert.is(value, 'deny', `${id} ${agent.name}.${key}: granted tools keep the user's own policy`);
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
      const kimi = frontmatter(text('kimi', scope, commandPath('kimi', scope, stem)));
      assert.equal(kimi, { name: `gsd-${stem}`, description: source['description'] });
      const copilot = frontmatter(text('copilot', scope, commandPath('copilot', scope, stem)));
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
      assert.ok(all.includes(`${slash(id)}execute-phase`), `${id}/${scope}`);
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
      const command = text(id, scope, commandPath(id, scope, 'plan-phase'));
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

group('should write Kimi Code agents as Markdown profiles naming Kimi Code\'s tools', () => {
  for (const scope of SCOPES) {
    for (const agent of agents()) {
      const data = frontmatter(text('kimi', scope, agentPath('kimi', scope, agent.name)));
      assert.is(data['name'], agent.name);
      assert.match(String(data['description']), /\/skill:gsd-/);
      const tools = data['tools'] as string[];
      assert.ok(tools.length > 0, 'a profile without tools gets every tool, Agent included');
      assert.not.ok(tools.includes('Agent') || tools.includes('AskUserQuestion'), 'GSD agents neither spawn agents nor ask the user');
      const declared = String(agent.frontmatter!.data!['tools']);
      assert.is(tools.includes('Bash'), /\bBash\b/.test(declared), agent.name);
      assert.is(tools.includes('FetchURL'), /\bWebFetch\b/.test(declared), agent.name);
    }
  }
  assert.equal(frontmatter(text('kimi', 'global', '.kimi-code/agents/gsd-plan-checker.md'))['tools'], ['Read', 'Bash', 'Glob', 'Grep']);
  assert.equal(frontmatter(text('kimi', 'local', '.kimi-code/agents/gsd-planner.md'))['tools'], ['Read', 'Write', 'Bash', 'Glob', 'Grep', 'FetchURL']);
});

group('should write Copilot agents with Copilot tool aliases, as a flow list', () => {
  for (const scope of SCOPES) for (const agent of agents()) assert.is(frontmatter(text('copilot', scope, agentPath('copilot', scope, agent.name)))['name'], agent.name);
  assert.equal(frontmatter(text('copilot', 'local', '.github/agents/gsd-phase-researcher.agent.md'))['tools'], ['read', 'edit', 'execute', 'search', 'web']);
  assert.match(text('copilot', 'local', '.github/agents/gsd-phase-researcher.agent.md'), /^tools: \[ 'read', 'edit', 'execute', 'search', 'web' \]$/m);
});

group('should write the Copilot instructions block and Kimi and Copilot preambles without another runtime\'s vocabulary', () => {
  for (const scope of SCOPES) {
    const instructions = text('copilot', scope, `${root('copilot', scope)}/copilot-instructions.md`);
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
    // Kimi Code tests a matcher as an unanchored regular expression: each name is anchored, or Read would also match ReadMediaFile.
    if (hook['matcher'] !== undefined) for (const tool of String(hook['matcher']).split('|')) assert.match(tool, /^\^\w+\$$/);
    assert.match(String(hook['command']), /^node "\$\{KIMI_CODE_HOME:-\$HOME\/\.kimi-code\}\/hooks\/gsd-[a-z-]+\.(?:cjs|sh)" --runtime kimi$/);
    assert.ok(Number(hook['timeout']) >= 1 && Number(hook['timeout']) <= 600);
    const script = /hooks\/(.+)" --runtime kimi$/.exec(String(hook['command']))![1]!;
    assert.ok(tree('kimi', 'global').has(`.kimi-code/hooks/${script}`), script);
  }
  for (const scope of SCOPES) {
    const copilot = JSON.parse(text('copilot', scope, `${root('copilot', scope)}/hooks/gsd.json`)) as { version: number; hooks: Record<string, Record<string, unknown>[]> };
    assert.is(copilot.version, 1);
    assert.is(Object.values(copilot.hooks).flat().length, registered.length);
    for (const list of Object.values(copilot.hooks)) {
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

fixtures('should spill a Copilot agent before the documented prompt cap', () => {
  const cap = target('copilot').facts!.limits!.find((limit) => limit.what === 'custom agent prompt')!;
  for (const scope of SCOPES) assert.is(definition('copilot').scopes[scope]!.agents[0]!.spill!.maxBytes, cap.maxBytes, scope);
});

fixtures('should move an oversized Copilot agent prompt to gsd-core/agents and keep the agent file under the cap', async () => {
  const result = await compile({ sourceDir: path.join(FIXTURE_DIR, 'agent-spill/source') });
  assert.equal(result.diagnostics.filter((d) => (d.severity ?? 'error') === 'error'), []);
  const emitted = emitBundles(result, allBundles(result.targets).filter((bundle) => bundle.target === 'copilot'));
  assert.equal(emitted.diagnostics, []);
  for (const scope of SCOPES) {
    const root = result.targets.find((candidate) => candidate.definition.id === 'copilot')!.definition.scopes[scope]!.root;
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

upstream('should spill the upstream agents past Copilot\'s prompt cap', async () => {
  assert.ok(existsSync(UPSTREAM), 'the @opengsd/gsd-core dev dependency is not installed (npm ci)');
  const result = await compile({ sourceDir: UPSTREAM });
  assert.equal(result.diagnostics.filter((d) => (d.severity ?? 'error') === 'error'), []);
  const emitted = emitBundles(result, SCOPES.map((scope) => ({ target: 'copilot', scope })));
  assert.equal(emitted.diagnostics.filter((d) => (d.severity ?? 'error') === 'error').slice(0, 5), []);
  const copilotTarget = result.targets.find((candidate) => candidate.definition.id === 'copilot')!;
  const cap = copilotTarget.facts!.limits!.find((limit) => limit.what === 'custom agent prompt')!.maxBytes!;
  for (const scope of SCOPES) {
    const root = copilotTarget.definition.scopes[scope]!.root;
    const copilot = emitted.bundles.get(`copilot/${scope}`)!;
    for (const file of [...copilot.keys()].filter((name) => name.startsWith(`${root}/agents/`))) assert.ok(Buffer.byteLength(String(copilot.get(file)!.contents)) <= cap, file);
    assert.ok([...copilot.keys()].some((file) => file.startsWith(`${root}/gsd-core/agents/`)), 'upstream has agents past the cap');
  }
});

group.run();
fixtures.run();
upstream.run();
