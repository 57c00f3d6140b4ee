// Conformance on the predecessor package's published corpus (get-shit-done-cc,
// payload under get-shit-done/): the built-in layout
// compiler/data/layouts/get-shit-done-cc.json is detected, its
// @~/.claude/get-shit-done/... includes resolve, and every target and scope
// builds with zero errors. The package is a dev dependency pinned in
// package.json (its integrity in package-lock.json; its own runtime
// dependencies are overridden by scripts/empty-package, since only its files
// are read) and the corpus is read where npm installed it.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { MINI_CORPUS, runCli, temporaryDir } from './fixture-support.ts';
import { extractReferences } from '../load/extract-references.ts';
import { scanLines } from '../load/scan-lines.ts';
import { foreignRoots } from '../check/check-emitted.ts';
import { loadTargets } from '../targets/load-targets.ts';
import { loadLayout, parseLayout } from '../load/layout.ts';

const NAME = 'get-shit-done-cc';

const predecessor = suite('predecessor corpus');

/** The installed dev dependency's folder, checked to be the release package.json pins. */
function installedCorpus(): { root: string; pinned: string } {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const pinned = manifest.devDependencies[NAME];
  assert.ok(pinned && /^\d+\.\d+\.\d+$/.test(pinned), `expected ${NAME} pinned to an exact version in package.json's devDependencies, found ${pinned}`);
  const root = path.join(REPO_ROOT, 'node_modules', NAME);
  assert.ok(existsSync(path.join(root, 'package.json')), `expected ${NAME}@${pinned} installed in node_modules (run npm ci)`);
  const installed = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  assert.is(installed, pinned, `node_modules holds ${NAME}@${installed}, package.json pins ${pinned} (run npm ci)`);
  return { root, pinned: pinned! };
}

