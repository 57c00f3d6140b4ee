// The CLI as users run it: verbs, help, exit codes, fail-closed writes,
// determinism across machines' settings, and the golden check.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync, unlinkSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpSync } from 'node:fs';
import { REPO_ROOT } from '../pipeline.ts';
import { listFiles } from '../util/list-files.ts';
import { escapeRegExp } from '../util/text.ts';
import { suite, assert } from './harness.ts';
import { copySource, FIXTURES, miniSandbox, runCli, runCliAsync, snapshotTree, temporaryDir } from './fixture-support.ts';
import { schemaValidator } from '../schemas.ts';
import { filesByBundle } from '../cli/check-run.ts';

const cli = suite('cli');

/** Whether anything is at `at`, a link to nothing included. */
const lstatExists = (at: string) => lstatSync(at, { throwIfNoEntry: false }) !== undefined;

for (const verb of ['', 'check ', 'ir ', 'budgets ']) {
  cli(`should print help and exit 0 for "gsd-build ${verb}--help"`, () => {
    const result = runCli([...verb.split(' ').filter(Boolean), '--help']);
    assert.is(result.status, 0);
    assert.match(result.stdout, /^Usage: gsd-build/);
  });
}

cli('should print the package version for --version, and each verb\'s help, without loading that verb', () => {
  const version = runCli(['--version']);
  assert.is(version.status, 0, version.stderr);
  assert.is(version.stdout, `${(JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
  for (const verb of ['watch', 'matrix', 'site', 'release', 'plugin', 'keygen', 'install']) {
    const help = runCli([verb, '-h']);
    assert.is(help.status, 0, `${verb}: ${help.stderr}`);
    assert.match(help.stdout, new RegExp(`^Usage: gsd-build ${verb}`), verb);
  }
  // A bad option still reaches the verb's own parser: a usage error, not help.
  assert.is(runCli(['check', '--help', '--bogus']).status, 2);
});

/** The files a gsd-build run loads as modules (a load hook logs each), with their text. */
function loadedModules(args: string[]): { status: number; texts: Map<string, string> } {
  const dir = temporaryDir('loaded');
  const log = path.join(dir, 'loaded.log');
  writeFileSync(path.join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n');\n  return next(url, context);\n}\n`);
  // Registered after the TypeScript loader's hooks (the bin's own import of them is then a no-op), so this one runs first
  // and sees the .ts modules the loader answers itself, whether the compiled lib or the sources run.
  const tsHooks = pathToFileURL(path.join(REPO_ROOT, 'compiler/bin/register.mjs')).href;
  writeFileSync(path.join(dir, 'register.mjs'), `import ${JSON.stringify(tsHooks)};\nimport { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(path.join(dir, 'hooks.mjs')).href)});\n`);
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(dir, 'register.mjs')).href, path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
  const urls = existsSync(log) ? [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))] : [];
  return { status: run.status ?? -1, texts: new Map(urls.map((url) => [url, readFileSync(new URL(url), 'utf8')])) };
}

cli('should load no compiler stage for --version or --help, not the verb for its --help, and neither the site, the release nor the installer for a check', () => {
  const defines = (texts: Map<string, string>, name: string) => [...texts].filter(([, text]) => new RegExp(`function ${name}\\(`).test(text)).map(([url]) => url);
  for (const args of [['--version'], ['--help']]) {
    const { status, texts } = loadedModules(args);
    assert.is(status, 0, args.join(' '));
    assert.ok(texts.size > 0, 'the hook saw the bin load');
    for (const stage of ['compile', 'emitBundles', 'buildIr']) assert.equal(defines(texts, stage), [], `${args.join(' ')} loads ${stage}`);
  }
  for (const [verb, run] of [['site', 'runSite'], ['release', 'runRelease'], ['install', 'runInstall'], ['watch', 'runWatch']] as const) {
    const { status, texts } = loadedModules([verb, '--help']);
    assert.is(status, 0, verb);
    assert.equal(defines(texts, run), [], `${verb} --help loads ${run}`);
  }
  const box = miniSandbox();
  const { texts } = loadedModules(['check', '--source', box.source, '--targets', box.targets, '--golden', temporaryDir('no-goldens'), '--no-cache']);
  assert.ok(defines(texts, 'runCheck').length > 0, 'the check ran');
  for (const name of ['buildSite', 'zipTree', 'install', 'runSite', 'runRelease', 'runInstall']) assert.equal(defines(texts, name), [], `check loads ${name}`);
});

