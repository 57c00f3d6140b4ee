// The npm package as a user gets it: `npm pack` (its prepack compiles compiler/lib/),
// the tarball installed into an empty folder outside the repository with its
// dependencies linked from this checkout's node_modules (no network, no npm
// cache needed), and the installed `npx gsd-build` run there. Its bundles,
// site and release are byte-identical to this repository's; it starts without
// a TypeScript loader; it ships no tests, goldens or fixtures.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { snapshotTree, temporaryDir } from './fixture-support.ts';

const pkg = suite('package');
const root = temporaryDir('package');
const app = path.join(root, 'app');
const ENV = { ...process.env, GSD_BUILD_NO_TYPES: '1', GSD_SIGNING_KEY: '', TZ: 'UTC', npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: ENV });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
}

/** The tarball's dependencies and theirs, as folders of this checkout's node_modules. */
function dependencyClosure(manifest: { dependencies?: Record<string, string> }): string[] {
  const seen = new Set<string>();
  const queue = Object.keys(manifest.dependencies ?? {});
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    const dir = path.join(REPO_ROOT, 'node_modules', name);
    if (!existsSync(dir)) continue; // an optional dependency for another platform
    seen.add(name);
    const own = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    queue.push(...Object.keys({ ...own.dependencies, ...own.optionalDependencies, ...own.peerDependencies }));
  }
  return [...seen].sort();
}

let tarballFiles: string[] = [];

/** Files of a built tree that differ from golden/ (built code is kept there as `<file>.sha256`), and files either side lacks. */
function differencesFromGolden(out: string): string[] {
  const built = snapshotTree(out);
  const golden = snapshotTree(path.join(REPO_ROOT, 'golden'));
  const differences: string[] = [];
  const matched = new Set<string>();
  for (const [file, entry] of golden) {
    if (file.endsWith('/')) continue;
    const digestOf = file.endsWith('.sha256') ? file.slice(0, -'.sha256'.length) : null;
    const actual = built.get(digestOf ?? file);
    matched.add(digestOf ?? file);
    if (!actual) differences.push(`missing ${file}`);
    else if (digestOf) {
      const bytes = Buffer.from(actual.bytes, 'base64');
      if (`${createHash('sha256').update(bytes).digest('hex')}  ${bytes.length} bytes\n` !== Buffer.from(entry.bytes, 'base64').toString('utf8')) differences.push(`differs ${digestOf}`);
    } else if (actual.bytes !== entry.bytes) differences.push(`differs ${file}`);
  }
  for (const file of built.keys()) if (!file.endsWith('/') && !matched.has(file)) differences.push(`orphaned ${file}`);
  return differences;
}

pkg('should pack with npm pack and install into an empty folder outside the repository', async () => {
  // The declarations cost a type check of the whole API; the typecheck step of npm test covers the same code.
  const packed = await run('npm', ['pack', '--json', '--pack-destination', root], REPO_ROOT);
  assert.is(packed.status, 0, packed.stderr);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarballFiles = info!.files.map((file) => file.path);
  const installed = path.join(app, 'node_modules', 'gsd-build');
  mkdirSync(installed, { recursive: true });
  writeFileSync(path.join(app, 'package.json'), '{ "private": true }\n');
  const untar = spawnSync('tar', ['-xzf', path.join(root, info!.filename), '-C', installed, '--strip-components=1']);
  assert.is(untar.status, 0, String(untar.stderr));
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string> };
  for (const name of dependencyClosure(manifest)) {
    mkdirSync(path.dirname(path.join(app, 'node_modules', name)), { recursive: true });
    symlinkSync(path.join(REPO_ROOT, 'node_modules', name), path.join(app, 'node_modules', name), 'dir');
  }
  mkdirSync(path.join(app, 'node_modules', '.bin'));
  symlinkSync(path.join('..', 'gsd-build', manifest.bin['gsd-build']!), path.join(app, 'node_modules', '.bin', 'gsd-build'));
  assert.ok(existsSync(path.join(installed, 'compiler', 'lib', 'gsd-build.js')));
});

