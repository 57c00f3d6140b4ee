// gsd-build watch as a user runs it: start, edit a source, see the rebuilt
// file; break the source, see the diagnostic and the last good output left
// as it was; stop with Ctrl-C (SIGINT) and exit 0.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { WATCH_FLUSH_MS } from '../cli/build.ts';
import { suite, assert } from './harness.ts';
import { miniSandbox, snapshotTree, temporaryDir } from './fixture-support.ts';

const watchSuite = suite('watch');
/** Only a guard against a hung child; never a claim about speed. */
const GIVE_UP_MS = 240_000;

/** `gsd-build watch` started as a user starts it, its output collected; `until` waits for a state of it, failing if it exits first. */
function startWatch(args: string[], cwd: string) {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), 'watch', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (out.stdout += chunk));
  child.stderr.on('data', (chunk) => (out.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = async (what: string, ready: () => boolean) => {
    const deadline = Date.now() + GIVE_UP_MS;
    while (!ready()) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`expected ${what}, found stdout:\n${out.stdout}\nstderr:\n${out.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, out, exited, until };
}

watchSuite('should rebuild on an edit, print a diagnostic and keep the last good output on an error, and stop on SIGINT', async () => {
  const box = miniSandbox();
  const buildArgs = ['--target', 'claude', '--source', box.source, '--targets', box.targets, '--out', box.out, '--cache', box.cache];
  const { child, out, exited, until } = startWatch(buildArgs, REPO_ROOT);
  const builds = () => out.stdout.split('\n').filter((line) => line.startsWith('built ')).length;
  try {
    await until('the first build and the watching notice', () => builds() === 1 && out.stderr.includes('watching '));
    const reference = path.join(box.out, 'claude/global/.claude/gsd-core/references/notes.md');
    assert.is(readFileSync(reference, 'utf8'), '# Notes\n\nSome notes.\n');

    writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nEdited while watching.\n');
    await until('a rebuild after the edit', () => builds() === 2);
    assert.is(readFileSync(reference, 'utf8'), '# Notes\n\nEdited while watching.\n');
    assert.match(out.stdout.split('\n').filter((line) => line.startsWith('built '))[1]!, /\(\d+ written\)/);

    // A hand edit in the output, then an edit of another source: the check of the output (started at the change, while
    // the rebuild waits for quiet) finds the hand edit, and the rebuild writes that file again too.
    const shipped = path.join(box.out, 'claude/global/.claude/gsd-core/workflows/demo.md');
    const asBuilt = readFileSync(shipped, 'utf8');
    writeFileSync(shipped, 'Edited by hand.\n');
    writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nEdited again.\n');
    await until('a rebuild after the second edit', () => builds() === 3);
    assert.is(readFileSync(shipped, 'utf8'), asBuilt);
    assert.is(readFileSync(reference, 'utf8'), '# Notes\n\nEdited again.\n');

    const good = snapshotTree(box.out);
    const workflow = path.join(box.source, 'gsd-core/workflows/demo.md');
    writeFileSync(workflow, `${readFileSync(workflow, 'utf8')}<!-- gsd:section id="x" when="flag:--nope" -->\ny\n<!-- /gsd:section -->\n`);
    await until('the diagnostic of the broken source', () => out.stderr.includes('nothing was written'));
    assert.match(out.stderr, /gsd-core\/workflows\/demo\.md:\d+:\d+: error marker-unknown-when expected one atom of the when vocabulary .*found "flag:--nope"/);
    assert.equal(snapshotTree(box.out), good);

    // Mended: the rebuild after it writes nothing, as the output already holds what it renders.
    writeFileSync(workflow, readFileSync(workflow, 'utf8').replace(/<!-- gsd:section id="x"[^]*$/, ''));
    await until('a rebuild after the mend', () => builds() === 4);
    assert.match(out.stdout.split('\n').filter((line) => line.startsWith('built '))[3]!, /\(0 written\)/);

    // A burst (a checkout, a formatter run over many files): 400 files added, an edit 150 ms after, its events spread
    // over more than the quiet time. Once quiet, the output is a clean build's.
    for (let index = 0; index < 400; index += 1) writeFileSync(path.join(box.source, `gsd-core/references/burst-${index}.md`), `# Burst ${index}\n`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nAfter the burst.\n');
    await until('the edit after the burst built', () => readFileSync(reference, 'utf8') === '# Notes\n\nAfter the burst.\n');
    for (let count = -1; count !== builds(); await new Promise((resolve) => setTimeout(resolve, 2000))) count = builds();
    const clean = spawnSync(process.execPath, [path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), '--target', 'claude', '--source', box.source, '--targets', box.targets, '--out', `${box.out}-clean`, '--no-cache'], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.is(clean.status, 0, clean.stderr);
    assert.equal(snapshotTree(box.out), snapshotTree(`${box.out}-clean`));

    // After the quiet time the cache kept in memory is on disk, while watch goes on: a build beside it has nothing to do.
    await new Promise((resolve) => setTimeout(resolve, WATCH_FLUSH_MS));
    const beside = spawnSync(process.execPath, [path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), ...buildArgs], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.is(beside.status, 0, beside.stderr);
    assert.match(beside.stdout, /\(0 written\)/);
    assert.is(child.exitCode, null, 'watch still running');
  } finally {
    child.kill('SIGINT');
  }
  assert.is(await exited, 0, out.stderr);
  // The state watch kept in memory was written as it stopped: a build after it finds nothing to do.
  const after = spawnSync(process.execPath, [path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), ...buildArgs], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.is(after.status, 0, after.stderr);
  assert.match(after.stdout, /\(0 written\)/);
});

watchSuite('should watch the corpus it builds in a folder without ./source (the one that ships with gsd-build), and stop on SIGINT', async () => {
  // No ./source here: the build reads the shipped corpus, and that is the folder watched (not a ./source that is not there).
  const dir = temporaryDir('watch-no-source');
  const { child, out, exited, until } = startWatch(['--target', 'claude', '--scope', 'global', '--out', 'out', '--cache', 'cache'], dir);
  try {
    await until('the watching notice', () => out.stderr.includes('watching '));
    assert.match(out.stdout, /^built /m);
    const watched = /watching (.+?) and /.exec(out.stderr)![1]!;
    assert.is(path.resolve(dir, watched), path.join(REPO_ROOT, 'source'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.is(child.exitCode, null, `watch still running; stderr:\n${out.stderr}`);
  } finally {
    child.kill('SIGINT');
  }
  assert.is(await exited, 0, out.stderr);
});

watchSuite.run();
