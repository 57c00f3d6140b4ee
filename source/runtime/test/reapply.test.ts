// reapply-patches against a real Claude Code install in a scratch home: an
// update saves the user's edits, the verb puts back exactly those whose file
// the release left alone, reports the rest, and never writes a path the
// install record does not list, whatever the backup folder says. Runs that
// are interrupted or repeated finish the job and lose nothing.
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { bundleFromFiles, MANIFEST_FILE } from '../install/bundle.ts';
import { serializeManifest } from '../../../compiler/emit/bundle-manifest.ts';
import { install, PATCHES_DIR, type Options } from '../install/install.ts';
import { crashAfterWrites, isCrash } from '../install/journal.ts';
import { reapplyPatches, META_FILE } from '../install/reapply.ts';
import type { LandingPolicy } from '../install/landing.ts';
import { main } from '../main.ts';
import { tmpDir } from './helpers.ts';
import { builtBundles, manifestOf, sha, treeFiles, type Files } from './install-fixtures.ts';

const s = suite('reapply-patches');
let v1: Files;
let policies: LandingPolicy[];

s.before(async () => {
  const built = await builtBundles();
  v1 = treeFiles(built.bundles.get('claude/global')!);
  policies = built.policies;
});

/** A later release: the version bumped, `change` files rewritten by the release, `drop` files gone. */
function release(files: Files, version: string, change: string[] = [], drop: string[] = []): Files {
  const next = new Map(files);
  const manifest = manifestOf(files);
  const listed = [];
  for (const file of manifest.files) {
    if (drop.includes(file.path)) {
      next.delete(file.path);
      continue;
    }
    if (change.includes(file.path)) {
      const bytes = Buffer.concat([Buffer.from(`<!-- release ${version} -->\n`), Buffer.from(files.get(file.path)!)]);
      next.set(file.path, bytes);
      listed.push({ ...file, sha256: sha(bytes), bytes: bytes.length });
    } else listed.push(file);
  }
  next.set(MANIFEST_FILE, Buffer.from(serializeManifest({ ...manifest, version, files: listed })));
  return next;
}

interface Setup {
  home: string;
  root: string;
  opts: () => Options;
  files: string[];
  dest: (file: string) => string;
}

let clock = 0;
function setup(): Setup {
  const home = tmpDir('gsd-reapply-');
  const manifest = manifestOf(v1);
  const files = manifest.files.filter((file) => !file.merge && file.path.endsWith('.md') && file.path.includes('/workflows/')).map((file) => file.path).slice(0, 4);
  const opts = (): Options => ({ home, cwd: home, env: {}, now: new Date(Date.UTC(2026, 0, 2, 3, 4, 5 + clock++)), policies });
  install(bundleFromFiles(v1, 'v1'), opts());
  return { home, root: path.join(home, manifest.root), opts, files, dest: (file) => path.join(home, file) };
}

const edit = (file: string, line: string) => fs.appendFileSync(file, `\n${line}\n`);
const read = (file: string) => fs.readFileSync(file, 'utf8');

s('an update saves the edits; reapply restores what the release left alone and reports the rest', () => {
  const { home, root, opts, files, dest } = setup();
  const [kept, changed] = files as [string, string];
  edit(dest(kept), 'my rule A');
  edit(dest(changed), 'my rule B');
  const mine = { kept: read(dest(kept)), changed: read(dest(changed)) };
  const report = install(bundleFromFiles(release(v1, '2.0.0', [changed]), 'v2'), opts());
  assert.equal(report.backedUp.sort(), [`~/${kept}`, `~/${changed}`].sort());
  assert.not.ok(read(dest(kept)).includes('my rule A'), 'the update replaced the edited file');

  const dry = reapplyPatches(root, { home, policies, dryRun: true });
  assert.is(dry.counts.restored, 1);
  assert.not.ok(read(dest(kept)).includes('my rule A'), 'a dry run writes nothing');

  const done = reapplyPatches(root, { home, policies });
  const status = Object.fromEntries(done.entries.map((entry) => [entry.path, entry.status]));
  assert.is(status[`~/${kept}`], 'restored');
  assert.is(status[`~/${changed}`], 'review');
  assert.is(done.pending, 1);
  assert.is(read(dest(kept)), mine.kept, 'the edit is back, byte for byte');
  assert.ok(read(dest(changed)).startsWith('<!-- release 2.0.0 -->'), 'a file the release changed is not overwritten');
  const review = done.entries.find((entry) => entry.status === 'review')!;
  assert.is(read(review.backup!), mine.changed, 'its saved copy is reported for a merge by hand');

  const again = reapplyPatches(root, { home, policies });
  assert.equal(again.entries.map((entry) => entry.status).sort(), ['review', 'same']);
  assert.ok(fs.existsSync(review.backup!), 'no backup is removed');
});

s('an edit made after the update is never overwritten', () => {
  const { home, root, opts, files, dest } = setup();
  edit(dest(files[0]!), 'first');
  install(bundleFromFiles(release(v1, '2.0.0'), 'v2'), opts());
  edit(dest(files[0]!), 'made after the update');
  const after = read(dest(files[0]!));
  const done = reapplyPatches(root, { home, policies });
  assert.is(done.entries[0]!.status, 'changed');
  assert.is(read(dest(files[0]!)), after);
});