pkg('should ship the compiler, targets, schemas, corpus and layouts, and no tests, goldens, fixtures or TypeScript of the compiler', () => {
  for (const needed of ['compiler/lib/gsd-build.js', 'compiler/lib/index.js', 'schemas/target.schema.json', 'targets/claude/target.json', 'compiler/data/layouts/gsd-build.json', 'source/runtime/build.ts', 'source/commands/gsd/plan-phase.md']) {
    assert.ok(tarballFiles.includes(needed), `${needed} is in the tarball`);
  }
  const unwanted = tarballFiles.filter((file) => /(?:^|\/)(?:test|tests|fixtures|golden)\/|\.test\.ts$/.test(file) || (file.startsWith('compiler/') && file.endsWith('.ts')));
  assert.equal(unwanted, []);
});

pkg('should run the installed gsd-build: --all, --all --source, check, site and release, byte-identical to this repository', async () => {
  const corpus = path.join(root, 'corpus-copy');
  cpSync(path.join(REPO_ROOT, 'source'), corpus, { recursive: true });
  const npx = (args: string[]) => run('npx', ['--offline', 'gsd-build', ...args], app);
  const repo = (args: string[]) => run(process.execPath, [path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), ...args], REPO_ROOT);
  // check builds the bundled corpus and compares it with the goldens; the copy's --all output is compared with them below.
  const [help, fromCopy, check, site, release, repoSite, repoRelease] = await Promise.all([
    npx(['--help']),
    npx(['--all', '--source', corpus, '--out', 'out-copy']),
    npx(['check', '--golden', path.join(REPO_ROOT, 'golden')]),
    npx(['site', '--out', 'out-site']),
    npx(['release', '--out', 'out-release']),
    repo(['site', '--out', path.join(root, 'ref-site')]),
    repo(['release', '--out', path.join(root, 'ref-release')]),
  ]);
  assert.is(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: gsd-build/);
  for (const [label, result] of Object.entries({ fromCopy, check, site, release, repoSite, repoRelease })) assert.is(result.status, 0, `${label}: ${result.stderr}`);
  assert.match(check.stdout, /golden check passed/);
  assert.equal(differencesFromGolden(path.join(app, 'out-copy')), []);
  assert.equal([...snapshotTree(path.join(app, 'out-site'))], [...snapshotTree(path.join(root, 'ref-site'))]);
  assert.equal([...snapshotTree(path.join(app, 'out-release'))], [...snapshotTree(path.join(root, 'ref-release'))]);
  assert.ok(readdirSync(path.join(app, 'out-release')).some((file) => file.endsWith('.zip')));
});

pkg('should start without a TypeScript loader', () => {
  const bin = path.join(app, 'node_modules', 'gsd-build', 'compiler', 'lib', 'gsd-build.js');
  const text = readFileSync(bin, 'utf8');
  assert.ok(text.startsWith('#!/usr/bin/env node\n'));
  assert.not.match(text, /ts-hooks|register\(/);
  assert.not.ok(existsSync(path.join(app, 'node_modules', 'gsd-build', 'compiler', 'bin')));
  // The programmatic API as the README shows it, imported by name from the installed package, and run.
  const api = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "import { compile, emitBundles, DEFAULT_TARGETS_DIR } from 'gsd-build'; import { fileURLToPath } from 'node:url'; const c = await compile({ sourceDir: fileURLToPath(new URL('../../source', import.meta.resolve('gsd-build'))) }); const e = emitBundles(c, [{ target: 'claude', scope: 'global' }]); console.log(typeof DEFAULT_TARGETS_DIR, e.bundles.get('claude/global').size > 0, e.diagnostics.filter((d) => d.severity !== 'warning').length);"],
    { cwd: app, encoding: 'utf8', env: ENV },
  );
  assert.is(api.status, 0, api.stderr);
  assert.is(api.stdout, 'string true 0\n');
  rmSync(root, { recursive: true, force: true });
});

// The pack above skips the declarations (GSD_BUILD_NO_TYPES) to stay fast; they are built here once,
// into a temporary folder, with the same config prepack uses, so a type the API cannot name fails a test.
pkg('should build the API\'s TypeScript declarations as prepack does', () => {
  const out = temporaryDir('package-types');
  const tsc = spawnSync(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.types.json', '--outDir', out], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.is(tsc.status, 0, tsc.stdout + tsc.stderr);
  assert.ok(existsSync(path.join(out, 'compiler', 'index.d.ts')));
  rmSync(out, { recursive: true, force: true });
});

pkg.run();
