// The runner as CI runs it, on a tree of its own: every pass, failure, broken
// setup and file that does not load is counted in the closing line, and any
// failure (or no test at all) fails the run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { temporaryDir } from './fixture-support.ts';

const harness = suite('harness');
const HARNESS = pathToFileURL(path.join(REPO_ROOT, 'compiler/test/harness.ts')).href;

function runTree(files: Record<string, string>, ...filters: string[]) {
  const root = temporaryDir('runner');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/run-tests.mjs'), ...filters], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, GSD_TEST_ROOT: root } });
  const lines = run.stdout.trimEnd().split('\n');
  return { status: run.status, last: lines[lines.length - 1], stderr: run.stderr };
}

const test = (body: string) => `import { suite, assert } from ${JSON.stringify(HARNESS)};\nconst s = suite('t');\n${body}\ns.run();\n`;

harness('should count passes and failures, a setup that throws as a failure, and a file that does not load, and fail the run', () => {
  const run = runTree({
    'compiler/a.test.ts': test(`s('should pass', () => assert.is(1 + 1, 2));\ns('should fail', () => assert.is(1 + 1, 3));`),
    'compiler/b.test.ts': test(`s.before(() => { throw new Error('broken setup'); });\ns('should be skipped', () => {});`),
    'source/c.test.ts': `import './missing-module.ts';\n`,
    'scripts/d.test.ts': test(`s('should pass too', async () => { await new Promise((r) => setTimeout(r, 10)); });`),
  });
  assert.is(run.last, '2 passed, 3 failed', run.stderr);
  assert.is(run.status, 1);
  assert.match(run.stderr, /source\/c\.test\.ts: failed to load/);
});

harness('should pass a run with only passing tests, and fail one that runs no test at all', () => {
  const passing = runTree({ 'compiler/a.test.ts': test(`s('should pass', () => assert.ok(true));`) });
  assert.is(passing.last, '1 passed, 0 failed', passing.stderr);
  assert.is(passing.status, 0);
  const none = runTree({ 'compiler/a.test.ts': test(`s('should pass', () => assert.ok(true));`) }, 'no-such-file');
  assert.is(none.last, '0 passed, 0 failed');
  assert.is(none.status, 1);
  assert.match(none.stderr, /no test ran/);
});

harness.run();
