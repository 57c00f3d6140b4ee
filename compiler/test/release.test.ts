// Release zips: built twice (different time zone, locale and umask) they are
// byte-identical; entries are sorted under one top folder with one fixed
// timestamp and fixed modes; SHA256SUMS and release-manifest.json agree with
// the zips; and a zip with an unsafe entry is refused whole.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import { compareText } from '../diagnostics.ts';
import { readZip, unsafeEntryName, UnsafeZipError } from '../release/read-zip.ts';
import { zipTree } from '../release/release.ts';
import { suite, assert } from './harness.ts';
import { releasedZipCount, runCli, temporaryDir } from './fixture-support.ts';

const release = suite('release');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
let first = '';
/** A zip per target scope for full and for each profile source/profiles.json releases beside it. */
const count = await releasedZipCount();

release('should build byte-identical zips twice, whatever TZ, locale or umask, and say they are unsigned without a signing key', () => {
  first = temporaryDir('release1');
  const second = temporaryDir('release2');
  // No key, whatever the environment running the tests holds: no --sign-key, and GSD_SIGNING_KEY empty, then unset
  // (spawn leaves out a variable whose value is undefined).
  const unsigned = '(SHA256SUMS, release-manifest.json); unsigned: no --sign-key or GSD_SIGNING_KEY, so SHA256SUMS proves integrity only, not origin\n';
  const a = runCli(['release', '--out', first], { env: { TZ: 'UTC', LANG: 'C', LC_ALL: 'C', GSD_SIGNING_KEY: '' }, umask: '022' });
  assert.is(a.status, 0, a.stderr);
  assert.match(a.stdout, new RegExp(`released ${count} zip\\(s\\) and the Claude Code plugin gsd-claude-plugin-[^ ]+\\.zip,`));
  assert.ok(a.stdout.endsWith(unsigned), a.stdout);
  const b = runCli(['release', '--out', second], { env: { TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8', GSD_SIGNING_KEY: undefined as unknown as string }, umask: '077' });
  assert.is(b.status, 0, b.stderr);
  assert.ok(b.stdout.endsWith(unsigned), b.stdout);
  const files = readdirSync(first).sort();
  assert.ok(!files.includes('SHA256SUMS.minisig'), 'no signature beside SHA256SUMS');
  assert.equal(readdirSync(second).sort(), files);
  // One zip per bundle, and the Claude Code marketplace's.
  assert.is(files.filter((file) => file.endsWith('.zip')).length, count + 1);
  for (const file of files) assert.is(sha256(readFileSync(path.join(second, file))), sha256(readFileSync(path.join(first, file))), file);
});

release('should list every zip in SHA256SUMS and release-manifest.json with its count, size and digest', async () => {
  const manifest = JSON.parse(readFileSync(path.join(first, 'release-manifest.json'), 'utf8')) as { version: string; zips: { file: string; target: string; scope: string; profile?: string; files: number; bytes: number; sha256: string }[]; plugin: { file: string; files: number; bytes: number; sha256: string } };
  const sums = readFileSync(path.join(first, 'SHA256SUMS'), 'utf8').trimEnd().split('\n');
  assert.is(manifest.zips.length, count);
  assert.is(sums.length, count + 1);
  // The plugin's zip last: the marketplace tree under one folder named after it.
  const pluginBytes = readFileSync(path.join(first, manifest.plugin.file));
  assert.is(manifest.plugin.file, `gsd-claude-plugin-${manifest.version}.zip`);
  assert.is(sums[count], `${sha256(pluginBytes)}  ${manifest.plugin.file}`);
  assert.is(manifest.plugin.bytes, pluginBytes.length);
  const pluginEntries = (await readZip(pluginBytes)).filter((entry) => !entry.directory).map((entry) => entry.name);
  assert.is(pluginEntries.length, manifest.plugin.files);
  for (const file of ['.claude-plugin/marketplace.json', 'plugins/gsd/.claude-plugin/plugin.json', 'plugins/gsd/hooks/hooks.json']) assert.ok(pluginEntries.includes(`gsd-claude-plugin-${manifest.version}/${file}`), file);
  for (const [index, zip] of manifest.zips.entries()) {
    const bytes = readFileSync(path.join(first, zip.file));
    assert.is(zip.file, `gsd-${zip.target}-${zip.scope}-${zip.profile ? `${zip.profile}-` : ''}${manifest.version}.zip`);
    assert.is(zip.bytes, bytes.length);
    assert.is(zip.sha256, sha256(bytes));
    assert.is(sums[index], `${zip.sha256}  ${zip.file}`);
  }
  assert.equal(manifest.zips.filter((zip) => zip.profile === 'core').length, count / 2, 'a core zip per target and scope');
  assert.ok(manifest.zips.every((zip) => zip.profile === undefined || zip.profile === 'core'));
  const core = manifest.zips.find((zip) => zip.target === 'claude' && zip.scope === 'global' && zip.profile === 'core')!;
  const coreManifest = (await readZip(readFileSync(path.join(first, core.file)))).find((entry) => entry.name.endsWith('/gsd-file-manifest.json'))!;
  assert.match(coreManifest.contents.toString('utf8'), /"profile": "core"/);
  const claude = manifest.zips.find((zip) => zip.target === 'claude' && zip.scope === 'global' && zip.profile === undefined)!;
  const entries = await readZip(readFileSync(path.join(first, claude.file)));
  const folder = claude.file.replace(/\.zip$/, '');
  const files = entries.filter((entry) => !entry.directory);
  assert.is(files.length, claude.files);
  assert.equal(entries.map((entry) => entry.name), entries.map((entry) => entry.name).sort(compareText), 'sorted');
  assert.ok(entries.every((entry) => entry.name.startsWith(`${folder}/`)), 'one top folder');
  assert.ok(entries.every((entry) => entry.dosDate === entries[0]!.dosDate && entry.dosTime === entries[0]!.dosTime), 'one timestamp');
  const manifestEntry = files.find((entry) => entry.name === `${folder}/gsd-file-manifest.json`)!;
  const listed = (JSON.parse(manifestEntry.contents.toString('utf8')) as { files: { path: string; sha256: string; mode: string }[] }).files;
  const modes = new Map(listed.map((file) => [`${folder}/${file.path}`, parseInt(file.mode, 8)]));
  assert.is(modes.get(`${folder}/.claude/gsd-core/bin/gsd-tools.cjs`), 0o755);
  for (const entry of entries) assert.is(entry.mode, entry.directory ? 0o755 : (modes.get(entry.name) ?? 0o644), entry.name);
  for (const file of listed) assert.is(sha256(files.find((entry) => entry.name === `${folder}/${file.path}`)!.contents), file.sha256, file.path);
});

/** A zip holding `names`, written with placeholders of the same length, then patched: yazl itself refuses unsafe names. */
async function zipWith(names: string[]): Promise<Buffer> {
  const placeholders = names.map((name, index) => `${String.fromCharCode(65 + index).repeat(name.length)}`);
  const zip = new yazl.ZipFile();
  for (const placeholder of placeholders) zip.addBuffer(Buffer.from('x'), placeholder, { mtime: new Date(2000, 0, 1), forceDosTimestamp: true });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  let text = Buffer.concat(chunks).toString('latin1');
  for (const [index, name] of names.entries()) text = text.replaceAll(placeholders[index]!, name);
  return Buffer.from(text, 'latin1');
}

release('should refuse a zip whose entries could land outside its folder, reading nothing', async () => {
  assert.equal(await readZip(await zipWith(['gsd-x/a.md', 'gsd-x/b/c.md'])).then((entries) => entries.map((entry) => entry.name)), ['gsd-x/a.md', 'gsd-x/b/c.md']);
  for (const [name, why] of [
    ['gsd-x/../../evil.md', '".." segment'],
    ['/etc/evil.md', 'absolute path'],
    ['C:/evil.md', 'drive letter'],
    ['gsd-x\\..\\evil', 'backslash'],
    ['gsd-x//evil.md', 'empty'],
  ] as const) {
    assert.match(unsafeEntryName(name) ?? '', why, name);
    try {
      await readZip(await zipWith(['gsd-x/ok.md', name]));
      assert.unreachable(`${name} was accepted`);
    } catch (error) {
      assert.instance(error, UnsafeZipError, `${name}: ${(error as Error).message}`);
    }
  }
  await readZip(await zipWith(['gsd-x/a.md', 'gsd-y/b.md'])).then(
    () => assert.unreachable('two top folders'),
    (error: Error) => assert.match(error.message, /2 top folders/),
  );
});

release('should zip a tree deterministically in memory', async () => {
  const tree = new Map([
    ['b.md', { contents: 'b\n' }],
    ['a/run.js', { contents: '#!/usr/bin/env node\n', executable: true }],
  ]);
  const one = await zipTree('gsd-t', tree);
  const two = await zipTree('gsd-t', new Map([...tree].reverse()));
  assert.is(sha256(one), sha256(two));
  assert.equal((await readZip(one)).map((entry) => [entry.name, entry.mode.toString(8)]), [
    ['gsd-t/', '755'],
    ['gsd-t/a/', '755'],
    ['gsd-t/a/run.js', '755'],
    ['gsd-t/b.md', '644'],
  ]);
});

release('should install a release zip with gsd-build install, and refuse an unsafe zip writing nothing', async () => {
  const home = temporaryDir('home');
  const project = temporaryDir('project');
  const env = { HOME: home, GSD_NO_CODE_CACHE: '1' };
  const evil = path.join(temporaryDir('evil'), 'gsd-evil.zip');
  writeFileSync(evil, await zipWith(['gsd-x/gsd-file-manifest.json', 'gsd-x/../../evil.md']));
  let result = runCli(['install', '--zip', evil], { cwd: project, env });
  assert.is(result.status, 1);
  assert.match(result.stderr, /refused: entry "gsd-x\/\.\.\/\.\.\/evil\.md" has a "\.\." segment; nothing was written/);
  assert.equal([readdirSync(home), readdirSync(project)], [[], []]);
  result = runCli(['install', '--target', 'opencode', '--dry-run', '--raw'], { cwd: project, env });
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /^Dry run: install GSD \S+ for opencode \(global\)/);
  assert.equal(readdirSync(home), []);
  const zip = readdirSync(first).find((file) => file.startsWith('gsd-claude-global-'))!;
  result = runCli(['install', '--zip', path.join(first, zip), '--raw'], { cwd: project, env });
  assert.is(result.status, 0, result.stderr);
  assert.ok(existsSync(path.join(home, '.claude/gsd-core/bin/gsd-tools.cjs')));
  const removed = spawnSync(process.execPath, [path.join(home, '.claude/gsd-core/bin/gsd-tools.cjs'), 'uninstall'], { cwd: project, env: { ...env, PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  assert.is(removed.status, 0, removed.stderr);
  assert.equal(readdirSync(home), []);
});

release.run();
