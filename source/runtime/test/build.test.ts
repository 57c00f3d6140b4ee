import { builtinModules } from 'node:module';
import os from 'node:os';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { bundleRuntime, loadHookEntries, REPO_ROOT } from '../build.ts';

const s = suite('runtime build');

s('should bundle gsd-tools and every hook deterministically, free of machine paths', async () => {
  const a = await bundleRuntime({ fresh: true });
  const b = await bundleRuntime({ fresh: true });
  assert.equal(a.map((f) => f.path), b.map((f) => f.path));
  for (let i = 0; i < a.length; i++) assert.ok(a[i]!.contents === b[i]!.contents, `${a[i]!.path} differs between builds`);
  const hooks = await loadHookEntries();
  assert.equal(a.map((f) => f.path), ['gsd-core/bin/gsd-tools.cjs', ...hooks.map((h) => `hooks/${h.id}.js`)].sort());
  for (const f of a) {
    assert.not.ok(f.contents.includes(REPO_ROOT), `${f.path} contains ${REPO_ROOT}`);
    assert.not.ok(f.contents.includes(os.homedir()), `${f.path} contains the home directory`);
    assert.ok(f.contents.startsWith('#!/usr/bin/env node\n'), `${f.path} has a shebang`);
  }
});

s('should require nothing but Node built-ins at run time', async () => {
  const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
  for (const f of await bundleRuntime()) {
    const required = [...f.contents.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]!);
    const foreign = required.filter((r) => !builtins.has(r));
    assert.equal(foreign, [], `${f.path} requires ${foreign.join(', ')}`);
    assert.not.ok(/\bimport\(\s*["'`](?!node:)/.test(f.contents), `${f.path} has a dynamic import of a package`);
  }
});

s('should keep gsd-tools.cjs under its size ceiling', async () => {
  const cli = (await bundleRuntime()).find((f) => f.path === 'gsd-core/bin/gsd-tools.cjs')!;
  const bytes = Buffer.byteLength(cli.contents);
  assert.ok(bytes < 300_000, `gsd-tools.cjs is ${bytes} bytes`);
  assert.not.ok(cli.contents.includes('new Ajv('), 'the config validator is precompiled, not ajv itself');
});

s.run();
