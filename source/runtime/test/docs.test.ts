// docs list | stale on scratch projects: kinds by the globs of doc-kinds.json,
// .planning/ and ignored folders left out, and on a git repository the
// documents that name a file changed since a commit.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { kindOf, mentions } from '../planning/docs.ts';
import { project, run } from './helpers.ts';

const s = suite('runtime docs');

const FILES = {
  'README.md': '# Demo\n\nStart with `src/server.ts`.\n',
  'docs/adr/0001-use-postgres.md': '# ADR 1: Use Postgres\n',
  'docs/prd/checkout.md': '# Checkout PRD\n',
  'docs/specs/api-v2.md': '# API v2\n\nRoutes live in routes.ts.\n',
  'docs/guide.md': '# Guide\n\nConfigure `config/app.yml` first.\n',
  'CHANGELOG.md': '# Changelog\n',
  'node_modules/pkg/README.md': '# not ours\n',
  '.github/PULL_REQUEST_TEMPLATE.md': '# not a document\n',
  'src/server.ts': 'export {};\n',
  'src/routes.ts': 'export {};\n',
  'config/app.yml': 'a: 1\n',
};

function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' } });
}

function gitProject(): string {
  const root = project(FILES);
  sh(root, 'init', '-q', '-b', 'main');
  sh(root, 'config', 'user.email', 'test@example.com');
  sh(root, 'config', 'user.name', 'Test');
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
  sh(root, 'add', '.');
  sh(root, 'commit', '-q', '-m', 'init');
  return root;
}

s('should sort documents into kinds by the data globs, planning inputs marked', () => {
  assert.equal(
    ['docs/adr/0001-x.md', 'ADR-007.md', 'docs/prd/a.md', 'rfcs/12.md', 'SPEC.md', 'pkg/README.md', 'CHANGELOG.md', 'docs/guide.md'].map(kindOf),
    ['adr', 'adr', 'prd', 'spec', 'spec', 'readme', 'changelog', 'doc'],
  );
});

s('should list the project documents outside .planning/, ignored and dot folders', async () => {
  for (const root of [project({ ...FILES, '.planning/PROJECT.md': '# p\n' }), gitProject()]) {
    const r = await run(['docs', 'list'], { cwd: root });
    assert.is(r.code, 0, r.stderr);
    assert.equal(r.json.docs.map((d: { path: string; kind: string }) => `${d.kind} ${d.path}`), ['changelog CHANGELOG.md', 'readme README.md', 'adr docs/adr/0001-use-postgres.md', 'doc docs/guide.md', 'prd docs/prd/checkout.md', 'spec docs/specs/api-v2.md']);
    assert.is(r.json.planning_count, 3);
    assert.equal(r.json.precedence, ['adr', 'spec', 'prd', 'doc']);
    assert.is(r.json.docs.find((d: { path: string }) => d.path === 'docs/adr/0001-use-postgres.md').title, 'ADR 1: Use Postgres');
    const under = await run(['docs', 'list', '--under', 'docs/adr'], { cwd: root });
    assert.equal(under.json.docs.map((d: { path: string }) => d.path), ['docs/adr/0001-use-postgres.md']);
  }
  const r = await run(['docs', 'list', '--under', '../elsewhere'], { cwd: project(FILES) });
  assert.is(r.code, 1);
  assert.match(r.stderr, /--under: "\.\.\/elsewhere" contains "\.\."/);
});

s('should name the documents that mention a file changed since a commit, by path or unique file name', async () => {
  const root = gitProject();
  const base = sh(root, 'rev-parse', 'HEAD').trim();
  fs.writeFileSync(path.join(root, 'src/server.ts'), 'export const port = 1;\n');
  fs.writeFileSync(path.join(root, 'src/routes.ts'), 'export const routes = [];\n');
  fs.writeFileSync(path.join(root, 'docs/prd/checkout.md'), '# Checkout PRD\n\nEdited.\n');
  sh(root, 'commit', '-q', '-am', 'change');
  const r = await run(['docs', 'stale', '--since', base.slice(0, 10)], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.changed, ['src/routes.ts', 'src/server.ts']);
  assert.equal(r.json.docs_changed, ['docs/prd/checkout.md']);
  assert.equal(r.json.stale, [
    { path: 'README.md', kind: 'readme', mentions: [{ file: 'src/server.ts', by: 'path' }] },
    { path: 'docs/specs/api-v2.md', kind: 'spec', mentions: [{ file: 'src/routes.ts', by: 'name' }] },
  ]);
  let bad = await run(['docs', 'stale', '--since', '--output=/tmp/x'], { cwd: root });
  assert.is(bad.code, 2, 'an option is never taken for a ref');
  assert.match(bad.stderr, /--since/);
  bad = await run(['docs', 'stale', '--since', 'no-such-ref'], { cwd: root });
  assert.match(bad.stderr, /--since "no-such-ref" is not a commit/);
});

s('should match a file name only as a whole token and only when unique among the changes', () => {
  assert.equal(mentions('see app.ts and lib/app.ts', ['src/app.ts', 'lib/app.ts']), [{ file: 'lib/app.ts', by: 'path' }]);
  assert.equal(mentions('myapp.ts is not app.ts.bak', ['src/app.ts']), []);
  assert.equal(mentions('Edit app.ts.', ['src/app.ts']), [{ file: 'src/app.ts', by: 'name' }]);
});

s.run();
