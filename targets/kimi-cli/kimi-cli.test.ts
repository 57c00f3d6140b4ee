// The kimi-cli target (Kimi CLI, the Python kimi-cli): where each surface lands
// in both scopes, the agent specs of the kimi-agent-spec format (one root spec
// listing every agent, a YAML + prompt pair per agent), skills with
// {{GSD_ARGS}} and /skill:gsd-<name>, hooks only in ~/.kimi/config.toml, and
// the raw block that keeps Kimi CLI's Jinja from reading agent prompts.
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { compile, emitBundles, REPO_ROOT, type Compiled } from '../../compiler/pipeline.ts';
import { checkLimits, limitCheck } from '../../compiler/check/check-emitted.ts';
import type { VirtualTree } from '../../compiler/emit/virtual-tree.ts';
import type { ScopeId } from '../../compiler/targets/target-types.ts';
import { suite, assert } from '../../compiler/test/harness.ts';

const s = suite('target: kimi-cli');
let compiled: Compiled;
let bundles: Map<string, VirtualTree>;
const ROOT: Record<ScopeId, string> = { global: '.config/agents', local: '.kimi' };
/** Where a bundle's paths point from inside its text: home-relative globally, project-relative locally. */
const ADDRESS: Record<ScopeId, string> = { global: '~/.config/agents', local: '.kimi' };
/** Every tool path of Kimi CLI 1.49.0's default agent (agents/default/agent.yaml). */
const DEFAULT_TOOLS = new Set([
  'kimi_cli.tools.agent:Agent', 'kimi_cli.tools.ask_user:AskUserQuestion', 'kimi_cli.tools.todo:SetTodoList', 'kimi_cli.tools.shell:Shell',
  'kimi_cli.tools.background:TaskList', 'kimi_cli.tools.background:TaskOutput', 'kimi_cli.tools.background:TaskStop', 'kimi_cli.tools.file:ReadFile',
  'kimi_cli.tools.file:ReadMediaFile', 'kimi_cli.tools.file:Glob', 'kimi_cli.tools.file:Grep', 'kimi_cli.tools.file:WriteFile',
  'kimi_cli.tools.file:StrReplaceFile', 'kimi_cli.tools.web:SearchWeb', 'kimi_cli.tools.web:FetchURL', 'kimi_cli.tools.plan:ExitPlanMode',
  'kimi_cli.tools.plan.enter:EnterPlanMode',
]);
const SCOPES: readonly ScopeId[] = ['global', 'local'];

s.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  const result = emitBundles(compiled, SCOPES.map((scope) => ({ target: 'kimi-cli', scope })));
  assert.equal(result.diagnostics.filter((d) => d.severity !== 'warning'), [], 'the bundles build cleanly');
  bundles = result.bundles;
});

const tree = (scope: ScopeId) => bundles.get(`kimi-cli/${scope}`)!;
const text = (scope: ScopeId, file: string) => {
  const entry = tree(scope).get(file);
  assert.ok(entry, `missing kimi-cli/${scope}/${file}`);
  return String(entry!.contents);
};
const agents = () => compiled.ir.nodes.filter((node) => node.kind === 'agent' && node.variant === undefined);
const commands = () => compiled.ir.nodes.filter((node) => node.kind === 'command' && node.variant === undefined);

s('should list every agent in the root spec, which extends Kimi CLI\'s default agent, with its spec path and a one-line description', () => {
  for (const scope of SCOPES) {
    const root = parseYaml(text(scope, `${ROOT[scope]}/agents/gsd.yaml`)) as { version: number; agent: { extend: string; name: string; subagents: Record<string, { path: string; description: string }>; system_prompt_path?: string } };
    assert.is(root.version, 1);
    assert.is(root.agent.extend, 'default', 'Kimi CLI\'s own prompt and tools stay');
    assert.is(root.agent.name, 'gsd');
    assert.is(root.agent.system_prompt_path, undefined, 'no root prompt replaces Kimi CLI\'s');
    const names = agents().map((agent) => agent.name).sort();
    assert.equal(Object.keys(root.agent.subagents).sort(), names, `${scope}: every agent, nothing else`);
    for (const [name, entry] of Object.entries(root.agent.subagents)) {
      assert.is(entry.path, `./subagents/${name}.yaml`, `${scope} ${name}`);
      assert.ok(tree(scope).has(`${ROOT[scope]}/agents/subagents/${name}.yaml`), `${scope}: ${name}'s spec is in the bundle`);
      assert.ok(entry.description.length > 0 && !entry.description.includes('\n'), `${scope} ${name}: one-line description`);
    }
  }
});

