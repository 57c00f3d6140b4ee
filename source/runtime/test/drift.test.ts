// verify codebase-drift on scratch git repositories: a mapped tree is
// committed and stamped, then each kind of drift is added; the threshold and
// the action are read from config; a map it cannot place answers "unknown"
// with exit 0. The glob matcher and the classifier are tested as functions.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { matchGlob, matchSegment } from '../core/glob.ts';
import { classifyDrift, pathList } from '../planning/drift.ts';
import { run, tmpDir } from './helpers.ts';

const s = suite('runtime codebase drift');

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
}

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

function commitAll(root: string, message: string): string {
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', message);
  return git(root, 'rev-parse', '--short', 'HEAD').trim();
}

function mapDoc(name: string, commit: string, paths = '.'): string {
  return `---\ndocument: ${name}\nfocus: arch\nlast_mapped_commit: ${commit}\nmapped_paths: ${paths}\nmapped: 2025-03-04\n---\n\n# ${name}\n`;
}

/** A repository with src/ and a test folder committed, and a map stamped at that commit. */
function mappedRepo(opts: { config?: object; paths?: string } = {}): { root: string; mapped: string } {
  const root = tmpDir('gsd-drift-');
  git(root, 'init', '-q', '-b', 'main');
  write(root, { 'package.json': '{}\n', 'src/index.ts': 'export {};\n', 'test/a.test.ts': '\n', '.planning/config.json': JSON.stringify(opts.config ?? {}) });
  const mapped = commitAll(root, 'code');
  write(root, { '.planning/codebase/STRUCTURE.md': mapDoc('structure', mapped, opts.paths), '.planning/codebase/STACK.md': mapDoc('stack', mapped, opts.paths) });
  commitAll(root, 'docs: map codebase');
  return { root, mapped };
}

