// scripts/fs-floor.mjs: the file-system floor bench-build prints must make the
// same folders and files as the output it was planned from (names, sizes,
// modes, which names are links of one file), or it is the floor of another tree.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, suite } from '../compiler/test/harness.ts';
import { temporaryDir } from '../compiler/test/fixture-support.ts';
import { writeTrees } from '../compiler/write/write-tree.ts';
import type { VirtualTree } from '../compiler/emit/virtual-tree.ts';

const SCRIPT = fileURLToPath(new URL('./fs-floor.mjs', import.meta.url));

function floor(...args: string[]): void {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
}

/** A run that must fail: exit 2, one line on stderr saying what was expected. */
function refused(args: string[], message: RegExp): void {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  assert.is(run.status, 2, run.stderr);
  assert.match(run.stderr, message);
  assert.is(run.stderr.trim().split('\n').length, 1, run.stderr);
}

/** Every folder and file under root: a file's size, mode and the first name of its inode (its links share it). */
function shape(root: string): string[] {
  const firsts = new Map<number, string>();
  const lines: string[] = [];
  const walk = (relative: string) => {
    for (const name of fs.readdirSync(path.join(root, relative)).sort()) {
      const child = relative ? `${relative}/${name}` : name;
      const stats = fs.lstatSync(path.join(root, child));
      if (stats.isDirectory()) {
        lines.push(`${child}/`);
        walk(child);
        continue;
      }
      if (!firsts.has(stats.ino)) firsts.set(stats.ino, child);
      lines.push(`${child} ${stats.size} ${(stats.mode & 0o777).toString(8)} ${firsts.get(stats.ino)}`);
    }
  };
  walk('');
  return lines;
}

const test = suite('fs-floor');

test('makes the folders and files of the output it planned: sizes, modes and links', async () => {
  const scratch = temporaryDir('fs-floor');
  const out = path.join(scratch, 'out');
  const shared = 'the same text in both bundles\n'.repeat(40);
  const tree = (own: string): VirtualTree =>
    new Map([
      ['README.txt', { contents: shared }],
      ['bin/tool.cjs', { contents: '#!/usr/bin/env node\n', executable: true }],
      [`skills/${own}/SKILL.md`, { contents: `# ${own}\n` }],
      ['deep/a/b/c/leaf.md', { contents: '' }],
    ]);
  await writeTrees(out, new Map([['t/global', tree('one')], ['t/local', tree('two')]]));
  fs.mkdirSync(path.join(out, 't/global/empty'));
  const plan = path.join(scratch, 'plan.json');
  floor('plan', out, plan);
  const made = path.join(scratch, 'made');
  floor('make', plan, made);
  const expected = shape(out);
  assert.ok(expected.some((line) => line.startsWith('t/local/README.txt ') && line.endsWith(' t/global/README.txt')), 'the output has a link to make');
  assert.equal(shape(made), expected);
  fs.rmSync(scratch, { recursive: true, force: true });
});

test('refuses bad arguments, a plan that is not one and a folder that is there, in one line each', () => {
  const scratch = temporaryDir('fs-floor');
  refused([], /^fs-floor: expected usage: fs-floor\.mjs plan/);
  refused(['copy', 'a', 'b'], /^fs-floor: expected usage/);
  refused(['plan', path.join(scratch, 'missing'), path.join(scratch, 'plan.json')], /^fs-floor: ENOENT/);
  const plan = path.join(scratch, 'plan.json');
  fs.writeFileSync(plan, '[1, 2]');
  refused(['make', plan, path.join(scratch, 'made')], /^fs-floor: expected a plan of folders and files/);
  assert.not.ok(fs.existsSync(path.join(scratch, 'made')), 'nothing made for a plan that is not one');
  fs.writeFileSync(plan, JSON.stringify({ folders: [], files: [] }));
  refused(['make', plan, scratch], /^fs-floor: EEXIST/);
  fs.rmSync(scratch, { recursive: true, force: true });
});

test.run();