s('should write each agent as a spec naming its prompt file and listing only Kimi CLI tool paths, without Agent or AskUserQuestion', () => {
  for (const scope of SCOPES) {
    for (const agent of agents()) {
      const spec = parseYaml(text(scope, `${ROOT[scope]}/agents/subagents/${agent.name}.yaml`)) as { version: number; agent: { name: string; system_prompt_path: string; tools: string[] } };
      assert.is(spec.version, 1);
      assert.is(spec.agent.name, agent.name);
      assert.is(spec.agent.system_prompt_path, `./${agent.name}.md`);
      assert.ok(spec.agent.tools.length > 0, `${agent.name}: Kimi CLI requires tools`);
      for (const tool of spec.agent.tools) assert.ok(DEFAULT_TOOLS.has(tool), `${scope} ${agent.name}: ${tool} is a tool path of Kimi CLI's default agent`);
      assert.not.ok(spec.agent.tools.some((tool) => /:(?:Agent|AskUserQuestion)$/.test(tool)), `${agent.name}: GSD agents neither spawn nor ask`);
      const prompt = text(scope, `${ROOT[scope]}/agents/subagents/${agent.name}.md`);
      assert.not.ok(prompt.startsWith('---'), `${agent.name}: the prompt has no frontmatter`);
      assert.not.match(prompt, /~\/\.claude|\$HOME\/\.claude/, `${agent.name}: paths rewritten`);
    }
  }
  const executor = parseYaml(text('global', '.config/agents/agents/subagents/gsd-executor.yaml')) as { agent: { tools: string[] } };
  assert.equal(executor.agent.tools, ['kimi_cli.tools.file:ReadFile', 'kimi_cli.tools.file:WriteFile', 'kimi_cli.tools.file:StrReplaceFile', 'kimi_cli.tools.shell:Shell', 'kimi_cli.tools.file:Glob', 'kimi_cli.tools.file:Grep']);
});

s('should write skills with the preamble, {{GSD_ARGS}} for the arguments and /skill:gsd-<name> mentions, paths at the scope\'s root', () => {
  for (const scope of SCOPES) {
    for (const command of commands()) {
      const skill = text(scope, `${ROOT[scope]}/skills/gsd-${command.name}/SKILL.md`);
      assert.match(skill, new RegExp(`^---\\nname: gsd-${command.name}\\ndescription: "`), `${scope} ${command.name}`);
      assert.ok(skill.includes('<kimi_cli_skill_notes>'), `${scope} ${command.name}: preamble`);
      assert.not.ok(skill.includes('$ARGUMENTS'), `${scope} ${command.name}: Kimi CLI does not substitute $ARGUMENTS`);
      assert.not.match(skill, /(?<![\w:])\/gsd-[a-z]/, `${scope} ${command.name}: commands are named /skill:gsd-<name>`);
    }
    const execute = text(scope, `${ROOT[scope]}/skills/gsd-execute-phase/SKILL.md`);
    assert.ok(execute.includes(`@${ADDRESS[scope]}/gsd-core/workflows/execute-phase.md`), `${scope}: includes point at the bundle's gsd-core`);
    assert.ok(execute.includes(scope === 'global' ? 'kimi --agent-file ~/.config/agents/agents/gsd.yaml' : 'kimi --agent-file .kimi/agents/gsd.yaml'), `${scope}: how to start with the agents`);
  }
});

s('should register hooks only globally, in ~/.kimi/config.toml, with anchored matchers and no PostToolUse', () => {
  const config = parseToml(text('global', '.kimi/config.toml')) as { hooks: { event: string; matcher?: string; command: string; timeout: number }[] };
  assert.ok(config.hooks.length > 0);
  for (const hook of config.hooks) {
    assert.ok(['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'Stop', 'StopFailure', 'SubagentStart', 'SubagentStop', 'PreCompact', 'PostCompact', 'Notification'].includes(hook.event), hook.event);
    assert.match(hook.command, /^node "\$HOME\/\.kimi\/hooks\/gsd-[a-z-]+\.cjs" --runtime kimi-cli$/);
    assert.ok(tree('global').has(`.kimi/hooks/${/hooks\/(gsd-[a-z-]+\.cjs)/.exec(hook.command)![1]}`), `${hook.command}: its script ships`);
    if (hook.matcher) for (const part of hook.matcher.split('|')) assert.match(part, /^\^[A-Za-z]+\$$/, `anchored: ${hook.matcher}`);
    assert.ok(hook.timeout >= 1 && hook.timeout <= 600);
  }
  assert.ok(config.hooks.some((hook) => hook.event === 'PreToolUse' && hook.matcher === '^Shell$' && hook.command.includes('gsd-validate-commit')));
  assert.equal([...tree('local').keys()].filter((file) => file.includes('hooks/') || file.endsWith('config.toml')), [], 'no hooks in a project');
});

s('should write each agent prompt as one Jinja raw block, so ${…}, {% and {# reach the model as written', () => {
  const file = '.config/agents/agents/subagents/gsd-executor.md';
  const prompt = text('global', file);
  assert.ok(prompt.startsWith('{% raw %}') && prompt.endsWith('{% endraw %}'), 'one raw block');
  assert.is(prompt.split('{% endraw %}').length, 2, 'closed once, at the end');
  // The one text that would end the block early fails the build, at its position.
  const limits = compiled.targets.find((t) => t.definition.id === 'kimi-cli')!.definition.scopes.global!.limits ?? [];
  const original = tree('global').get(file)!;
  const changed: VirtualTree = new Map(tree('global'));
  changed.set(file, { ...original, contents: String(original.contents).replace('{% endraw %}', '\nsee {% endraw %} here\n{% endraw %}') });
  const found = checkLimits('kimi-cli/global', changed, limitCheck(limits)).filter((d) => d.code === 'limit-exceeded');
  assert.is(found.length, 1, 'the planted tag, not the closing one');
  assert.match(found[0]!.message, /raw block/);
  assert.equal(checkLimits('kimi-cli/global', tree('global'), limitCheck(limits)).filter((d) => d.code === 'limit-exceeded'), [], 'the corpus as it is passes');
});

s.run();