cli('should exit 2 with a usage message for bad usage', () => {
  for (const args of [[], ['--target'], ['--bogus'], ['--target', 'nowhere'], ['--all', '--target', 'claude'], ['--target', 'claude', '--scope', 'galaxy']]) {
    const result = runCli(args);
    assert.is(result.status, 2, `gsd-build ${args.join(' ')}`);
  }
  assert.match(runCli(['--target', 'nowhere']).stderr, /expected a target id \([a-z, -]*\bclaude\b[a-z, -]*\bcodex\b[a-z, -]*\), found "nowhere"/);
});

cli('should build one target and scope into <out>/<id>/<scope>', () => {
  const out = temporaryDir('one');
  const result = runCli(['--target', 'codex', '--scope', 'local', '--out', out]);
  assert.is(result.status, 0, result.stderr);
  assert.ok(existsSync(path.join(out, 'codex/local/.codex/gsd-core/workflows/plan-phase.md')));
  assert.not.ok(existsSync(path.join(out, 'codex/global')));
  assert.not.ok(existsSync(path.join(out, 'claude')));
});

cli('should write nothing and exit 1 when a check fails, leaving earlier output intact', () => {
  const out = temporaryDir('failed');
  assert.is(runCli(['--all', '--out', out]).status, 0);
  const before = snapshotTree(out);
  const broken = copySource();
  const workflow = path.join(broken, 'gsd-core/workflows/plan-phase.md');
  writeFileSync(workflow, readFileSync(workflow, 'utf8').replace('when="flag:--prd"', 'when="flag:--nope"'));
  const result = runCli(['--all', '--source', broken, '--out', out]);
  assert.is(result.status, 1);
  assert.match(result.stderr, /gsd-core\/workflows\/plan-phase\.md:\d+:\d+: error marker-when-unevaluable expected an atom the runtime CLI.s section selection evaluates \(runtime\/init\/sections\.ts: .*found "flag:--nope"/);
  assert.match(result.stderr, /nothing was written/);
  assert.equal(snapshotTree(out), before);
});

cli('should leave earlier output intact and no temporary folder when a built bundle fails its checks', () => {
  // Bundles go to the writer thread as they are checked: the second fails after the first was staged.
  const fixture = path.join(FIXTURES, 'diagnostics/emit-foreign-path');
  const out = temporaryDir('emit-failed');
  writeFileSync(path.join(out, 'earlier.txt'), 'from an earlier build\n');
  const before = snapshotTree(out);
  for (const cache of [[], ['--no-cache']]) {
    const result = runCli(['--all', '--source', path.join(fixture, 'source'), '--targets', path.join(fixture, 'targets'), '--out', out, ...cache]);
    assert.is(result.status, 1, result.stderr);
    assert.match(result.stderr, /codex\/local\/\.codex\/gsd-core\/references\/paths\.md:2:18: error emit-foreign-path /);
    assert.match(result.stderr, /nothing was written/);
    assert.equal(snapshotTree(out), before);
  }
});

cli('should build byte-identical trees, modes included, whatever TZ, locale or umask', () => {
  const first = temporaryDir('det1');
  const second = temporaryDir('det2');
  assert.is(runCli(['--all', '--out', first], { env: { TZ: 'UTC', LANG: 'C', LC_ALL: 'C' }, umask: '022' }).status, 0);
  assert.is(runCli(['--all', '--out', second], { env: { TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' }, umask: '077' }).status, 0);
  const a = snapshotTree(first);
  assert.ok(a.size > 100);
  assert.equal([...snapshotTree(second)], [...a]);
});

cli('should pass the golden check on the committed goldens', () => {
  const result = runCli(['check']);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /golden check passed: \d+ bundle\(s\)/);
});

cli('should write the bytes the goldens hold: a build keeps rendered texts as their UTF-8, the check as strings', () => {
  const out = temporaryDir('built');
  const cache = temporaryDir('cache');
  const result = runCli(['--all', '--out', out, '--cache', cache]);
  assert.is(result.status, 0, result.stderr);
  const built = new Set(listFiles(out));
  const golden = path.join(REPO_ROOT, 'golden');
  let compared = 0;
  for (const file of listFiles(golden)) {
    // Built code is kept in the goldens as its digest and size.
    const digested = file.endsWith('.sha256') && built.has(file.slice(0, -'.sha256'.length)) ? file.slice(0, -'.sha256'.length) : null;
    const name = digested ?? file;
    assert.ok(built.delete(name), `built ${name}`);
    const bytes = readFileSync(path.join(out, name));
    const expected = digested ? `${createHash('sha256').update(bytes).digest('hex')}  ${bytes.length} bytes\n` : null;
    if (expected !== null) assert.is(readFileSync(path.join(golden, file), 'utf8'), expected, name);
    else assert.ok(bytes.equals(readFileSync(path.join(golden, file))), name);
    compared += 1;
  }
  assert.equal([...built], [], 'every built file has its golden');
  assert.ok(compared > 5_000, `compared ${compared}`);
  rmSync(out, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

cli('should fail the golden check with a unified diff when one source byte changes, read through the build cache or not', () => {
  const changed = copySource();
  const cache = temporaryDir('check-cache');
  // The check reads the corpus through the build cache: the first fills it, and an edit after it still shows.
  const before = runCli(['check', '--source', changed, '--cache', cache]);
  assert.is(before.status, 0, before.stderr);
  for (const kept of [/^nodes-/, /^check-[0-9a-f]{24}\.v8$/, /^golden-/]) assert.ok(readdirSync(cache).some((entry) => kept.test(entry)), `${kept}: the parsed documents, what the check emitted, the goldens' digests`);
  const reference = path.join(changed, 'gsd-core/references/questioning.md');
  const text = readFileSync(reference, 'utf8');
  const index = text.indexOf('e');
  // The same size: the bytes, not only the sizes, are compared.
  writeFileSync(reference, `${text.slice(0, index)}E${text.slice(index + 1)}`);
  const uncached = temporaryDir('check-no-cache');
  const fresh = runCli(['check', '--source', changed, '--no-cache', '--cache', uncached]);
  assert.equal(readdirSync(uncached), [], '--no-cache stores nothing');
  // Emitted again from the units the first check emitted, against the goldens' digests it indexed: the same findings.
  const result = runCli(['check', '--source', changed, '--cache', cache]);
  assert.is(result.stderr, fresh.stderr, 'the same findings with the cache and without');
  // A second file edited while the first still differs: the first's units, taken back, would have no text for its diff
  // (they are held back: rendered again). The same findings as a check without the cache, both diffs shown.
  const second = path.join(changed, 'gsd-core/references/ai-evals.md');
  const secondText = readFileSync(second, 'utf8');
  writeFileSync(second, secondText.replace('e', 'E'));
  const both = runCli(['check', '--source', changed, '--cache', cache]);
  assert.equal([both.status, both.stderr], [1, runCli(['check', '--source', changed, '--no-cache']).stderr], 'two edits: the same findings with the cache and without');
  assert.ok(both.stderr.includes('--- golden/claude/global/.claude/gsd-core/references/questioning.md') && both.stderr.includes('--- golden/claude/global/.claude/gsd-core/references/ai-evals.md'), 'a diff of each');
  // Without the list of files that differed, the files to diff that were taken back have their bundles emitted again.
  const listed = readdirSync(cache).filter((entry) => entry.startsWith('check-differed-'));
  assert.is(listed.length, 1);
  rmSync(path.join(cache, listed[0]!));
  assert.is(runCli(['check', '--source', changed, '--cache', cache]).stderr, both.stderr, 'no list: the same findings');
  writeFileSync(second, secondText);
  assert.is(runCli(['check', '--source', changed, '--cache', cache]).stderr, fresh.stderr, 'the second edit undone: the first\'s findings again');
  // Entries that do not read (cut short, or another program's) are passed over: the same findings again.
  for (const entry of readdirSync(cache)) if (/^(?:check|golden)-/.test(entry)) writeFileSync(path.join(cache, entry), 'not an entry');
  const overCorrupt = runCli(['check', '--source', changed, '--cache', cache]);
  assert.equal([overCorrupt.status, overCorrupt.stderr], [1, fresh.stderr], 'corrupt check entries are not trusted');
  rmSync(cache, { recursive: true, force: true });
  assert.is(result.status, 1);
  // Every bundle carries the reference, so each shows the same one-line change.
  for (const bundle of ['claude/global/.claude', 'claude/local/.claude', 'codex/global/.codex', 'codex/local/.codex']) {
    assert.ok(result.stderr.includes(`--- golden/${bundle}/gsd-core/references/questioning.md`), bundle);
  }
  const changedLine = text.split('\n').find((line) => line.includes(text.slice(index - 3, index + 3)))!;
  assert.ok(result.stderr.includes(`-${changedLine}`));
  assert.match(result.stderr, /\d+ golden file\(s\) out of date/);
});

cli('should hold back each bundle\'s files that differed from their goldens (filesByBundle)', () => {
  const held = filesByBundle(['a/global/d/y.md', 'a/global/z.md', 'b/local/x.md', 'nobundle', 'a/only']);
  assert.equal([...held].map(([key, files]) => [key, [...files]]), [['a/global', ['d/y.md', 'z.md']], ['b/local', ['x.md']]]);
});

cli('should pass a check again from its record only while its inputs and the goldens stand as they were', () => {
  const source = copySource();
  const golden = temporaryDir('golden-pass');
  cpSync(path.join(REPO_ROOT, 'golden'), golden, { recursive: true });
  const cache = temporaryDir('check-pass-cache');
  const check = () => runCli(['check', '--source', source, '--golden', golden, '--cache', cache]);
  // A golden changed in the last 3 s is never taken on trust (a second change within the clock's tick can leave its stamp as it was).
  const settle = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3100);
  // A golden whose mtime a whole second can give back exactly (utimes takes seconds as a double).
  const planner = path.join(golden, 'claude/global/.claude/agents/gsd-planner.md');
  const mtime = Math.floor(Date.now() / 1000) - 60;
  utimesSync(planner, mtime, mtime);
  settle();
  const first = check();
  assert.is(first.status, 0, first.stderr);
  assert.ok(readdirSync(cache).some((entry) => entry.startsWith('check-')), 'the pass is recorded');
  // Taken from the record: no document is parsed again, so the parsed documents dropped from the cache stay dropped.
  const parsed = () => readdirSync(cache).filter((entry) => entry.startsWith('nodes-'));
  for (const entry of parsed()) rmSync(path.join(cache, entry));
  const again = check();
  assert.equal([again.status, again.stdout, again.stderr], [0, first.stdout, first.stderr]);
  assert.equal(parsed(), [], 'the second check compiled nothing');
  // A golden edited in place with its inode, size and mtime kept, and settled: its ctime still tells, the full check reads
  // it again (its indexed digest is not taken), and its file, reused from the last emission, is rendered for the diff.
  const text = readFileSync(planner, 'utf8');
  writeFileSync(planner, text.replace('e', 'E'));
  utimesSync(planner, mtime, mtime);
  assert.is(statSync(planner, { bigint: true }).mtimeNs, BigInt(mtime) * 1_000_000_000n);
  settle();
  const edited = check();
  assert.is(edited.status, 1);
  assert.ok(edited.stderr.includes('--- golden/claude/global/.claude/agents/gsd-planner.md'), edited.stderr.slice(0, 400));
  writeFileSync(planner, text);
  assert.is(check().status, 0, 'the golden as it was passes');
  // A source edit is in the key.
  const reference = path.join(source, 'gsd-core/references/questioning.md');
  writeFileSync(reference, `${readFileSync(reference, 'utf8')}\nOne more line.\n`);
  assert.is(check().status, 1);
  rmSync(golden, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

cli('should fail the golden check on a missing or an orphaned golden file', () => {
  const golden = temporaryDir('golden');
  cpSync(path.join(REPO_ROOT, 'golden'), golden, { recursive: true });
  unlinkSync(path.join(golden, 'claude/global/.claude/agents/gsd-planner.md'));
  writeFileSync(path.join(golden, 'codex/local/.codex/stray.md'), 'left behind\n');
  const result = runCli(['check', '--golden', golden]);
  assert.is(result.status, 1);
  assert.match(result.stderr, /golden\/claude\/global\/\.claude\/agents\/gsd-planner\.md: missing golden file/);
  assert.match(result.stderr, /golden\/codex\/local\/\.codex\/stray\.md: orphaned golden file/);
  // Entries that are no file: reported at their paths before anything is built, never opened (a FIFO would block a read).
  execFileSync('mkfifo', [path.join(golden, 'codex/local/.codex/pipe')]);
  symlinkSync('nowhere', path.join(golden, 'dangling'));
  const strays = runCli(['check', '--golden', golden]);
  assert.is(strays.status, 1);
  assert.is(
    strays.stderr,
    [
      `${golden}/codex/local/.codex/pipe:1:1: error golden-entry expected a file, a link to a file or a folder in the goldens, found a FIFO`,
      `${golden}/dangling:1:1: error golden-entry expected a file, a link to a file or a folder in the goldens, found a link to nothing`,
      `2 error(s) in ${golden}/; nothing was checked ('gsd-build check --update' removes them).`,
      '',
    ].join('\n'),
  );
  assert.is(runCli(['check', '--update', '--golden', golden]).status, 0);
  assert.not.ok(existsSync(path.join(golden, 'codex/local/.codex/pipe')) || lstatExists(path.join(golden, 'dangling')), 'the update removed both');
  assert.is(runCli(['check', '--golden', golden]).status, 0);
  assert.not.ok(existsSync(path.join(golden, 'codex/local/.codex/stray.md')));
  rmSync(golden, { recursive: true, force: true });
});

cli('should update the goldens in place, writing and removing only what differs from a fresh update', () => {
  const source = copySource();
  const golden = temporaryDir('golden-update');
  const cache = temporaryDir('golden-update-cache');
  cpSync(path.join(REPO_ROOT, 'golden'), golden, { recursive: true });
  const at = (file: string) => path.join(golden, file);
  const reference = path.join(source, 'gsd-core/references/questioning.md');
  writeFileSync(reference, `${readFileSync(reference, 'utf8')}\nOne more line.\n`);
  chmodSync(at('claude/global/.claude/agents/gsd-planner.md'), 0o755);
  unlinkSync(at('codex/global/.codex/gsd-core/references/ai-evals.md'));
  mkdirSync(at('codex/local/.codex/extra'));
  writeFileSync(at('codex/local/.codex/extra/stray.md'), 'left behind\n');
  // A link to a file of the same bytes (read through: no finding), and a folder where a file goes.
  const outside = path.join(temporaryDir('golden-link'), 'planner.md');
  cpSync(at('claude/local/.claude/agents/gsd-planner.md'), outside);
  unlinkSync(at('claude/local/.claude/agents/gsd-planner.md'));
  symlinkSync(outside, at('claude/local/.claude/agents/gsd-planner.md'));
  unlinkSync(at('claude/local/.claude/agents/gsd-ai-researcher.md'));
  mkdirSync(at('claude/local/.claude/agents/gsd-ai-researcher.md/empty'), { recursive: true });
  const check = (...more: string[]) => runCli(['check', '--source', source, '--golden', golden, '--cache', cache, ...more]);
  const before = check();
  assert.is(before.status, 1);
  assert.ok(before.stderr.includes('golden/claude/global/.claude/agents/gsd-planner.md: executable, but the build makes it a plain file (git keeps the mode)'), before.stderr.slice(-2000));
  const outOfDate = Number(/(\d+) golden file\(s\) out of date/.exec(before.stderr)![1]);
  // A FIFO stops a check; an update removes it.
  execFileSync('mkfifo', [at('codex/local/.codex/pipe')]);
  const untouched = statSync(at('claude/global/.claude/agents/gsd-advisor-researcher.md'));
  const update = check('--update');
  assert.is(update.status, 0, update.stderr);
  // Every finding but the orphan is written, and the link becomes a file of its own; the orphan and the FIFO go.
  assert.match(update.stdout, new RegExp(`\\(${outOfDate} file\\(s\\) written, 2 removed\\)`));
  const after = statSync(at('claude/global/.claude/agents/gsd-advisor-researcher.md'));
  assert.equal([after.ino, after.mtimeMs], [untouched.ino, untouched.mtimeMs], 'a file that matched is not written');
  assert.not.ok(existsSync(at('codex/local/.codex/extra')) || lstatExists(at('codex/local/.codex/pipe')), 'the orphan, its folder and the FIFO are gone');
  assert.not.ok(lstatSync(at('claude/local/.claude/agents/gsd-planner.md')).isSymbolicLink());
  const fresh = temporaryDir('golden-fresh');
  assert.is(runCli(['check', '--update', '--no-cache', '--source', source, '--golden', fresh]).status, 0);
  const files = (dir: string) => [...snapshotTree(dir)].filter(([file]) => !file.endsWith('/'));
  assert.equal(files(golden), files(fresh), 'the same files, bytes and modes as an update into an empty folder');
  assert.is(check().status, 0);
  for (const dir of [golden, cache, fresh, path.dirname(outside), path.dirname(source)]) rmSync(dir, { recursive: true, force: true });
});

cli('should say in one line, with the path, that an output or golden folder cannot be made, and make nothing', () => {
  const file = path.join(temporaryDir('not-a-folder'), 'file');
  writeFileSync(file, 'a file\n');
  for (const args of [['--target', 'claude', '--scope', 'global', '--no-cache', '--out', `${file}/out`], ['check', '--update', '--no-cache', '--golden', `${file}/golden`]]) {
    const result = runCli(args);
    assert.is(result.status, 1, args.join(' '));
    assert.match(result.stderr, new RegExp(`^gsd-build: [^\\n]*ENOTDIR: not a directory, \\w+ '${escapeRegExp(file)}/[^\\n]*\\n$`), result.stderr.slice(0, 600));
    assert.is(readFileSync(file, 'utf8'), 'a file\n');
  }
  rmSync(path.dirname(file), { recursive: true, force: true });
});

cli('should leave the goldens matching when several updates run at once on them, with one cache', async () => {
  const source = copySource();
  const golden = temporaryDir('golden-race');
  const cache = temporaryDir('golden-race-cache');
  cpSync(path.join(REPO_ROOT, 'golden'), golden, { recursive: true });
  const reference = path.join(source, 'gsd-core/references/questioning.md');
  writeFileSync(reference, `${readFileSync(reference, 'utf8')}\nOne more line.\n`);
  // Orphans in nested folders of their own: each update removes them and the folders they leave empty.
  for (const orphan of ['codex/local/.codex/a/b/one.md', 'codex/local/.codex/a/two.md', 'claude/global/.claude/c/d/e/three.md']) {
    mkdirSync(path.join(golden, path.dirname(orphan)), { recursive: true });
    writeFileSync(path.join(golden, orphan), 'left behind\n');
  }
  const updates = await Promise.all([1, 2, 3].map(() => runCliAsync(['check', '--update', '--source', source, '--golden', golden, '--cache', cache])));
  for (const update of updates) assert.is(update.status, 0, update.stderr.slice(-2000));
  assert.not.ok(existsSync(path.join(golden, 'codex/local/.codex/a')) || existsSync(path.join(golden, 'claude/global/.claude/c')), 'the orphans and their folders are gone');
  assert.not.ok(readdirSync(path.join(golden, 'claude/global/.claude/gsd-core/references')).some((name) => name.includes('.tmp-')), 'no temporary left');
  const check = runCli(['check', '--source', source, '--golden', golden, '--no-cache']);
  assert.is(check.status, 0, check.stderr.slice(-2000));
  for (const dir of [golden, cache, path.dirname(source)]) rmSync(dir, { recursive: true, force: true });
});

cli('should print the IR as a table and as JSON', () => {
  const table = runCli(['ir']);
  assert.is(table.status, 0);
  assert.match(table.stdout, /\n\d+ nodes: .*\d+ command/);
  const json = JSON.parse(runCli(['ir', '--json']).stdout) as { version: number; nodes: { path: string }[] };
  assert.is(json.version, 1);
  // What a consumer of `ir --json` reads holds to the published schema, as the in-memory IR does (pipeline.test.ts).
  const validate = schemaValidator('ir.schema.json');
  assert.ok(validate(json), JSON.stringify(validate.errors?.slice(0, 3)));
  assert.ok(json.nodes.some((node) => node.path === 'gsd-core/workflows/plan-phase.md'));
});

cli('should print budgets and fail on a loosened baseline', () => {
  const result = runCli(['budgets']);
  assert.is(result.status, 0);
  assert.match(result.stdout, /gsd-core\/workflows\/plan-phase\.md\s+DEFAULT\s+\d+\s+38000/);
  assert.match(result.stdout, /largest eager-load closure \d+ bytes/);
  const baselineDir = temporaryDir('baseline');
  const baseline = JSON.parse(readFileSync(path.join(REPO_ROOT, 'source/budgets.json'), 'utf8'));
  baseline.tiers.workflow.DEFAULT = 30000;
  writeFileSync(path.join(baselineDir, 'budgets.json'), JSON.stringify(baseline));
  const loosened = runCli(['budgets', '--baseline', path.join(baselineDir, 'budgets.json')]);
  assert.is(loosened.status, 1);
  assert.match(loosened.stderr, /source\/budgets\.json:\d+:\d+: error budget-loosened expected the workflow DEFAULT cap at or below the baseline 30000, found 38000/);
});

cli('should fail budgets for any profile over its listing ceiling, released or not', () => {
  const passing = runCli(['budgets']);
  assert.match(passing.stdout, /Checked: every standalone profile \(core, standard, full\) on every target × scope/);
  const source = copySource();
  const file = path.join(source, 'budgets.json');
  const budgets = JSON.parse(readFileSync(file, 'utf8'));
  // standard is neither built by default nor released: only budgets measures it.
  const profiles = JSON.parse(readFileSync(path.join(source, 'profiles.json'), 'utf8'));
  assert.not.ok([profiles.default, ...profiles.release].includes('standard'));
  budgets.listing.standard.flat = 100;
  writeFileSync(file, JSON.stringify(budgets, null, 2));
  const over = runCli(['budgets', '--source', source]);
  assert.is(over.status, 1);
  assert.match(over.stderr, /^codex\/global\/\S+:1:1: error budget-exceeded expected the standard profile's per-turn listing within 100 bytes \(budgets\.json listing\.standard\.flat\), found \d+ bytes/m);
  assert.not.match(over.stderr, /profile's per-turn listing within \d+ bytes \(budgets\.json listing\.(core|full)\./);
  assert.not.match(over.stderr, /listing\.standard\.nested/);
  assert.match(over.stderr, /\d+ error\(s\): a per-turn listing over its ceiling/);
});

cli('should refuse a baseline that is not a budgets file, at its line and column', () => {
  const baselineDir = temporaryDir('baseline');
  const file = path.join(baselineDir, 'budgets.json');
  writeFileSync(file, '{\n  "tiers": {\n    "workflow": [1,\n}\n');
  const broken = runCli(['budgets', '--baseline', file]);
  assert.is(broken.status, 1);
  assert.match(broken.stderr, new RegExp(`${escapeRegExp(file)}:4:1: error budgets-schema expected JSON, found `));
  writeFileSync(file, '{ "tiers": { "workflow": { "DEFAULT": "big" } } }\n');
  const wrong = runCli(['budgets', '--baseline', file]);
  assert.is(wrong.status, 1);
  assert.match(wrong.stderr, /budgets\.json:1:\d+: error budgets-schema "tiers\.workflow\.DEFAULT": expected /);
});

cli('should report diagnostics of a fixture tree through the CLI with the source prefix', () => {
  const result = runCli(['--all', '--source', path.join(FIXTURES, 'diagnostics/marker-unclosed/source'), '--out', temporaryDir('never')]);
  assert.is(result.status, 1);
  assert.match(result.stderr, /marker-unclosed\/source\/gsd-core\/workflows\/flow\.md:2:1: error marker-unclosed /);
});

cli.run();
