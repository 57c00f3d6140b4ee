// Conformance on a corpus nobody here wrote: the published upstream package
// (@opengsd/gsd-core, a pinned dev dependency) compiles for every target and
// scope with zero errors. Its own defects are warnings its layout declares;
// they are counted and printed.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';
// @ts-expect-error: a plain .mjs script, typed by its use here
import { measure, surfaceItem, THRESHOLD } from '../../scripts/upstream-coverage.mjs';

interface CoverageRow {
  runtime: string;
  target: string;
  scope: string;
  covered: number;
  total: number;
  share: number;
  missing: string[];
}

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
    const compactAgents = readdirSync(path.join(UPSTREAM, 'agents')).filter((file) => file.endsWith('.compact.md')).map((file) => `agents/${file}`);
    assert.ok(compactAgents.length >= 20, `expected upstream's compact agents, found ${compactAgents.length}`);
    for (const target of built) {
      for (const scope of readdirSync(path.join(out, target))) {
        const manifest = JSON.parse(readFileSync(path.join(out, target, scope, 'gsd-file-manifest.json'), 'utf8')) as { root: string; files: { path: string }[] };
        const root = manifest.root;
        // A compact agent is read through the seam, never listed as an agent of the runtime: none lands outside gsd-core/.
        const stray = manifest.files.map((entry) => entry.path).filter((file) => file.endsWith('.compact.md') && !file.startsWith(`${root}/gsd-core/`));
        assert.equal(stray, [], `${target}/${scope}: compact files outside ${root}/gsd-core/`);
        for (const file of compact) {
          assert.ok(existsSync(path.join(out, target, scope, root, file)), `${target}/${scope}: ${file}`);
          assert.ok(existsSync(path.join(out, target, scope, root, file.replace(/\.compact\.md$/, '.md'))), `${target}/${scope}: the canonical sibling of ${file}`);
        }
        // Every compact agent its agent-skills seam can serve, under gsd-core/agents/ (where its global installs put it too).
        for (const file of compactAgents) assert.ok(existsSync(path.join(out, target, scope, root, 'gsd-core', file)), `${target}/${scope}: gsd-core/${file}`);
      }
    }
    // Command and agent surface coverage against the installer's real output, per runtime and scope.
    const rows = measure({ built: out }) as CoverageRow[];
    assert.is(rows.length, 30, 'the installer\'s 15 runtimes x 2 scopes');
    console.log('  upstream surface coverage (items shipped / items the installer writes):');
    for (const row of rows) console.log(`    ${row.runtime}/${row.scope} -> ${row.target}: ${row.covered}/${row.total} (${(row.share * 100).toFixed(1)}%)`);
    for (const row of rows) {
      assert.ok(row.share >= THRESHOLD, `${row.runtime}/${row.scope}: ${row.covered}/${row.total} is under ${THRESHOLD * 100}%; missing ${row.missing.join(', ')}`);
      // What is not shipped is explained where the target lists its deliberate differences.
      const readme = readFileSync(path.join(REPO_ROOT, 'targets', row.target, 'README.md'), 'utf8');
      for (const item of row.missing) assert.ok(readme.includes(item.slice(item.indexOf(':') + 1)), `${row.target}/README.md does not explain the missing ${item}`);
    }
    assert.ok(rows.some((row) => row.total >= 100), 'the installer wrote its commands and agents');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

upstream('should reduce installed and built files to the same surface items', () => {
  assert.is(surfaceItem('.claude/skills/gsd-plan-phase/SKILL.md'), 'command:plan-phase');
  assert.is(surfaceItem('.claude/commands/gsd/plan-phase.md'), 'command:plan-phase');
  assert.is(surfaceItem('.config/kilo/command/gsd-plan-phase.md'), 'command:plan-phase');
  assert.is(surfaceItem('.hermes/skills/gsd/gsd-ns-workflow/skills/verify-work/SKILL.md'), 'command:verify-work');
  assert.is(surfaceItem('.codex/agents/gsd-planner.toml'), 'agent:gsd-planner');
  assert.is(surfaceItem('.claude/agents/gsd-roadmapper.compact.md'), 'agent:gsd-roadmapper.compact');
  assert.is(surfaceItem('.claude/gsd-core/agents/gsd-roadmapper.compact.md'), 'agent:gsd-roadmapper.compact');
  // Payload, hooks and scripts are not surface.
  assert.is(surfaceItem('.claude/gsd-core/agents/gsd-roadmapper.md'), null);
  assert.is(surfaceItem('.claude/gsd-core/workflows/plan-phase.md'), null);
  assert.is(surfaceItem('.claude/hooks/gsd-statusline.js'), null);
  assert.is(surfaceItem('.claude/agents/someone-elses.md'), null);
});

upstream.run();