s('an edit in a file a later release removed is reported gone and stays in the backup', () => {
  const { home, root, opts, files, dest } = setup();
  edit(dest(files[0]!), 'my edit');
  const mine = read(dest(files[0]!));
  install(bundleFromFiles(release(v1, '2.0.0'), 'v2'), opts());
  const first = fs.readdirSync(path.join(root, PATCHES_DIR))[0]!;
  const v3 = install(bundleFromFiles(release(v1, '3.0.0', [], [files[0]!]), 'v3'), opts());
  assert.equal(v3.files.removed, [`~/${files[0]}`], 'the unedited file went with the release');
  const done = reapplyPatches(root, { home, policies, from: first });
  assert.is(done.entries[0]!.status, 'gone');
  assert.not.ok(fs.existsSync(dest(files[0]!)), 'nothing is written where the release has no file');
  assert.is(read(path.join(root, PATCHES_DIR, first, files[0]!)), mine, 'the edit is still in the backup');
});

s('hostile backup folders: paths outside the record, links, altered copies, huge records', () => {
  const { home, root, opts, files, dest } = setup();
  for (const file of files.slice(0, 3)) edit(dest(file), `mine ${file}`);
  install(bundleFromFiles(release(v1, '2.0.0'), 'v2'), opts());
  const folder = path.join(root, PATCHES_DIR, fs.readdirSync(path.join(root, PATCHES_DIR))[0]!);
  const metaFile = path.join(folder, META_FILE);
  const meta = JSON.parse(read(metaFile));
  const outside = path.join(home, 'outside.txt');
  fs.writeFileSync(outside, 'untouched\n');
  // An entry naming a path the record does not list, a backup replaced by a link, a backup whose bytes changed.
  meta.files.push({ path: '~/outside.txt', installedSha256: meta.files[0].installedSha256, currentSha256: sha('evil\n') }, { path: '../../etc/passwd', installedSha256: meta.files[0].installedSha256, currentSha256: sha('evil\n') });
  fs.writeFileSync(metaFile, JSON.stringify(meta));
  const linked = path.join(folder, files[0]!);
  fs.rmSync(linked);
  fs.symlinkSync(outside, linked);
  fs.appendFileSync(path.join(folder, files[1]!), 'tampered\n');
  const before = { a: read(dest(files[0]!)), b: read(dest(files[1]!)) };
  const done = reapplyPatches(root, { home, policies });
  const status = Object.fromEntries(done.entries.map((entry) => [entry.path, entry.status]));
  assert.is(status[`~/${files[0]}`], 'refused', 'a backup that is a link is refused');
  assert.is(status[`~/${files[1]}`], 'refused', 'an altered backup is refused');
  assert.is(status[`~/${files[2]}`], 'restored');
  assert.is(status['~/outside.txt'], 'gone');
  assert.is(status['../../etc/passwd'], 'gone');
  assert.is(read(outside), 'untouched\n');
  assert.equal({ a: read(dest(files[0]!)), b: read(dest(files[1]!)) }, before);

  assert.throws(() => reapplyPatches(root, { home, policies, from: '../..' }), /--from: expected one of the backup folders/);
  fs.writeFileSync(metaFile, `{"reason":"update","files":[${`{"path":"x","installedSha256":null,"currentSha256":"${'0'.repeat(64)}"},`.repeat(20000)}{}]}`);
  assert.throws(() => reapplyPatches(root, { home, policies }), /expected at most 1048576 bytes/);
  fs.writeFileSync(metaFile, '{"reason":"update","files":[{"path":1}]}');
  assert.throws(() => reapplyPatches(root, { home, policies }), /expected a backup record GSD wrote/);
  // A backup folder that is a link is not one of GSD's.
  fs.rmSync(folder, { recursive: true });
  fs.mkdirSync(path.join(home, 'elsewhere'));
  fs.symlinkSync(path.join(home, 'elsewhere'), folder);
  assert.is(reapplyPatches(root, { home, policies }).backupDir, null);
});

s('an interrupted reapply leaves each file whole, and the next run finishes it', () => {
  const { home, root, opts, files, dest } = setup();
  for (const file of files.slice(0, 3)) edit(dest(file), `mine ${file}`);
  const mine = files.slice(0, 3).map((file) => read(dest(file)));
  install(bundleFromFiles(release(v1, '2.0.0'), 'v2'), opts());
  const pristine = files.slice(0, 3).map((file) => read(dest(file)));
  crashAfterWrites(3); // the first file's temp write and rename, then the second's temp write: the crash comes before its rename
  try {
    assert.throws(() => reapplyPatches(root, { home, policies }), (error: unknown) => isCrash(error));
  } finally {
    crashAfterWrites(null);
  }
  files.slice(0, 3).forEach((file, i) => assert.ok([mine[i], pristine[i]].includes(read(dest(file))), `${file} is whole`));
  const done = reapplyPatches(root, { home, policies });
  assert.equal(done.entries.map((entry) => entry.status).sort(), ['restored', 'restored', 'same']);
  assert.equal(files.slice(0, 3).map((file) => read(dest(file))), mine);
});

s('gsd-tools reapply-patches runs from the installed copy', async () => {
  const { home, root, opts, files, dest } = setup();
  edit(dest(files[0]!), 'mine');
  const mine = read(dest(files[0]!));
  install(bundleFromFiles(release(v1, '2.0.0'), 'v2'), opts());
  let out = '';
  const code = await main(['reapply-patches', '--raw'], { coreDir: path.join(root, 'gsd-core'), env: { HOME: home }, cwd: home, stdout: (text) => void (out += text), stderr: () => {} });
  assert.is(code, 0);
  assert.match(out, new RegExp(`restored: ~/${files[0]!.replace(/[.]/g, '\\.')}`));
  assert.is(read(dest(files[0]!)), mine);
});

s.run();
