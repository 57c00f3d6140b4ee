// Conformance on a corpus nobody here wrote: the published upstream package
// (@opengsd/gsd-core, a pinned dev dependency) compiles for every target and
// scope with zero errors. Its own defects are warnings its layout declares;
// they are counted and printed.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';

const UPSTREAM = path.join(REPO_ROOT, 'node_modules/@opengsd/gsd-core');
const upstream = suite('upstream corpus');

upstream('should compile the upstream corpus for every target and scope with zero errors', () => {
  assert.ok(existsSync(UPSTREAM), 'the @opengsd/gsd-core dev dependency is not installed (npm ci)');
  const out = temporaryDir('upstream');
  try {
    const result = runCli(['--all', '--source', UPSTREAM, '--out', out]);
    const warnings = result.stderr.split('\n').filter((line) => / warning [a-z-]+ /.test(line));
    const errors = result.stderr.split('\n').filter((line) => / error [a-z-]+ /.test(line));
    console.log(`\n  upstream @opengsd/gsd-core: ${warnings.length} warning(s), ${errors.length} error(s)`);
    const byCode = new Map<string, number>();
    for (const line of warnings) {
      const code = / warning ([a-z-]+) /.exec(line)![1]!;
      byCode.set(code, (byCode.get(code) ?? 0) + 1);
    }
    for (const [code, count] of [...byCode].sort()) console.log(`    ${count} ${code}`);
    assert.equal(errors.slice(0, 5), [], 'errors on the upstream corpus');
    assert.is(result.status, 0, result.stderr.slice(-2000));
    const built = readdirSync(out).filter((name) => !name.startsWith('.'));
    const targets = readdirSync(path.join(REPO_ROOT, 'targets')).filter((name) => existsSync(path.join(REPO_ROOT, 'targets', name, 'target.json')));
    assert.equal(built.sort(), targets.sort());
    // The upstream runtime code ships verbatim; its hooks are registered where the runtime has hooks.
    assert.ok(existsSync(path.join(out, 'claude/global/.claude/gsd-core/bin/gsd-tools.cjs')));
    assert.ok(existsSync(path.join(out, 'claude/global/.claude/settings.json')));
    assert.ok(existsSync(path.join(out, 'claude/global/.claude/hooks/gsd-context-monitor.js')));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

upstream.run();
