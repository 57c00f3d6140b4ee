// The zcode target (ZCode, Z.ai): skills /gsd-<name> under ~/.zcode and .zcode/,
// agents in Claude Code's format kept as written, no hooks, and the limit that
// refuses an mcp__ tool in an agent's tools.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { compile, emitBundles, REPO_ROOT, type Compiled } from '../../compiler/pipeline.ts';
import { checkLimits, limitCheck } from '../../compiler/check/check-emitted.ts';
import type { VirtualTree } from '../../compiler/emit/virtual-tree.ts';
import type { ScopeId } from '../../compiler/targets/target-types.ts';
import { suite, assert } from '../../compiler/test/harness.ts';

const s = suite('target: zcode');
let compiled: Compiled;
let bundles: Map<string, VirtualTree>;
const SCOPES: readonly ScopeId[] = ['global', 'local'];
const ADDRESS: Record<ScopeId, string> = { global: '~/.zcode', local: '.zcode' };

s.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  const result = emitBundles(compiled, SCOPES.map((scope) => ({ target: 'zcode', scope })));
  assert.equal(result.diagnostics.filter((d) => d.severity !== 'warning'), [], 'the bundles build cleanly');
  bundles = result.bundles;
});

const tree = (scope: ScopeId) => bundles.get(`zcode/${scope}`)!;
const text = (scope: ScopeId, file: string) => {
  const entry = tree(scope).get(file);
  assert.ok(entry, `missing zcode/${scope}/${file}`);
  return String(entry!.contents);
};
const nodes = (kind: string) => compiled.ir.nodes.filter((node) => node.kind === kind && node.variant === undefined);

s('should write one skill per command, named gsd-<name>, with $ARGUMENTS kept and includes under the scope\'s root', () => {
  for (const scope of SCOPES) {
    for (const command of nodes('command')) {
      const skill = text(scope, `.zcode/skills/gsd-${command.name}/SKILL.md`);
      const meta = parseYaml(/^---\n([\s\S]*?\n)---\n/.exec(skill)![1]!) as Record<string, unknown>;
      assert.is(meta['name'], `gsd-${command.name}`);
      assert.ok(typeof meta['description'] === 'string' && !String(meta['description']).includes('\n'), `${command.name}: one-line description`);
    }
    assert.equal([...tree(scope).keys()].filter((file) => file.startsWith('.zcode/commands/')), [], `${scope}: no same-named commands beside the skills`);
    const execute = text(scope, '.zcode/skills/gsd-execute-phase/SKILL.md');
    assert.ok(execute.includes(`@${ADDRESS[scope]}/gsd-core/workflows/execute-phase.md`), scope);
    assert.ok(execute.includes('$ARGUMENTS'), `${scope}: ZCode substitutes $ARGUMENTS`);
  }
});

s('should keep each agent\'s source frontmatter, ship no hooks, and leave no ~/.claude path', () => {
  for (const scope of SCOPES) {
    for (const agent of nodes('agent')) {
      const file = text(scope, `.zcode/agents/${agent.name}.md`);
      assert.ok(file.startsWith(`---\nname: ${agent.name}\n`), agent.name);
      // The keys as written (commented-out lines may hold a path, which moves to the scope's root).
      const keys = (text: string) => text.slice(0, text.indexOf('\n---\n')).split('\n').filter((line) => !line.startsWith('#'));
      // ZCode keeps name, description, tools and color, and refuses an agent whose tools name an MCP tool (targets/zcode/facts.json).
      const zcodeKeys = (lines: string[]) =>
        lines
          .filter((line) => line === '---' || /^(?:name|description|tools|color):/.test(line))
          .map((line) => (line.startsWith('tools:') ? `tools: ${line.slice('tools:'.length).split(',').map((tool) => tool.trim()).filter((tool) => tool !== '' && !tool.startsWith('mcp__')).join(', ')}` : line));
      assert.equal(keys(file), zcodeKeys(keys(agent.text)), `${scope} ${agent.name}: frontmatter as written`);
    }
    assert.equal([...tree(scope).keys()].filter((file) => /(?:^|\/)hooks\/|settings\.json$/.test(file)), [], `${scope}: no hooks`);
    for (const [file, entry] of tree(scope)) if (entry.source !== undefined) assert.not.match(String(entry.contents), /~\/\.claude\/|\$HOME\/\.claude\//, `${scope} ${file}`);
  }
});

s('should fail the build on an mcp__ tool in an agent\'s tools, which ZCode would require as a connected MCP server', () => {
  const limits = compiled.targets.find((t) => t.definition.id === 'zcode')!.definition.scopes.global!.limits ?? [];
  const file = '.zcode/agents/gsd-executor.md';
  const original = tree('global').get(file)!;
  const changed: VirtualTree = new Map(tree('global'));
  changed.set(file, { ...original, contents: String(original.contents).replace(/^tools: (.*)$/m, 'tools: $1, mcp__context7__query-docs') });
  const found = checkLimits('zcode/global', changed, limitCheck(limits)).filter((d) => d.code === 'limit-exceeded');
  assert.is(found.length, 1);
  assert.match(found[0]!.message, /"tools" matching .*MCP server/);
  assert.equal(checkLimits('zcode/global', tree('global'), limitCheck(limits)), [], 'the corpus as it is passes');
});

s.run();
