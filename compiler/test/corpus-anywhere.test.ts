// A corpus builds wherever it sits: its runtime CLI and hooks are bundled
// with the compiler's esbuild and packages, not the corpus folder's; a corpus
// without runtime code builds and says so; a retired runtime id names its
// sunset and its successor.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';

const anywhere = suite('corpus-anywhere');

anywhere('should build a copy of source/ outside the repository to the same bytes as the goldens', () => {
  // os.tmpdir(): no node_modules, no schemas/ or compiler/ beside it, no package.json above it.
  const copy = path.join(temporaryDir('fork'), 'my-flavour');
  cpSync(path.join(REPO_ROOT, 'source'), copy, { recursive: true });
  const result = runCli(['check', '--source', copy]);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /golden check passed: \d+ bundle\(s\) match golden\//);
  assert.not.match(result.stderr, /\n\s+at /, 'no stack trace');
  rmSync(path.dirname(copy), { recursive: true, force: true });
});

anywhere('should build a corpus without runtime code and say it ships no runtime CLI', () => {
  const root = temporaryDir('no-runtime');
  const corpus = path.join(root, 'corpus');
  mkdirSync(path.join(corpus, 'commands/gsd'), { recursive: true });
  writeFileSync(path.join(corpus, 'commands/gsd/hello.md'), '---\nname: gsd:hello\ndescription: Say hello\nallowed-tools:\n  - Read\n---\n\nSay hello.\n');
  const out = path.join(root, 'out');
  const result = runCli(['--target', 'claude', '--scope', 'local', '--source', corpus, '--out', out]);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /note: .*corpus ships no runtime CLI \(no runtime\/build\.ts, no gsd-tools\.cjs in its payload\): its bundles carry no gsd-tools/);
  rmSync(root, { recursive: true, force: true });
});

anywhere('should report a runtime build failure as a positioned diagnostic, not a stack trace', () => {
  const root = temporaryDir('broken-runtime');
  const corpus = path.join(root, 'corpus');
  cpSync(path.join(REPO_ROOT, 'compiler/test/fixtures/diagnostics/runtime-build/source'), corpus, { recursive: true });
  const result = runCli(['--target', 'claude', '--scope', 'local', '--source', corpus, '--out', path.join(root, 'out')]);
  assert.is(result.status, 1);
  assert.match(result.stderr, /corpus\/runtime\/build\.ts:2:24: error runtime-build expected the corpus's runtime code to bundle, found: Could not resolve "\.\/missing-bundler\.ts"/);
  assert.not.match(result.stderr, /\n\s+at /);
  rmSync(root, { recursive: true, force: true });
});

anywhere('should refuse a retired runtime id with exit 2, naming its sunset date and successor', () => {
  for (const args of [['--target', 'gemini'], ['install', '--target', 'gemini', '--dry-run']]) {
    const result = runCli(args);
    assert.is(result.status, 2, `gsd-build ${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, /expected a current target id, found "gemini": Gemini CLI was retired on 2026-06-18 \(its vendor sunset it; Antigravity CLI is its successor\); use --target antigravity/);
  }
});

anywhere('should read a layout file given with --layout, and report a malformed one with positions, writing nothing', () => {
  const root = temporaryDir('layout');
  const own = path.join(root, 'my-layout.json');
  const builtIn = JSON.parse(readFileSync(path.join(REPO_ROOT, 'compiler/data/layouts/gsd-build.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(own, JSON.stringify({ ...builtIn, name: 'my-layout' }, null, 2));
  const out = path.join(root, 'out');
  const built = runCli(['--target', 'claude', '--scope', 'local', '--layout', own, '--out', out]);
  assert.is(built.status, 0, built.stderr);
  const bad = path.join(root, 'bad.json');
  writeFileSync(bad, '{\n  "name": "bad",\n  "nodes": [{ "pattern": "^x$", "kind": "widget" }]\n}\n');
  const schema = runCli(['--all', '--layout', bad, '--out', path.join(root, 'never')]);
  assert.is(schema.status, 1);
  assert.match(schema.stderr, /bad\.json:1:1: error layout-schema .*expected a "detect" key, found none/);
  assert.match(schema.stderr, /bad\.json:3:41: error layout-schema "nodes\.0\.kind": expected one of/);
  writeFileSync(bad, '{ "name": "bad"\n');
  const syntax = runCli(['--all', '--layout', bad, '--out', path.join(root, 'never')]);
  assert.is(syntax.status, 1);
  assert.match(syntax.stderr, /bad\.json:2:1: error layout-schema expected JSON, found Flow map must end with a \}/);
  assert.not.ok(existsSync(path.join(root, 'never')));
  assert.is(runCli(['--all', '--layout', path.join(root, 'missing.json')]).status, 2);
  rmSync(root, { recursive: true, force: true });
});

anywhere.run();
