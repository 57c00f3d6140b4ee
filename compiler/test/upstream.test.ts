// Conformance on a corpus nobody here wrote: the published upstream package
// (@opengsd/gsd-core, a pinned dev dependency) compiles for every target and
// scope with zero errors. Its own defects are warnings its layout declares;
// they are counted and printed.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
    // Every .compact.md sibling its compact-content gate can select (steps, modes, templates) sits next to its canonical file in every bundle.
    const compact = (readdirSync(path.join(UPSTREAM, 'gsd-core'), { recursive: true }) as string[]).filter((file) => file.endsWith('.compact.md')).map((file) => `gsd-core/${file.split(path.sep).join('/')}`);
    assert.ok(compact.length >= 3, `expected upstream's compact steps, modes and templates, found ${compact.join(', ')}`);
    for (const target of built) {
      for (const scope of readdirSync(path.join(out, target))) {
        const root = (JSON.parse(readFileSync(path.join(out, target, scope, 'gsd-file-manifest.json'), 'utf8')) as { root: string }).root;
        for (const file of compact) {
          assert.ok(existsSync(path.join(out, target, scope, root, file)), `${target}/${scope}: ${file}`);
          assert.ok(existsSync(path.join(out, target, scope, root, file.replace(/\.compact\.md$/, '.md'))), `${target}/${scope}: the canonical sibling of ${file}`);
        }
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

upstream.run();
