// The antigravity, cursor, windsurf, augment and trae targets: what their
// data cannot say by itself. One invocation surface per runtime, the values
// each runtime needs in its frontmatter, {{GSD_ARGS}} defined before use,
// Windsurf's thin wrappers, tool words rewritten in
// call syntax only, the shape of each hook file, and limits with failing
// fixtures. Roots, paths, events, tool names, keys and limits are the
// target's data, checked against its facts.json by target-folders.test.ts.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { compile, emitBundles, REPO_ROOT, type Compiled } from '../pipeline.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { routedCommands } from '../emit/nest-routers.ts';
import type { ScopeId, TargetDefinition } from '../targets/target-types.ts';
import { validateTarget } from '../targets/load-targets.ts';
import { suite, assert } from './harness.ts';
import { copySource, diagnoseTree, FIXTURES, temporaryDir } from './fixture-support.ts';

const GROUP = ['antigravity', 'cursor', 'windsurf', 'augment', 'trae'] as const;
type Id = (typeof GROUP)[number];
const SCOPES: readonly ScopeId[] = ['global', 'local'];

const SKILL_TARGETS: readonly Id[] = ['antigravity', 'cursor', 'augment', 'trae'];
/** The preamble's tag: skills get a skill adapter, Windsurf's workflows a command adapter. */
const adapter = (id: Id) => `<${id}_${id === 'windsurf' ? 'command' : 'skill'}_adapter>`;

let compiled: Compiled;
let bundles: Map<string, VirtualTree>;

const group = suite('targets: antigravity, cursor, windsurf, augment, trae');

group.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  bundles = emitBundles(compiled, GROUP.flatMap((target) => SCOPES.map((scope) => ({ target, scope })))).bundles;
});

const definition = (id: Id): TargetDefinition => compiled.targets.find((t) => t.definition.id === id)!.definition;
const root = (id: Id, scope: ScopeId) => definition(id).scopes[scope]!.root;
const tree = (id: Id, scope: ScopeId) => bundles.get(`${id}/${scope}`)!;
const text = (bundle: VirtualTree, file: string) => {
  const entry = bundle.get(file);
  assert.ok(entry, `missing ${file}`);
  return String(entry!.contents);
};
const commands = () => compiled.ir.nodes.filter((node) => node.kind === 'command');
const agents = () => compiled.ir.nodes.filter((node) => node.kind === 'agent');
/** Files rendered from the corpus (not built code such as the runtime CLI or hook scripts). */
const corpusFiles = (bundle: VirtualTree) => [...bundle].filter(([, file]) => file.source !== undefined && typeof file.contents === 'string');

function frontmatter(contents: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?\n)---\n/.exec(contents);
  assert.ok(match, 'no frontmatter');
  return parseYaml(match![1]!) as Record<string, unknown>;
}

/** Where a command lands, from the runtime's first command surface: under the router that owns it in a nested layout. */
function commandPath(id: Id, scope: ScopeId, name: string): string {
  const surface = definition(id).scopes[scope]!.commands[0]!;
  const owner = surface.nested ? routedCommands(commands()).get(name) : undefined;
  return (owner ? surface.nested!.child.replace('{router}', owner) : surface.path).replace('{root}', root(id, scope)).replace('{name}', name);
}

group('should place every command on the runtime\'s one invocation surface, in both scopes', () => {
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      const bundle = tree(id, scope);
      const base = root(id, scope);
      for (const command of commands()) assert.ok(bundle.has(commandPath(id, scope, command.name)), `${id}/${scope}: ${command.name}`);
      // One invocation surface per runtime: skills or workflows, never a commands/ copy under the same names.
      assert.not.ok([...bundle.keys()].some((file) => file.startsWith(`${base}/commands/`)), `${id}/${scope} has a commands/ folder`);
      if (id === 'windsurf') {
        for (const command of commands()) assert.ok(bundle.has(`${base}/gsd-core/commands/gsd/${command.name}.md`), command.name);
        assert.not.ok([...bundle.keys()].some((file) => file.includes('/skills/')));
      }
    }
  }
});

