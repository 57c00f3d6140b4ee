// The project's build config (gsd-build.json in the folder gsd-build runs in):
// its capabilities are composed in without flags, folders relative to the
// file; a file that breaks schemas/build-config.schema.json, or names a
// capability that is not there, stops the build with a positioned finding.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';

const config = suite('build config');
const SOURCE = path.join(REPO_ROOT, 'source');

config('should compose the capabilities gsd-build.json lists, with no flags', () => {
  const project = temporaryDir('build-config');
  const example = path.relative(project, path.join(REPO_ROOT, 'examples', 'changelog-capability'));
  writeFileSync(path.join(project, 'gsd-build.json'), `${JSON.stringify({ capabilities: [example] }, null, 2)}\n`);
  const built = runCli(['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out', '--no-cache'], { cwd: project });
  assert.is(built.status, 0, built.stderr);
  const manifest = JSON.parse(readFileSync(path.join(project, 'out', 'claude', 'global', 'gsd-file-manifest.json'), 'utf8')) as { capabilities: { id: string; origin: string; source: string }[] };
  // Every first-party capability (source/capabilities/*) comes first, then the one the file names.
  const firstParty = readdirSync(path.join(SOURCE, 'capabilities')).sort().map((id) => `${id} first-party`);
  assert.ok(firstParty.length > 0);
  assert.equal(manifest.capabilities.map((entry) => `${entry.id} ${entry.origin}`), [...firstParty, 'changelog-capability third-party']);
  const host = readFileSync(path.join(project, 'out', 'claude', 'global', '.claude', 'gsd-core', 'workflows', 'execute-phase.md'), 'utf8');
  assert.ok(host.includes('`changelog-capability-execute-post` as included'));
  // Given again with --capability, it is composed once.
  const again = runCli(['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out2', '--no-cache', '--capability', example], { cwd: project });
  assert.is(again.status, 0, again.stderr);
});

config('should take a capability from an npm package installed in the project, by --capability and by gsd-build.json', () => {
  const project = temporaryDir('build-config-npm');
  const installed = path.join(project, 'node_modules', '@acme', 'changelog-capability');
  mkdirSync(path.dirname(installed), { recursive: true });
  cpSync(path.join(REPO_ROOT, 'examples', 'changelog-capability'), installed, { recursive: true });
  writeFileSync(path.join(installed, 'package.json'), '{ "name": "@acme/changelog-capability", "version": "0.1.0" }\n');
  const third = (out: string) =>
    (JSON.parse(readFileSync(path.join(project, out, 'claude', 'global', 'gsd-file-manifest.json'), 'utf8')) as { capabilities: { id: string; origin: string; source: string }[] }).capabilities.filter((entry) => entry.origin === 'third-party');
  const flag = runCli(['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out', '--no-cache', '--capability', '@acme/changelog-capability'], { cwd: project });
  assert.is(flag.status, 0, flag.stderr);
  assert.equal(third('out').map((entry) => `${entry.id} ${entry.source}`), ['changelog-capability npm:@acme/changelog-capability']);
  writeFileSync(path.join(project, 'gsd-build.json'), '{ "capabilities": ["@acme/changelog-capability"] }\n');
  const listed = runCli(['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out2', '--no-cache'], { cwd: project });
  assert.is(listed.status, 0, listed.stderr);
  assert.equal(third('out2').map((entry) => entry.source), ['npm:@acme/changelog-capability']);
  const absent = runCli(['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out3', '--no-cache', '--capability', '@acme/not-installed'], { cwd: project });
  assert.is.not(absent.status, 0);
  assert.not.ok(existsSync(path.join(project, 'out3')), 'nothing written');
  assert.match(absent.stderr, /expected --capability @acme\/not-installed to be a folder or an installed npm package with a capability\.json, found neither/);
});

config('should stop on a gsd-build.json that breaks its schema or names a missing capability, writing nothing', () => {
  const project = temporaryDir('build-config-bad');
  writeFileSync(path.join(project, 'gsd-build.json'), '{\n  "capabilities": "vendor/notes"\n}\n');
  const wrongType = runCli(['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out', '--no-cache'], { cwd: project });
  assert.is(wrongType.status, 1);
  assert.match(wrongType.stderr, /^gsd-build\.json:2:19: error build-config "capabilities": expected an array, found "vendor\/notes"$/m);
  writeFileSync(path.join(project, 'gsd-build.json'), '{\n  "capabilities": ["./nowhere", "Not A Package"],\n  "extra": 1\n}\n');
  const unknown = runCli(['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out', '--no-cache'], { cwd: project });
  assert.match(unknown.stderr, /^gsd-build\.json:3:3: error build-config "extra": expected only the keys the schema defines, found unknown key "extra"$/m);
  writeFileSync(path.join(project, 'gsd-build.json'), '{\n  "capabilities": ["./nowhere", "Not A Package"]\n}\n');
  const missing = runCli(['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out', '--no-cache'], { cwd: project });
  assert.is(missing.status, 1);
  assert.match(missing.stderr, /^gsd-build\.json:2:20: error build-config expected gsd-build\.json capabilities \.\/nowhere to be a folder, found none at .*\/nowhere$/m);
  assert.match(missing.stderr, /^gsd-build\.json:2:33: error build-config expected gsd-build\.json capabilities to name a folder or an npm package, found "Not A Package"$/m);
  assert.match(missing.stderr, /2 error\(s\) in gsd-build\.json; nothing was written\./);
});

config('should report a gsd-build.json that breaks its schema even when the last build is recorded and nothing else changed', () => {
  const project = temporaryDir('build-config-cached');
  const build = ['--target', 'claude', '--scope', 'global', '--source', SOURCE, '--out', 'out', '--cache', 'cache'];
  assert.is(runCli(build, { cwd: project }).status, 0);
  const before = readFileSync(path.join(project, 'out', 'claude', 'global', 'gsd-file-manifest.json'));
  writeFileSync(path.join(project, 'gsd-build.json'), '{\n  "capabilities": "vendor/notes"\n}\n');
  const broken = runCli(build, { cwd: project });
  assert.is(broken.status, 1, broken.stdout);
  assert.match(broken.stderr, /^gsd-build\.json:2:19: error build-config "capabilities": expected an array, found "vendor\/notes"$/m);
  assert.ok(readFileSync(path.join(project, 'out', 'claude', 'global', 'gsd-file-manifest.json')).equals(before), 'the output as it was');
  // The config taken away: the recorded build stands again, nothing to write.
  rmSync(path.join(project, 'gsd-build.json'));
  const again = runCli(build, { cwd: project });
  assert.is(again.status, 0, again.stderr);
  assert.match(again.stdout, /\(0 written\)/);
});

config.run();
