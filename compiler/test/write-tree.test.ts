// Writing trees where the file system refuses hard links (FAT and exFAT,
// some network shares, another device): the writer threads link a file to the
// first one with its bytes and mode, and write a copy when the link fails.
// The failure is made here by a module preloaded into the build's process
// (NODE_OPTIONS --require reaches its writer threads too) that makes every
// fs.linkSync throw EPERM: no special file system needed.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, assert } from './harness.ts';
import { miniSandbox, runCli, snapshotTree, temporaryDir } from './fixture-support.ts';

const writeTree = suite('write-tree');

/** Every file under dir with its link count and inode. */
function linkCounts(dir: string): Map<string, { nlink: number; ino: number }> {
  const counts = new Map<string, { nlink: number; ino: number }>();
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else counts.set(path.relative(dir, full), { nlink: lstatSync(full).nlink, ino: lstatSync(full).ino });
    }
  };
  walk(dir);
  return counts;
}

writeTree('should write copies where the file system refuses hard links, the same bytes and modes as a build that links', () => {
  const box = miniSandbox();
  const scratch = temporaryDir('no-links');
  const preload = path.join(scratch, 'refuse-links.cjs');
  const attempts = path.join(scratch, 'attempts.log');
  writeFileSync(
    preload,
    `const fs = require('node:fs');
fs.linkSync = (from, to) => {
  fs.appendFileSync(${JSON.stringify(attempts)}, to + '\\n');
  throw Object.assign(new Error('EPERM: operation not permitted, link ' + JSON.stringify(from) + ' -> ' + JSON.stringify(to)), { code: 'EPERM', errno: -1, syscall: 'link' });
};
`,
  );
  const build = (out: string, env: Record<string, string> = {}) => runCli(['--all', '--source', box.source, '--targets', box.targets, '--out', out, '--no-cache'], { env });
  const linked = path.join(scratch, 'linked');
  const copied = path.join(scratch, 'copied');
  const normal = build(linked);
  assert.is(normal.status, 0, normal.stderr);
  assert.ok(!existsSync(attempts), 'the normal build ran without the preload');
  const refused = build(copied, { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(preload)}`.trim() });
  assert.is(refused.status, 0, refused.stderr);
  assert.is(refused.stdout.replace(copied, linked).replace(/ in \d+ ms/, ''), normal.stdout.replace(/ in \d+ ms/, ''), 'the same report');
  // The normal build links (so the refused one had links to make); each link it would have made was tried and refused.
  const linkedCounts = linkCounts(linked);
  const shared = [...linkedCounts.values()].filter(({ nlink }) => nlink > 1);
  assert.ok(shared.length > 0, 'a normal build hard-links files with the same bytes');
  // One file of each shared inode is written, the others linked to it: as many tries as those links.
  const tried = readFileSync(attempts, 'utf8').trimEnd().split('\n');
  assert.is(tried.length, shared.length - new Set(shared.map(({ ino }) => ino)).size, 'a link tried for every file the normal build linked');
  assert.ok(tried.every((file) => file.startsWith(copied + path.sep) && /\/\.(global|local)\.tmp-\d+\//.test(file)), 'links tried in the temporary folders only');
  // The copies: the same files, bytes and modes (folders too), each a file of its own.
  assert.equal([...snapshotTree(copied)], [...snapshotTree(linked)]);
  const copiedCounts = linkCounts(copied);
  assert.equal([...copiedCounts.keys()], [...linkedCounts.keys()]);
  assert.equal([...copiedCounts].filter(([, { nlink }]) => nlink !== 1).map(([file]) => file), [], 'no file is a hard link');
  assert.is(new Set([...copiedCounts.values()].map(({ ino }) => ino)).size, copiedCounts.size, 'each file its own inode');
  rmSync(scratch, { recursive: true, force: true });
  rmSync(path.dirname(box.source), { recursive: true, force: true });
});

writeTree.run();