group('should leave no Claude Code name, $ARGUMENTS or (locally) home path in the text', () => {
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      const bundle = tree(id, scope);
      for (const [file, entry] of corpusFiles(bundle)) {
        const contents = String(entry.contents);
        assert.not.match(contents, /(?<![\w-])\.claude\b/, `${id}/${scope}/${file}`);
        assert.not.match(contents, /\bCLAUDE\.md\b/, `${id}/${scope}/${file}`);
        assert.not.match(contents, /\$ARGUMENTS/, `${id}/${scope}/${file}`);
        if (scope === 'local') assert.not.match(contents, /(?:~|\$HOME)\//, `${id}/local/${file} names a home path`);
      }
    }
  }
});

group('should mention commands as /gsd-<name> and define {{GSD_ARGS}} wherever a user enters', () => {
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      const bundle = tree(id, scope);
      for (const [file, entry] of corpusFiles(bundle)) {
        const contents = String(entry.contents);
        assert.not.match(contents, /\$gsd-[a-z]|\/skill:gsd-|(?<![\w.])\/gsd:(?!section\b|only\b)[a-z]/, `${id}/${scope}/${file}`);
      }
      const entry = text(bundle, commandPath(id, scope, 'plan-phase'));
      // The entry file either defines {{GSD_ARGS}} itself (skills) or points to the text that does (Windsurf wrappers).
      const defining = id === 'windsurf' ? text(bundle, `${root(id, scope)}/gsd-core/commands/gsd/plan-phase.md`) : entry;
      assert.match(defining, /`\/gsd-execute-phase`/);
      assert.ok(defining.includes(adapter(id)), `${id}/${scope}: no adapter`);
      assert.match(defining, /`\{\{GSD_ARGS\}\}` (?:below )?stands for the text/);
      assert.ok(defining.indexOf(adapter(id)) < defining.indexOf('Phase and flags: {{GSD_ARGS}}'), `${id}/${scope}: the adapter comes before the first use`);
    }
  }
});

group('should write each skill\'s name as its folder and its description on one line', () => {
  for (const id of SKILL_TARGETS) {
    for (const scope of SCOPES) {
      const bundle = tree(id, scope);
      for (const command of commands()) {
        const file = commandPath(id, scope, command.name);
        const data = frontmatter(text(bundle, file));
        assert.is(data['name'], `gsd-${command.name}`);
        assert.is(path.posix.basename(path.posix.dirname(file)), data['name']);
        assert.is(data['description'], String(command.frontmatter!.data!['description']).replace(/\s+/g, ' ').trim());
      }
    }
  }
});

group('should write agents from their own frontmatter rules, Antigravity\'s with its tool names', () => {
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      const bundle = tree(id, scope);
      for (const agent of agents()) {
        const contents = text(bundle, `${root(id, scope)}/agents/${agent.name}.md`);
        const data = frontmatter(contents);
        assert.is(data['name'], agent.name);
        assert.is(data['description'], String(agent.frontmatter!.data!['description']).replace(/\s+/g, ' ').trim());
        assert.not.match(contents, /^# hooks:/m, 'the source frontmatter (and its comments) is not kept');
        if (id !== 'antigravity') continue;
        const tools = String(data['tools']).split(', ');
        assert.ok(tools.length > 0);
        if (/\bBash\b/.test(String(agent.frontmatter!.data!['tools']))) assert.ok(tools.includes('run_command'), agent.name);
      }
    }
  }
});

