// target.json: one shared block, per-scope differences. The merge, its
// diagnostics (a value said twice, a key missing in the merged scope, both
// positioned in the block they came from), and the rule it exists for: no
// target repeats in one scope what the other says.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { mergeScope } from '../targets/merge-scopes.ts';
import { validateTarget } from '../targets/load-targets.ts';
import { HOOK_FORMATS } from '../emit/hook-formats.ts';
import { suite, assert } from './harness.ts';

const s = suite('target merge');

s('should merge objects key by key, put shared list items first, and fill each scope on its own copy', () => {
  const shared = { root: '.x', commands: [{ path: '{root}/{dir}/a.md', preamble: 'p-{scope}.md', frontmatter: 'keep' }], hooks: { format: 'settings-json', events: { A: 'a' } }, limits: [{ files: '^{root}/{dir}/[^/]+$', maxBytes: 1, reason: 'r' }] };
  const global = mergeScope(shared, { base: 'home', names: { dir: 'g.d' }, hooks: { command: 'g', events: { B: null } } }, 'global');
  const local = mergeScope(shared, { base: 'project', names: { dir: 'l' }, commands: [{ path: 'b', frontmatter: 'none' }], hooks: { command: 'l' } }, 'local');
  assert.equal(global.conflicts, []);
  assert.equal(global.value, {
    root: '.x',
    commands: [{ path: '{root}/g.d/a.md', preamble: 'p-global.md', frontmatter: 'keep' }],
    hooks: { format: 'settings-json', events: { A: 'a', B: null }, command: 'g' },
    limits: [{ files: '^\\.x/g\\.d/[^/]+$', maxBytes: 1, reason: 'r' }],
    base: 'home',
  });
  assert.equal((local.value.commands as { path: string }[]).map((c) => c.path), ['{root}/l/a.md', 'b']);
  assert.is((local.value.commands as { preamble?: string }[])[0]!.preamble, 'p-local.md');
  assert.is(shared.commands[0]!.preamble, 'p-{scope}.md', 'shared is never changed');
});

s('should report a value set in shared and in a scope, at the scope key', () => {
  const text = JSON.stringify({ id: 't', name: 'T', shared: { root: '.t', commands: [], agents: [] }, scopes: { global: { base: 'home', root: '.u' } } }, null, 2);
  const { definition, diagnostics } = validateTarget('t/target.json', text);
  assert.is(definition, null);
  assert.equal(diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`), ['12:15 target-schema "scopes.global.root": expected a value set once, in "shared" or in the scope, found it in both']);
});

s('should place an error of the merged scope in the block the value came from', () => {
  const text = JSON.stringify({ id: 't', name: 'T', shared: { root: '.t', commands: [], agents: [], hooks: { format: 'settings-json', path: 'h.json', scripts: 'h/{file}' } }, scopes: { global: { base: 'home', hooks: { command: 'node {file}' } }, local: { base: 'project' } } }, null, 2);
  const { definition, diagnostics } = validateTarget('t/target.json', text);
  assert.is(definition, null);
  // Line 8 is shared's "hooks": the local scope never completes it.
  assert.equal(diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`), ['8:14 scope local: "hooks": expected a "command" key, found none']);
});

s('should name the hook formats there are when a target asks for another', () => {
  const text = JSON.stringify({ id: 't', name: 'T', shared: { root: '.t', commands: [], agents: [], hooks: { format: 'settings-yaml', path: 'h.json', scripts: 'h/{file}', command: 'node {file}' } }, scopes: { global: { base: 'home' } } }, null, 2);
  const { diagnostics } = validateTarget('t/target.json', text);
  assert.equal(diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`), [`9:17 "hooks.format": expected one of ${Object.keys(HOOK_FORMATS).join(', ')}, found "settings-yaml"`]);
  assert.ok(Object.keys(HOOK_FORMATS).length >= 8);
});

s('should keep every target free of one scope repeating what the other says', () => {
  const repeated: string[] = [];
  const compare = (a: unknown, b: unknown, at: string) => {
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      for (const key of Object.keys(a)) if (key in b) compare((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}.${key}`);
    } else if (JSON.stringify(a) === JSON.stringify(b)) repeated.push(at);
  };
  let both = 0;
  for (const id of readdirSync(path.join(REPO_ROOT, 'targets'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)) {
    const raw = JSON.parse(readFileSync(path.join(REPO_ROOT, 'targets', id, 'target.json'), 'utf8')) as { scopes: { global?: unknown; local?: unknown } };
    if (!raw.scopes.global || !raw.scopes.local) continue;
    both += 1;
    compare(raw.scopes.global, raw.scopes.local, id);
  }
  assert.ok(both >= 15, `${both} targets with two scopes`);
  assert.equal(repeated, []);
});

s.run();