predecessor('should compile the predecessor corpus for every target and scope with zero errors', () => {
  const work = temporaryDir('predecessor');
  try {
    const { root: corpus, pinned } = installedCorpus();
    assert.ok(existsSync(path.join(corpus, 'get-shit-done/bin/gsd-tools.cjs')), 'expected the payload under get-shit-done/');
    const out = path.join(work, 'out');
    const result = runCli(['--all', '--source', corpus, '--out', out]);
    const lines = result.stderr.split('\n');
    const warnings = lines.filter((line) => / warning [a-z-]+ /.test(line));
    const errors = lines.filter((line) => / error [a-z-]+ /.test(line));
    console.log(`\n  predecessor ${NAME}@${pinned}: ${warnings.length} warning(s), ${errors.length} error(s)`);
    assert.equal(errors.slice(0, 5), [], 'errors on the predecessor corpus');
    assert.is(result.status, 0, result.stderr.slice(-2000));
    assert.match(result.stderr, /defects of the get-shit-done-cc corpus that its layout declares/);
    // Its @-includes name the payload folder: every one resolves (none is even a warning).
    assert.not.match(result.stderr, /ref-include-unresolved/);
    const built = readdirSync(out).filter((name) => !name.startsWith('.'));
    const targets = readdirSync(path.join(REPO_ROOT, 'targets')).filter((name) => existsSync(path.join(REPO_ROOT, 'targets', name, 'target.json')));
    assert.equal(built.sort(), targets.sort());
    // The payload ships under its own folder name, its runtime CLI verbatim, with the section manifest and VERSION beside it.
    const claude = path.join(out, 'claude/global/.claude');
    assert.ok(existsSync(path.join(claude, 'get-shit-done/bin/gsd-tools.cjs')));
    assert.ok(existsSync(path.join(claude, 'get-shit-done/workflows/section-manifest.json')));
    assert.ok(existsSync(path.join(claude, 'get-shit-done/VERSION')));
    assert.ok(existsSync(path.join(claude, 'hooks/gsd-context-monitor.js')));
    assert.not.ok(existsSync(path.join(claude, 'gsd-core/workflows')), 'nothing of the payload lands under gsd-core/');
    // Its installer registers its hooks in code; the layout's hooks.entries register the Node ones.
    const settings = readFileSync(path.join(claude, 'settings.json'), 'utf8');
    for (const script of ['gsd-check-update.js', 'gsd-prompt-guard.js', 'gsd-read-guard.js', 'gsd-workflow-guard.js', 'gsd-context-monitor.js', 'gsd-read-injection-scanner.js']) {
      assert.ok(settings.includes(`"node \\"$HOME/.claude/hooks/${script}\\""`), script);
      assert.ok(existsSync(path.join(claude, 'hooks', script)), script);
    }
    // Its shell hooks ship but are registered nowhere; the layout says why for each one the corpus has.
    const layoutText = readFileSync(path.join(REPO_ROOT, 'compiler/data/layouts/get-shit-done-cc.json'), 'utf8');
    const shellHooks = readdirSync(path.join(corpus, 'hooks')).filter((file) => file.endsWith('.sh'));
    assert.ok(shellHooks.length > 0, 'expected the corpus\'s shell hooks');
    for (const script of shellHooks) {
      assert.ok(existsSync(path.join(claude, 'hooks', script)), script);
      assert.ok(layoutText.includes(script), `${script}: the layout does not say why it is not registered`);
      for (const target of built) {
        for (const registry of ['settings.json', 'hooks.json', 'config.toml', 'hooks/hooks.json']) {
          for (const root of readdirSync(path.join(out, target, 'global'), { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
            const file = path.join(out, target, 'global', root.name, registry);
            if (existsSync(file)) assert.not.ok(readFileSync(file, 'utf8').includes(script), `${target}: ${registry} registers ${script}`);
          }
        }
      }
    }
    // Includes are rewritten to each runtime's root: Codex's skill reads ~/.codex/get-shit-done/...
    const skill = readFileSync(path.join(out, 'codex/global/.agents/skills/gsd-plan-phase/SKILL.md'), 'utf8');
    assert.match(skill, /~\/\.codex\/get-shit-done\/workflows\/plan-phase\.md/);
    assert.not.match(skill, /\.claude\//);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

predecessor('should read paths into the layout\'s payload folder, and only those', () => {
  const text = 'Read ~/.claude/get-shit-done/references/a.md and gsd-core/references/b.md\n@~/.claude/get-shit-done/workflows/c.md\n';
  const reads = (payload?: string) => extractReferences(scanLines(text), payload).edges.map((edge) => `${edge.kind}:${edge.target}`);
  assert.equal(reads('get-shit-done'), ['read:get-shit-done/references/a.md', 'include:get-shit-done/workflows/c.md']);
  assert.equal(reads(), ['read:gsd-core/references/b.md', 'include:get-shit-done/workflows/c.md']);
  assert.is(loadLayout('get-shit-done-cc').payload, 'get-shit-done');
  assert.is(loadLayout('gsd-core').payload, 'gsd-core');
  const bad = parseLayout('my-layout.json', JSON.stringify({ ...JSON.parse(readFileSync(path.join(REPO_ROOT, 'compiler/data/layouts/get-shit-done-cc.json'), 'utf8')), payload: '../up' }, null, 2));
  assert.is(bad.layout, null);
  assert.match(bad.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`).join('\n'), /^my-layout\.json:\d+:\d+ layout-schema$/m);
});

predecessor('should report another runtime\'s payload folder as a leak in a bundle', async () => {
  const { targets } = await loadTargets();
  const codex = targets.find((target) => target.definition.id === 'codex')!;
  const leaks = (payload: string) => [...'see ~/.claude/get-shit-done/x.md and ~/.cursor/get-shit-done/y.md'.matchAll(foreignRoots(codex, targets, payload).pattern)].map((match) => match[0]);
  assert.equal(leaks('get-shit-done'), ['.claude', '~/.cursor/get-shit-done']);
  assert.equal(leaks('gsd-core'), ['.claude']);
});

/** A layout of the upstream kind for the mini corpus moved under `my-payload/`, with the hook registrations given. */
function payloadSandbox(entries: Record<string, unknown>): { source: string; layout: string; out: string; dir: string } {
  const dir = temporaryDir('payload');
  const source = path.join(dir, 'corpus');
  for (const [file, text] of Object.entries(MINI_CORPUS)) {
    const moved = path.join(source, file.replace(/^gsd-core\//, 'my-payload/'));
    mkdirSync(path.dirname(moved), { recursive: true });
    writeFileSync(moved, text.replaceAll('gsd-core/', 'my-payload/'));
  }
  mkdirSync(path.join(source, 'hooks'));
  writeFileSync(path.join(source, 'hooks/gsd-guard.js'), '#!/usr/bin/env node\nprocess.exit(0);\n');
  const upstream = JSON.parse(readFileSync(path.join(REPO_ROOT, 'compiler/data/layouts/gsd-core.json'), 'utf8').replaceAll('gsd-core/', 'my-payload/').replaceAll('gsd-core\\\\/', 'my-payload\\\\/'));
  const layout = path.join(dir, 'my-layout.json');
  writeFileSync(layout, JSON.stringify({ ...upstream, name: 'my-flavour', payload: 'my-payload', detect: [], hooks: { format: 'settings-json', entries } }, null, 2));
  return { source, layout, out: path.join(dir, 'out'), dir };
}

predecessor('should build a corpus whose payload folder its layout names, and register the hooks the layout writes', () => {
  const box = payloadSandbox({ PreToolUse: [{ matcher: 'Bash', hooks: [{ command: 'hooks/gsd-guard.js', timeout: 5 }] }] });
  try {
    const result = runCli(['--target', 'claude', '--scope', 'global', '--source', box.source, '--layout', box.layout, '--out', box.out, '--no-cache']);
    assert.is(result.status, 0, result.stderr.slice(-2000));
    const root = path.join(box.out, 'claude/global/.claude');
    assert.ok(existsSync(path.join(root, 'my-payload/workflows/demo.md')));
    assert.ok(existsSync(path.join(root, 'my-payload/VERSION')));
    assert.match(readFileSync(path.join(root, 'skills/gsd-demo/SKILL.md'), 'utf8'), /^@~\/\.claude\/my-payload\/workflows\/demo\.md$/m);
    assert.match(readFileSync(path.join(root, 'settings.json'), 'utf8'), /"matcher": "Bash"[\s\S]*hooks\/gsd-guard\.js/);
  } finally {
    rmSync(box.dir, { recursive: true, force: true });
  }
});

predecessor('should refuse hook registrations a layout writes for a script the corpus lacks, or for a shell script', () => {
  const missing = payloadSandbox({ Stop: [{ hooks: [{ command: 'hooks/gsd-missing.js' }] }] });
  try {
    const result = runCli(['--target', 'claude', '--scope', 'global', '--source', missing.source, '--layout', missing.layout, '--out', missing.out, '--no-cache']);
    assert.is(result.status, 1, result.stderr.slice(-2000));
    assert.match(result.stderr, /hooks\/gsd-missing\.js:1:1: error layout-schema expected the hook script the my-flavour layout registers for Stop in the corpus, found no such file/);
    assert.not.ok(existsSync(missing.out), 'a failed build writes nothing');
  } finally {
    rmSync(missing.dir, { recursive: true, force: true });
  }
  const shell = JSON.parse(readFileSync(path.join(REPO_ROOT, 'compiler/data/layouts/get-shit-done-cc.json'), 'utf8'));
  shell.hooks.entries.Stop = [{ hooks: [{ command: 'hooks/gsd-session-state.sh' }] }];
  const parsed = parseLayout('shell.json', JSON.stringify(shell, null, 2));
  assert.is(parsed.layout, null);
  assert.match(parsed.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`).join('\n'), /^shell\.json:\d+:\d+ layout-schema .*command/m);
});

predecessor.run();