group('should write Windsurf workflows as thin wrappers that read the full text', () => {
  for (const scope of SCOPES) {
    const bundle = tree('windsurf', scope);
    const base = root('windsurf', scope);
    const readRoot = scope === 'global' ? `~/${base}` : base;
    for (const command of commands()) {
      const wrapper = text(bundle, commandPath('windsurf', scope, command.name));
      assert.ok(Buffer.byteLength(wrapper) < 1000, `${command.name}: a wrapper, not the full text`);
      assert.match(wrapper, new RegExp(`^# /gsd-${command.name}$`, 'm'));
      assert.ok(wrapper.includes(`Read \`${readRoot}/gsd-core/commands/gsd/${command.name}.md\``), wrapper);
      assert.ok(wrapper.includes('`{{GSD_ARGS}}`'), 'the wrapper names the placeholder literally');
      const full = text(bundle, `${base}/gsd-core/commands/gsd/${command.name}.md`);
      assert.ok(full.startsWith(`---\nname: ${String(command.frontmatter!.data!['name'])}\n`), 'the full text keeps the source frontmatter');
      assert.ok(full.includes(`read \`${readRoot}/agents/gsd-x.md\``), 'agents are read from this bundle');
    }
  }
});

group('should rewrite tool words in call syntax for augment and trae only, and never into a tools list', async () => {
  const source = copySource();
  const reference = path.join(source, 'gsd-core/references/planning-principles.md');
  writeFileSync(reference, `${readFileSync(reference, 'utf8')}\nCreate files with Write, never with \`Bash(cat << 'EOF')\`; fix them with \`Edit(file)\` after \`Read(file)\`, and track work with \`TodoWrite(items)\`.\n`);
  const result = await compile({ sourceDir: source });
  assert.equal(result.diagnostics, []);
  const built = emitBundles(result, GROUP.flatMap((target) => SCOPES.map((scope) => ({ target, scope })))).bundles;
  const line = (id: Id) => text(built.get(`${id}/local`)!, `${root(id, 'local')}/gsd-core/references/planning-principles.md`).trimEnd().split('\n').pop();
  assert.is(line('augment'), "Create files with Write, never with `launch-process(cat << 'EOF')`; fix them with `str-replace-editor(file)` after `view(file)`, and track work with `add_tasks(items)`.");
  assert.is(line('trae'), "Create files with Write, never with `Shell(cat << 'EOF')`; fix them with `StrReplace(file)` after `Read(file)`, and track work with `TodoWrite(items)`.");
  for (const id of ['antigravity', 'cursor', 'windsurf'] as const) assert.is(line(id), "Create files with Write, never with `Bash(cat << 'EOF')`; fix them with `Edit(file)` after `Read(file)`, and track work with `TodoWrite(items)`.");
  for (const [key, bundle] of built) {
    for (const [file, entry] of bundle) {
      const contents = String(entry.contents);
      assert.not.match(contents, /conversational prompting/, `${key}/${file}`);
      if (file.endsWith('SKILL.md') || file.includes('/agents/')) {
        const data = frontmatter(contents);
        assert.not.ok('allowed-tools' in data, `${key}/${file}`);
      }
    }
  }
});

