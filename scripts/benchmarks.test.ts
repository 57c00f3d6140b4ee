// The benchmark scripts the README points to must keep running: the synthetic
// corpus bench-build scales is deterministic and builds without a diagnostic
// (or the scale figures time error paths), and bench-startup prints its
// ratios. Never a claim about speed: only that each runs and says what it
// measured.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, suite } from '../compiler/test/harness.ts';
import { runCli, snapshotTree, temporaryDir } from '../compiler/test/fixture-support.ts';

const benchmarks = suite('benchmark scripts');
const SCRIPTS = path.dirname(fileURLToPath(import.meta.url));

benchmarks('should generate the same synthetic corpus twice, and build it for a target without a diagnostic', () => {
  const dir = temporaryDir('gen-corpus');
  for (const name of ['a', 'b']) {
    const run = spawnSync(process.execPath, [path.join(SCRIPTS, 'gen-corpus.mjs'), '2', path.join(dir, name)], { encoding: 'utf8' });
    assert.is(run.status, 0, run.stderr);
  }
  const corpus = snapshotTree(path.join(dir, 'a'));
  // Two scales of 37 units: five documents each at 1x, four past it (no command).
  assert.is([...corpus.keys()].filter((file) => file.endsWith('.md')).length, 37 * 5 + 37 * 4);
  assert.equal(snapshotTree(path.join(dir, 'b')), corpus);
  const build = runCli(['--target', 'claude', '--scope', 'global', '--source', path.join(dir, 'a'), '--out', path.join(dir, 'out'), '--no-cache']);
  assert.is(build.status, 0, build.stderr);
  assert.not.match(build.stderr, /\b(?:error|warning) [a-z-]+ /);
  assert.match(build.stdout, /^built 1 bundle\(s\), \d+ files/m);
});

benchmarks('should run bench-startup once and print the eager / lazy ratio of each start', () => {
  const run = spawnSync(process.execPath, [path.join(SCRIPTS, 'bench-startup.mjs'), '1'], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const ratios = run.stdout.slice(run.stdout.indexOf('ratio eager / lazy'));
  for (const start of ['--version', '--help', 'check --help']) assert.match(ratios, new RegExp(`\\n  ${start.replace(/-/g, '\\-')}\\s+\\d+\\.\\d{2}x\\n`), start);
});

benchmarks.run();
