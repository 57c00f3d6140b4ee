// The namespace layout, for every runtime whose command surface declares
// `nested` (read from its definition, not listed here): a command an ns-*
// router routes lands under that router and nowhere else, an unrouted one
// stays at the top, and the router's table reads the nested files instead of
// invoking skills. Every other runtime keeps all three commands flat.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { allBundles, compile, emitBundles } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { copySource } from './fixture-support.ts';

const s = suite('nested layout');

const ROUTER = `---
name: gsd-workflow
description: "workflow | plan and execute a phase"
allowed-tools:
  - Read
  - Skill
requires: [plan-phase, execute-phase]
---
Route to the phase skill the user wants.

| User wants | Invoke |
|---|---|
| Plan a phase | gsd-plan-phase |
| Execute a phase in waves | gsd-execute-phase --wave |

Invoke the matched skill directly using the Skill tool.
`;

const nameOf = (contents: string) => (parseYaml(/^---\n([\s\S]*?\n)---\n/.exec(contents)![1]!) as Record<string, unknown>)['name'];

s('should nest routed commands under their router where the runtime reads namespaces, and keep them flat elsewhere', async () => {
  const source = copySource();
  writeFileSync(path.join(source, 'commands/gsd/probe.md'), '---\nname: gsd:probe\ndescription: A command no router routes\nallowed-tools:\n  - Read\n---\nSay hello.\n');
  writeFileSync(path.join(source, 'commands/gsd/ns-workflow.md'), ROUTER);
  // This router leaves most commands unrouted, so they stay at the top of nested runtimes, and the probe adds a listing
  // to every flat one: the listing budget is not what is tested here.
  const budgetsFile = path.join(source, 'budgets.json');
  const budgets = JSON.parse(readFileSync(budgetsFile, 'utf8')) as { listing?: Record<string, { nested: number; flat: number }> };
  for (const ceiling of Object.values(budgets.listing ?? {})) Object.assign(ceiling, { nested: 100_000, flat: 100_000 });
  writeFileSync(budgetsFile, JSON.stringify(budgets));
  const result = await compile({ sourceDir: source });
  assert.equal(result.diagnostics, []);
  const built = emitBundles(result, allBundles(result.targets));
  assert.equal(built.diagnostics, []);
  let nestedBundles = 0;
  for (const target of result.targets) {
    for (const [scopeId, scope] of Object.entries(target.definition.scopes)) {
      const where = `${target.definition.id}/${scopeId}`;
      const bundle = built.bundles.get(where)!;
      const surface = scope!.commands[0]!;
      const at = (pattern: string, name: string) => pattern.replaceAll('{root}', scope!.root).replaceAll('{router}', 'ns-workflow').replaceAll('{name}', name);
      if (!surface.nested) {
        for (const name of ['ns-workflow', 'plan-phase', 'execute-phase', 'probe']) assert.ok(bundle.has(at(surface.path, name)), `${where}: ${name} flat`);
        continue;
      }
      nestedBundles += 1;
      const router = at(surface.path, 'ns-workflow');
      const table = String(bundle.get(router)!.contents);
      assert.is(nameOf(table), 'gsd-ns-workflow', where);
      for (const [name, row, flags] of [['plan-phase', 'Plan a phase', ''], ['execute-phase', 'Execute a phase in waves', ' (--wave)']] as const) {
        const child = at(surface.nested.child, name);
        assert.ok(bundle.has(child), `${where}: ${name} nested`);
        assert.not.ok(bundle.has(at(surface.path, name)), `${where}: ${name} not also at the top`);
        // A nested skill keeps a name equal to its folder, and the router reads it by its path from the router's folder.
        assert.is(nameOf(String(bundle.get(child)!.contents)), `gsd-${name}`, where);
        const relative = path.posix.relative(path.posix.dirname(router), child);
        assert.ok(table.includes(`| ${row} | ${surface.nested.header} \`${relative}\`${flags} |`), `${where}: the ${name} row reads ${relative}`);
      }
      assert.ok(table.includes(`| User wants | ${surface.nested.header} |`), where);
      assert.not.match(table, /Skill tool/, where);
      assert.ok(bundle.has(at(surface.path, 'probe')), `${where}: an unrouted command stays at the top`);
    }
  }
  assert.ok(nestedBundles >= 10, `${nestedBundles} bundles in the namespace layout`);
});

s.run();