group('should register the hook registry in each runtime\'s own file shape, with shipped scripts', () => {
  const registry = path.join(REPO_ROOT, 'source/hooks/hooks.json');
  if (!existsSync(registry)) return;
  const entries = JSON.parse(readFileSync(registry, 'utf8')) as { id: string; event: string; optIn?: boolean }[];
  const registrable = new Set(entries.filter((entry) => !entry.optIn).map((entry) => entry.id));
  const optIn = new Set(entries.filter((entry) => entry.optIn).map((entry) => entry.id));
  for (const id of GROUP) {
    for (const scope of SCOPES) {
      const bundle = tree(id, scope);
      const base = root(id, scope);
      const hooks = definition(id).scopes[scope]!.hooks;
      if (!hooks) {
        assert.not.ok([...bundle.keys()].some((file) => file.startsWith(`${base}/hooks`) || file.endsWith('settings.json')), `${id} has no hooks`);
        continue;
      }
      const file = hooks.path.replace('{root}', base);
      const registration = JSON.parse(text(bundle, file)) as Record<string, unknown>;
      const commandsSeen: string[] = [];
      const eventsSeen: string[] = [];
      if (id === 'antigravity') {
        for (const [name, events] of Object.entries(registration)) {
          assert.ok(registrable.has(name), `${id}: ${name} is a registry hook`);
          for (const [event, list] of Object.entries(events as Record<string, unknown[]>)) {
            eventsSeen.push(event);
            for (const group of list as { matcher?: string; hooks?: { type: string; command: string }[]; type?: string; command?: string }[]) {
              if (event === 'PreToolUse' || event === 'PostToolUse') {
                assert.ok(group.matcher, `${id}: a tool event lists matcher groups`);
                for (const handler of group.hooks!) {
                  assert.is(handler.type, 'command');
                  commandsSeen.push(handler.command);
                }
              } else {
                assert.is(group.type, 'command');
                commandsSeen.push(group.command!);
              }
            }
          }
        }
      } else {
        const hooks = (registration['hooks'] ?? {}) as Record<string, { command?: string; matcher?: string; hooks?: { command: string }[]; show_output?: boolean }[]>;
        if (id === 'cursor') assert.is(registration['version'], 1);
        else assert.not.ok('version' in registration);
        for (const [event, list] of Object.entries(hooks)) {
          eventsSeen.push(event);
          for (const entry of list) {
            if (id === 'augment') commandsSeen.push(...entry.hooks!.map((handler) => handler.command));
            // Auggie reads milliseconds: the registry's 5 and 10 seconds become 5000 and 10000, never a few ms.
            if (id === 'augment') for (const handler of entry.hooks as { timeout?: number }[]) assert.ok(handler.timeout === undefined || handler.timeout >= 1000, `${id}/${scope}: timeout ${handler.timeout} ms`);
            else commandsSeen.push(entry.command!);
            if (id === 'windsurf') assert.equal(Object.keys(entry), ['command', 'show_output']);
            if (id === 'cursor') for (const key of Object.keys(entry)) assert.ok(['command', 'matcher', 'timeout', 'failClosed'].includes(key), key);
            // A guard that must fail closed (the secret guard) is marked so; advisory hooks are not.
            if (id === 'cursor') assert.is((entry as { failClosed?: boolean }).failClosed, entry.command!.includes('gsd-secret-read-guard') ? true : undefined, entry.command);
          }
        }
      }
      assert.ok(eventsSeen.length > 0, `${id}/${scope}: nothing registered`);
      const prefix = scope === 'global' ? `node "$HOME/${base}/hooks/` : `node "${base}/hooks/`;
      for (const command of commandsSeen) {
        assert.ok(command.startsWith(prefix), `${id}/${scope}: ${command}`);
        const script = new RegExp(`/hooks/([\\w.-]+)" --runtime ${id}$`).exec(command)![1]!;
        assert.ok(bundle.has(`${base}/hooks/${script}`), `${id}/${scope}: ${script} is shipped`);
        assert.not.ok(optIn.has(script.replace(/\.(?:js|sh)$/, '')), `${id}/${scope}: opt-in ${script} is not registered`);
      }
    }
  }
  // Windsurf lists a tool hook under each Cascade action its matcher names.
  const windsurf = JSON.parse(text(tree('windsurf', 'local'), '.windsurf/hooks.json')) as { hooks: Record<string, { command: string }[]> };
  const secretGuard = (event: string) => (windsurf.hooks[event] ?? []).some((entry) => entry.command.includes('gsd-secret-read-guard'));
  if (entries.some((entry) => entry.id === 'gsd-secret-read-guard' && entry.event === 'PreToolUse')) {
    assert.ok(secretGuard('pre_read_code') && secretGuard('pre_run_command'));
    assert.not.ok(secretGuard('pre_write_code'));
  }
});