const drift = async (root: string) => {
  const r = await run(['verify', 'codebase-drift'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  return r.json;
};

s('should match globs segment by segment, with ** over any number of folders', () => {
  assert.ok(matchSegment('*.controller.ts', 'user.controller.ts'));
  assert.not.ok(matchSegment('*.controller.ts', 'user.controller.tsx'));
  assert.ok(matchSegment('V?__*', 'V1__init'));
  assert.ok(matchGlob('**/migrations/**', 'migrations/001.sql'));
  assert.ok(matchGlob('**/migrations/**', 'services/api/migrations/2025/001.sql'));
  assert.not.ok(matchGlob('**/migrations/**', 'src/migrationsx/001.sql'));
  assert.ok(matchGlob('**/app/**/route.ts', 'web/app/users/[id]/route.ts'));
  assert.ok(matchGlob('**/app/**/route.ts', 'app/route.ts'));
  assert.not.ok(matchGlob('**/src/bin/*.rs', 'src/bin/tool/main.rs'));
  // A pathological pattern stays cheap: a table walk, no backtracking.
  const long = `${'a/'.repeat(200)}b`;
  const started = Date.now();
  assert.not.ok(matchGlob(`${'**/a/'.repeat(40)}c`, long));
  assert.ok(Date.now() - started < 1000);
});

s('should read mapped_paths as a list, a comma-separated string, or "." for everything', () => {
  assert.equal(pathList('.'), []);
  assert.equal(pathList('packages/api, ./tools/'), ['packages/api', 'tools']);
  assert.equal(pathList(['b', 'a', 'a']), ['a', 'b']);
  assert.equal(pathList(undefined), []);
});

s('should classify added paths and ignore what the map does not cover', () => {
  const f = classifyDrift(
    ['tools/cli/package.json', 'src/routes/users.ts', 'db/migrate/001_init.rb', '.planning/codebase/X.md', 'src/util.ts', 'node_modules/x/package.json'],
    new Set(['src', 'db', 'package.json']),
    [],
  );
  assert.equal(f, { new_top_level_folders: ['tools'], entry_points: ['tools/cli/package.json'], migrations: ['db/migrate/001_init.rb'], route_modules: ['src/routes/users.ts'] });
  const scoped = classifyDrift(['src/routes/a.ts', 'other/routes/b.ts', 'newdir/x.ts'], new Set(['src', 'other']), ['src']);
  assert.equal(scoped, { new_top_level_folders: ['newdir'], entry_points: [], migrations: [], route_modules: ['src/routes/a.ts'] });
});

s('should report clean when nothing structural was added since the map', async () => {
  const { root, mapped } = mappedRepo();
  write(root, { 'src/util.ts': 'export const x = 1;\n' });
  commitAll(root, 'feat: util');
  const j = await drift(root);
  assert.is(j.status, 'clean');
  assert.is(j.mapped_commit, mapped);
  assert.is(j.total, 0);
  assert.is(j.threshold, 3);
  assert.is(j.action, 'none');
});

s('should count each of the four kinds of drift', async () => {
  const cases: [string, Record<string, string>, string][] = [
    ['new_top_level_folders', { 'scripts/release.sh': '#!/bin/sh\n' }, 'scripts'],
    ['entry_points', { 'src/worker/main.go': 'package main\n' }, 'src/worker/main.go'],
    ['migrations', { 'src/migrations/001_users.sql': 'create table u();\n' }, 'src/migrations/001_users.sql'],
    ['route_modules', { 'src/routes/users.ts': 'export {};\n' }, 'src/routes/users.ts'],
  ];
  for (const [kind, files, expected] of cases) {
    const { root } = mappedRepo({ config: { workflow: { drift_threshold: 1 } } });
    write(root, files);
    commitAll(root, `feat: ${kind}`);
    const j = await drift(root);
    assert.equal(j.findings[kind], [expected], kind);
    assert.is(j.counts[kind], 1, kind);
    assert.is(j.total, 1, kind);
    assert.is(j.status, 'drifted', kind);
  }
});

s('should compare the total with workflow.drift_threshold: below it clean, at or above it drifted', async () => {
  const changes = { 'api/routes/a.ts': '\n', 'api/routes/b.ts': '\n' };
  const below = mappedRepo();
  write(below.root, changes);
  commitAll(below.root, 'feat: api');
  let j = await drift(below.root);
  assert.is(j.total, 3, JSON.stringify(j.findings));
  assert.equal(j.counts, { new_top_level_folders: 1, entry_points: 0, migrations: 0, route_modules: 2 });
  assert.is(j.status, 'drifted', 'the default threshold 3 is reached');
  const high = mappedRepo({ config: { workflow: { drift_threshold: 4 } } });
  write(high.root, changes);
  commitAll(high.root, 'feat: api');
  j = await drift(high.root);
  assert.is(j.status, 'clean');
  assert.is(j.threshold, 4);
  assert.is(j.action, 'none');
  assert.equal(j.remap_paths, []);
  const r = await run(['verify', 'codebase-drift', '--raw'], { cwd: high.root });
  assert.is(r.stdout, 'clean');
});

s('should answer warn by default and auto-remap with the affected paths when configured', async () => {
  const files = { 'billing/package.json': '{}\n', 'billing/src/index.ts': '\n', 'src/routes/pay.ts': '\n' };
  const warn = mappedRepo();
  write(warn.root, files);
  commitAll(warn.root, 'feat: billing');
  let j = await drift(warn.root);
  assert.is(j.status, 'drifted');
  assert.is(j.action, 'warn');
  assert.match(j.message, /the codebase map is out of date/);
  const remap = mappedRepo({ config: { workflow: { drift_action: 'auto-remap' } } });
  write(remap.root, files);
  commitAll(remap.root, 'feat: billing');
  j = await drift(remap.root);
  assert.is(j.action, 'auto-remap');
  assert.equal(j.remap_paths, ['billing', 'src']);
  assert.equal(j.findings.entry_points, ['billing/package.json', 'billing/src/index.ts']);
});

s('should count only inside mapped_paths, except new top-level folders', async () => {
  const { root } = mappedRepo({ paths: 'src', config: { workflow: { drift_threshold: 1 } } });
  write(root, { 'test/routes/fake.ts': '\n', 'src/routes/real.ts': '\n', 'infra/main.go': '\n' });
  commitAll(root, 'feat: more');
  const j = await drift(root);
  assert.equal(j.mapped_paths, ['src']);
  assert.equal(j.findings, { new_top_level_folders: ['infra'], entry_points: [], migrations: [], route_modules: ['src/routes/real.ts'] });
});

s('should answer "cannot tell" with exit 0 for a missing map, a missing stamp, an unknown commit or no git', async () => {
  const noMap = tmpDir('gsd-drift-');
  write(noMap, { '.planning/config.json': '{}' });
  let j = await drift(noMap);
  assert.is(j.status, 'unknown');
  assert.match(j.reason, /no codebase map/);
  write(noMap, { '.planning/codebase/STRUCTURE.md': mapDoc('structure', 'a1b2c3d') });
  j = await drift(noMap);
  assert.is(j.status, 'unknown');
  assert.match(j.reason, /not in a git repository/);
  const { root } = mappedRepo();
  write(root, { '.planning/codebase/STRUCTURE.md': mapDoc('structure', 'deadbee'), '.planning/codebase/STACK.md': mapDoc('stack', 'deadbee') });
  j = await drift(root);
  assert.is(j.status, 'unknown');
  assert.match(j.reason, /last_mapped_commit deadbee is not a commit of this repository/);
  assert.match(j.message, /^cannot tell whether the codebase drifted/);
  assert.is(j.action, 'none');
  write(root, { '.planning/codebase/STRUCTURE.md': mapDoc('structure', 'none'), '.planning/codebase/STACK.md': '# no frontmatter\n' });
  j = await drift(root);
  assert.is(j.status, 'unknown');
  assert.match(j.reason, /no last_mapped_commit stamp/);
});

s('should take STRUCTURE.md\'s stamp when a partial refresh left documents at different commits', async () => {
  const { root, mapped } = mappedRepo({ config: { workflow: { drift_threshold: 1 } } });
  write(root, { 'src/routes/a.ts': '\n' });
  const later = commitAll(root, 'feat: a');
  write(root, { '.planning/codebase/STACK.md': mapDoc('stack', later) });
  commitAll(root, 'docs: refresh tech');
  const j = await drift(root);
  assert.is(j.mapped_commit, mapped);
  assert.equal(j.findings.route_modules, ['src/routes/a.ts']);
});

s.run();