group('should hold nested skills to the skill limits, and Windsurf\'s full texts to no workflow limit', () => {
  for (const id of GROUP.filter((candidate) => definition(candidate).scopes.global!.commands[0]!.nested)) {
    for (const scope of SCOPES) {
      const nested = `${root(id, scope)}/skills/gsd-ns-x/skills/gsd-y/SKILL.md`;
      assert.ok((definition(id).scopes[scope]!.limits ?? []).some((limit) => limit.frontmatterKey === 'name' && new RegExp(limit.files).test(nested)), `${id}/${scope}`);
    }
  }
  for (const scope of SCOPES) {
    const limits = definition('windsurf').scopes[scope]!.limits ?? [];
    assert.ok(limits.some((limit) => new RegExp(limit.files).test(commandPath('windsurf', scope, 'x'))), scope);
    assert.not.ok(limits.some((limit) => new RegExp(limit.files).test(`${root('windsurf', scope)}/gsd-core/commands/gsd/x.md`)), 'the full text is not a workflow');
  }
});

/** A fixture corpus built against target definitions from targets/ (optionally changed), compared with its expected.txt. */
async function limitFixture(name: string, targets: Record<string, (definition: TargetDefinition) => TargetDefinition>) {
  const dir = temporaryDir(`group-b-${name}`);
  cpSync(path.join(FIXTURES, 'targets-group-b', name, 'source'), path.join(dir, 'source'), { recursive: true });
  for (const [id, change] of Object.entries(targets)) {
    const from = path.join(REPO_ROOT, 'targets', id);
    const to = path.join(dir, 'targets', id);
    mkdirSync(to, { recursive: true });
    for (const file of readdirSync(from)) cpSync(path.join(from, file), path.join(to, file));
    // The definition as loaded (scopes merged with shared), written back whole: a file without a shared block.
    const original = validateTarget(`${id}/target.json`, readFileSync(path.join(from, 'target.json'), 'utf8')).definition!;
    writeFileSync(path.join(to, 'target.json'), `${JSON.stringify(change(original), null, 2)}\n`);
  }
  const actual = `${(await diagnoseTree(dir)).join('\n')}\n`;
  const expectedFile = path.join(FIXTURES, 'targets-group-b', name, 'expected.txt');
  if (process.env['UPDATE_FIXTURES'] === '1') writeFileSync(expectedFile, actual);
  assert.fixture(actual, readFileSync(expectedFile, 'utf8'));
  return actual;
}

group('should report a skill name over 64 characters in every skill runtime and scope', async () => {
  const same = (definition: TargetDefinition) => definition;
  const actual = await limitFixture('skill-name-limit', Object.fromEntries(SKILL_TARGETS.map((id) => [id, same])));
  const lines = actual.trim().split('\n');
  assert.is(lines.length, SKILL_TARGETS.length * SCOPES.length);
  for (const line of lines) assert.match(line, /: error limit-exceeded expected "name" of at most 64 characters \(Agent Skills spec: name of at most 64 characters\), found 66$/);
});

group('should report a Windsurf workflow over 12,000 bytes and a description over 180 characters', async () => {
  // The real Windsurf limits, on a workflow surface that writes the full body and a long description instead of the wrapper.
  const unwrapped = (definition: TargetDefinition) => {
    for (const scope of Object.values(definition.scopes)) {
      const workflows = scope!.commands[0]!;
      delete workflows.template;
      workflows.frontmatter = [{ key: 'description', value: `${'Plan the next phase and check it. '.repeat(6)}Then run it.` }];
      scope!.commands = [workflows];
      delete scope!.hooks;
    }
    return definition;
  };
  const actual = await limitFixture('windsurf-workflow-limits', { windsurf: unwrapped });
  const lines = actual.trim().split('\n');
  assert.is(lines.length, 4);
  assert.is(lines.filter((line) => /limit-exceeded expected at most 12000 bytes/.test(line)).length, 2);
  assert.is(lines.filter((line) => /limit-exceeded expected "description" of at most 180 characters/.test(line)).length, 2);
});

group.run();
