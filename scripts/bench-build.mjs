#!/usr/bin/env node
// Build speed in one run, each figure the median of N runs with min and max and
// the load average when it was taken (the machine is shared: read ratios, not
// seconds):
//   upstream installer: its 30 installs (15 runtimes × global, local), each
//     with its own temporary HOME and project, by the dev dependency's own
//     bin/install.js;
//   gsd-build on the same corpus: cold (empty cache, empty output), warm (no
//     change) and after one edited file, each a fresh process; and gsd-build
//     watch on it, one process rebuilding after each edit (after 3 untimed
//     edits; timed from the write to its summary line, debounce included,
//     and by its own figure);
//   the file-system floor of each cold output (scripts/fs-floor.mjs): its
//     folders and files made as the writer makes them, with no build;
//   what memory costs when first touched (page faults) against touching it
//     again, and so what the upstream cold build's peak RSS costs it;
//   gsd-build on source/: cold and warm; gsd-build check (against golden/)
//     with --no-cache, with nothing changed, after one edited file, and after
//     an edit of another file while the first still differs; check --update
//     after one edited file (on a copy of golden/);
//   scale: a synthetic corpus (scripts/gen-corpus.mjs) at 1×, 10×, 100× the size
//     of source/, one bundle (claude/global), cold and after one edited file,
//     with peak memory.
// gsd-build runs as a user's checkout does: compiler/bin/gsd-build.mjs, which
// runs the prebuilt compiler (compiler/lib) when it is fresh; the benchmark
// builds it first (--loader ts times the TypeScript loader instead). Peak
// memory is each process's own process.resourceUsage().maxRSS, and its page
// faults its minorPageFault (each at the first-touch rate measured above: on
// this project's VM a fault costs as much as a first touch).
// Usage: node scripts/bench-build.mjs [--runs N] [--only installer,upstream,source,scale] [--scales 1,10,100] [--loader lib|ts] [--quick]
//   --quick: 3 runs and scales 1,10 (a full run takes long on a loaded 2-core machine); the default is the issue's.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from './gen-corpus.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: { runs: { type: 'string' }, only: { type: 'string' }, scales: { type: 'string' }, loader: { type: 'string', default: 'lib' }, quick: { type: 'boolean', default: false } },
});
const runs = Number(values.runs ?? (values.quick ? 3 : 5));
values.scales ??= values.quick ? '1,10' : '1,10,100';
if (!['lib', 'ts'].includes(values.loader)) throw new Error(`expected --loader lib or ts, found "${values.loader}"`);
const only = values.only ? new Set(values.only.split(',')) : null;
const wanted = (part) => only === null || only.has(part);
const bin = path.join(root, 'compiler/bin/gsd-build.mjs');
const upstream = path.join(root, 'node_modules/@opengsd/gsd-core');
const installer = path.join(upstream, 'bin/install.js');
/** The 15 runtimes the upstream installer installs (its --<runtime> flags). */
const UPSTREAM_RUNTIMES = ['claude', 'codex', 'opencode', 'kilo', 'kimi', 'augment', 'codebuddy', 'copilot', 'antigravity', 'cursor', 'windsurf', 'trae', 'cline', 'qwen', 'hermes'];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'gsd-bench-'));
/** Loaded first into every node process timed: reports its peak RSS (KiB) on stderr as it exits. */
const PEAK = `data:text/javascript,${encodeURIComponent("process.on('exit', () => { const usage = process.resourceUsage(); process.stderr.write(`\\npeak-rss-kib ${usage.maxRSS} page-faults ${usage.minorPageFault}\\n`); });")}`;

const load = () => os.loadavg().map((value) => value.toFixed(2)).join(' ');

/** Wall time (ms) and peak RSS (KiB) of one node process (options.allowed: the exit codes that are not a failure, [0] unless given). */
function run(command, args, options = {}) {
  const started = process.hrtime.bigint();
  const { allowed = [0], ...spawnOptions } = options;
  const wrapped = spawnSync(command, ['--import', PEAK, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...spawnOptions });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (!allowed.includes(wrapped.status)) throw new Error(`${command} ${args.join(' ')} failed (${wrapped.status}):\n${wrapped.stderr.slice(-3000)}`);
  const [, rss, faults] = /peak-rss-kib (\d+) page-faults (\d+)/.exec(wrapped.stderr) ?? [];
  return { ms, rssKib: rss ? Number(rss) : null, faults: faults ? Number(faults) : null, stdout: wrapped.stdout };
}

const gsdBuild = (args, options) => run(process.execPath, [bin, ...args], { cwd: root, env, ...options });

/** Each series' largest peak RSS (MiB), by label. */
const peaks = new Map();
/** Each series' median count of page faults (the process's minor faults, its threads' included), by label. */
const pageFaults = new Map();
const UPSTREAM_COLD = 'gsd-build --all, upstream corpus: cold';
const UPSTREAM_ONE = 'gsd-build --all, upstream corpus: one edit';

/** Runs `once` `runs` times (after `before` each time) and prints the median, min, max and the load. */
function series(label, once, before = () => {}) {
  const samples = [];
  const loadBefore = load();
  for (let index = 0; index < runs; index += 1) {
    before(index);
    samples.push(once(index));
  }
  const times = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const rss = samples.map((sample) => sample.rssKib).filter((value) => value !== null);
  const faults = samples.map((sample) => sample.faults).filter((value) => value !== null && value !== undefined).sort((a, b) => a - b);
  const written = samples.map((sample) => /\((\d+) written\)/.exec(sample.stdout ?? '')?.[1]).filter(Boolean);
  if (rss.length) peaks.set(label, Math.max(...rss) / 1024);
  if (faults.length) pageFaults.set(label, faults[Math.floor(faults.length / 2)]);
  console.log(
    `${label.padEnd(44)} ${median.toFixed(0).padStart(7)} ms median of ${runs} (min ${times[0].toFixed(0)}, max ${times[times.length - 1].toFixed(0)})` +
      `${rss.length ? `, peak RSS ${(Math.max(...rss) / 1024).toFixed(0)} MiB` : ''}${faults.length ? `, ${pageFaults.get(label)} page faults` : ''}` +
      `${written.length ? `, files written ${[...new Set(written)].join('/')}` : ''}; load ${loadBefore} -> ${load()}`,
  );
  return median;
}

/**
 * Moves a folder out of the way, into a trash folder removed only when the
 * benchmark ends. Removing tens of thousands of files just before a timed run
 * slows that run's file creation several times over (ext4 skips recently freed
 * inodes, scanning past each of them: 19 s of kernel time against 3 s,
 * measured), which would time the benchmark's own cleanup, not the build.
 */
let trashed = 0;
const trash = (dir) => {
  if (!existsSync(dir)) return;
  mkdirSync(path.join(scratch, 'trash'), { recursive: true });
  renameSync(dir, path.join(scratch, 'trash', String((trashed += 1))));
};

const fresh = (name) => {
  const dir = path.join(scratch, name);
  trash(dir);
  return dir;
};

/**
 * The file-system floor of an output (scripts/fs-floor.mjs): its folders and
 * files made the way the writer makes them, into a fresh folder each run, with
 * no build around them; how much of a cold build this disk alone takes.
 */
function floorSeries(label, out) {
  const script = path.join(root, 'scripts/fs-floor.mjs');
  const planFile = path.join(scratch, `${label}-floor.json`);
  run(process.execPath, [script, 'plan', out, planFile]);
  const dest = path.join(scratch, `${label}-floor`);
  const median = series(`file-system floor, ${label} output`, () => run(process.execPath, [script, 'make', planFile, dest]), () => fresh(`${label}-floor`));
  return { median, plan: JSON.parse(readFileSync(planFile, 'utf8')) };
}

/**
 * What memory costs the first time it is touched (a page fault per 4 KiB
 * page) against touching it again: 256 MiB filled twice in a fresh node
 * process. On a virtual machine the first touch can be dear (this project's
 * 2-core VM: 12 us a page, 3 ms a MiB), and a build touches at least its peak
 * RSS so: the part of its time no code change removes but a smaller peak.
 */
function memorySeries() {
  const script =
    'const b = Buffer.allocUnsafeSlow(256 * 1024 * 1024); let t = process.hrtime.bigint(); b.fill(1); const first = Number(process.hrtime.bigint() - t) / 1e6;' +
    ' t = process.hrtime.bigint(); b.fill(2); console.log(JSON.stringify({ first, again: Number(process.hrtime.bigint() - t) / 1e6 }));';
  const loadBefore = load();
  const samples = Array.from({ length: runs }, () => JSON.parse(run(process.execPath, ['-e', script]).stdout));
  const median = (key) => samples.map((sample) => sample[key]).sort((a, b) => a - b)[Math.floor(samples.length / 2)];
  const first = median('first');
  console.log(`${'fresh memory, 256 MiB: first touch'.padEnd(44)} ${first.toFixed(0).padStart(7)} ms median of ${runs} (${((first * 1000) / 65536).toFixed(1)} us a 4 KiB page, ${(first / 256).toFixed(2)} ms a MiB), touched again ${median('again').toFixed(0)} ms; load ${loadBefore} -> ${load()}`);
  return first / 256;
}

/** Appends a line to a file (a new one each run), the one-file edit. */
const edit = (file, index) => appendFileSync(file, `\nEdited by the benchmark, run ${index} at ${process.hrtime.bigint()}.\n`);

/** Edits a watch series makes, untimed, before the ones it times. */
const WATCH_WARMUP_EDITS = 3;

/**
 * gsd-build watch on a corpus: after its first build and WATCH_WARMUP_EDITS untimed edits, `runs` edits of `file`,
 * each timed from the write to the summary line of the rebuild it caused
 * (which includes the watcher's debounce) and by the build's own figure.
 */
async function watchSeries(args, file) {
  const child = spawn(process.execPath, [bin, 'watch', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const waiting = [];
  let buffered = '';
  let errors = '';
  child.stderr.on('data', (chunk) => (errors = `${errors}${chunk}`.slice(-3000)));
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line.startsWith('built ')) waiting.shift()?.resolve(line);
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const nextBuild = () =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve });
      exited.then((code) => reject(new Error(`gsd-build watch exited (${code}):\n${errors}`)));
    });
  const settle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    await nextBuild();
    // Untimed edits first: a watch session's rebuilds after its first few (V8 compiles the rebuild's code as it runs
    // hot), which is what a developer editing for a while gets.
    for (let index = 0; index < WATCH_WARMUP_EDITS; index += 1) {
      await settle(500);
      const rebuilt = nextBuild();
      edit(file, `warm-up ${index}`);
      await rebuilt;
    }
    const latency = [];
    const build = [];
    const loadBefore = load();
    for (let index = 0; index < runs; index += 1) {
      // Past the debounce and any write of the last rebuild, so each edit starts one rebuild.
      await settle(500);
      const started = process.hrtime.bigint();
      const rebuilt = nextBuild();
      edit(file, `watch ${index}`);
      const line = await rebuilt;
      latency.push(Number(process.hrtime.bigint() - started) / 1e6);
      build.push(Number(/ in (\d+) ms/.exec(line)?.[1] ?? NaN));
    }
    const report = (label, samples) => {
      const sorted = [...samples].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      console.log(`${label.padEnd(44)} ${median.toFixed(0).padStart(7)} ms median of ${runs} (min ${sorted[0].toFixed(0)}, max ${sorted[sorted.length - 1].toFixed(0)}), after ${WATCH_WARMUP_EDITS} untimed edits; load ${loadBefore} -> ${load()}`);
      return median;
    };
    return {
      latency: report('gsd-build watch, upstream: edit to output', latency),
      build: report('gsd-build watch, upstream: its rebuild', build),
    };
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

const results = {};
if (values.loader === 'lib') {
  const built = spawnSync(process.execPath, [path.join(root, 'scripts/build-compiler.mjs'), '--no-types'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`scripts/build-compiler.mjs failed:\n${built.stderr}`);
}
const env = values.loader === 'ts' ? { ...process.env, GSD_BUILD_TS: '1' } : { ...process.env };
delete env.GSD_BUILD_CACHE;
console.log(`gsd-build benchmark: ${os.cpus().length} CPUs, node ${process.version}, compiler ${values.loader === 'lib' ? 'prebuilt (compiler/lib)' : 'TypeScript loader'}, ${runs} runs each, load ${load()}`);
results.node = series('node -e 0', () => run(process.execPath, ['-e', '0']));
results.memoryMsPerMib = memorySeries();

if (wanted('installer')) {
  results.installer = series('upstream installer, 30 installs', () => {
    const started = process.hrtime.bigint();
    let peak = 0;
    for (const runtime of UPSTREAM_RUNTIMES) {
      for (const scope of ['global', 'local']) {
        const home = mkdtempSync(path.join(scratch, 'home-'));
        const project = mkdtempSync(path.join(scratch, 'project-'));
        const result = run(process.execPath, [installer, `--${runtime}`, `--${scope}`], { cwd: project, env: { ...process.env, HOME: home, USERPROFILE: home, CI: '1' } });
        peak = Math.max(peak, result.rssKib ?? 0);
        trash(home);
        trash(project);
      }
    }
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, rssKib: peak || null };
  });
}

if (wanted('upstream')) {
  const out = path.join(scratch, 'up-out');
  const cache = path.join(scratch, 'up-cache');
  results.upstreamCold = series(UPSTREAM_COLD, () => gsdBuild(['--all', '--source', upstream, '--out', out, '--cache', cache]), () => {
    fresh('up-out');
    fresh('up-cache');
  });
  const upstreamFloor = floorSeries('upstream', out);
  results.upstreamFloor = upstreamFloor.median;
  results.upstreamWarm = series('gsd-build --all, upstream corpus: no change', () => gsdBuild(['--all', '--source', upstream, '--out', out, '--cache', cache]));
  const corpus = path.join(scratch, 'up-corpus');
  cpSync(upstream, corpus, { recursive: true });
  gsdBuild(['--all', '--source', corpus, '--out', out, '--cache', cache]);
  const workflow = path.join(corpus, 'gsd-core/workflows', readdirSync(path.join(corpus, 'gsd-core/workflows')).filter((name) => name.endsWith('.md')).sort()[0]);
  results.upstreamOne = series(UPSTREAM_ONE, () => gsdBuild(['--all', '--source', corpus, '--out', out, '--cache', cache]), (index) => edit(workflow, index));
  const watched = await watchSeries(['--source', corpus, '--out', out, '--cache', cache], workflow);
  results.upstreamWatch = watched.latency;
  results.upstreamWatchBuild = watched.build;
  // The cold output's shape, from its floor's plan: every name, and the files on disk (the rest are links of them).
  const { files } = upstreamFloor.plan;
  const distinct = files.filter((file) => file.linkOf === undefined);
  const mib = (list) => (list.reduce((sum, file) => sum + file.size, 0) / 1024 / 1024).toFixed(0);
  console.log(`  (${files.length} files, ${mib(files)} MiB in ${readdirSync(out).length} targets; on disk ${distinct.length} distinct files, ${mib(distinct)} MiB: the rest are hard links)`);
}

if (wanted('source')) {
  const out = path.join(scratch, 'src-out');
  const cache = path.join(scratch, 'src-cache');
  results.sourceCold = series('gsd-build --all, source/: cold', () => gsdBuild(['--all', '--out', out, '--cache', cache]), () => {
    fresh('src-out');
    fresh('src-cache');
  });
  results.sourceFloor = floorSeries('source', out).median;
  results.sourceWarm = series('gsd-build --all, source/: no change', () => gsdBuild(['--all', '--out', out, '--cache', cache]));
  // The maintainers' command after an edit: check against golden/ (an edit makes it fail with a diff: exit 1).
  results.checkFresh = series('gsd-build check, source/: --no-cache', () => gsdBuild(['check', '--no-cache']));
  results.checkWarm = series('gsd-build check, source/: no change', () => gsdBuild(['check', '--cache', cache]));
  const corpus = path.join(scratch, 'src-corpus');
  cpSync(path.join(root, 'source'), corpus, { recursive: true });
  gsdBuild(['check', '--source', corpus, '--cache', cache]);
  results.checkOne = series('gsd-build check, source/: one edit (a diff)', () => gsdBuild(['check', '--source', corpus, '--cache', cache], { allowed: [1] }), (index) => edit(path.join(corpus, 'gsd-core/references/questioning.md'), index));
  // The maintainers' loop before --update: another file edited while the first still differs (both diffs shown).
  results.checkSecond = series('gsd-build check, source/: an edit of another file', () => gsdBuild(['check', '--source', corpus, '--cache', cache], { allowed: [1] }), (index) => edit(path.join(corpus, 'gsd-core/references/ai-evals.md'), index));
  // And --update after each edit, on a copy of the goldens.
  const golden = path.join(scratch, 'src-golden');
  cpSync(path.join(root, 'golden'), golden, { recursive: true });
  gsdBuild(['check', '--update', '--source', corpus, '--golden', golden, '--cache', cache]);
  results.checkUpdate = series('gsd-build check --update, source/: one edit', () => gsdBuild(['check', '--update', '--source', corpus, '--golden', golden, '--cache', cache]), (index) => edit(path.join(corpus, 'gsd-core/references/questioning.md'), index));
  trash(golden);
  trash(corpus);
}

if (wanted('scale')) {
  for (const scale of values.scales.split(',').map(Number)) {
    const corpus = path.join(scratch, `syn-${scale}`);
    const { files } = generate(scale, corpus);
    const out = path.join(scratch, `syn-${scale}-out`);
    const cache = path.join(scratch, `syn-${scale}-cache`);
    const args = ['--target', 'claude', '--scope', 'global', '--source', corpus, '--out', out, '--cache', cache];
    results[`scale${scale}Cold`] = series(`synthetic ${scale}x (${files} files), claude/global: cold`, () => gsdBuild(args), () => {
      fresh(`syn-${scale}-out`);
      fresh(`syn-${scale}-cache`);
    });
    gsdBuild(args);
    results[`scale${scale}One`] = series(`synthetic ${scale}x (${files} files), claude/global: one edit`, () => gsdBuild(args), (index) => edit(path.join(corpus, 'gsd-core/references/ref-0.md'), index));
    trash(corpus);
    trash(out);
  }
}

console.log('\nratios (medians):');
const ratio = (label, a, b) => a !== undefined && b !== undefined && console.log(`  ${label.padEnd(52)} ${(a / b).toFixed(1)}x`);
ratio('upstream installer / gsd-build upstream cold (goal 20x)', results.installer, results.upstreamCold);
ratio('upstream installer / gsd-build upstream no change', results.installer, results.upstreamWarm);
ratio('upstream installer / gsd-build upstream one edit (goal 100x)', results.installer, results.upstreamOne);
ratio('upstream installer / gsd-build watch one edit, edit to output', results.installer, results.upstreamWatch);
ratio('upstream installer / gsd-build watch one edit, its rebuild', results.installer, results.upstreamWatchBuild);
ratio('gsd-build upstream cold / node -e 0', results.upstreamCold, results.node);
ratio('gsd-build upstream cold / its file-system floor', results.upstreamCold, results.upstreamFloor);
ratio('gsd-build source/ cold / its file-system floor', results.sourceCold, results.sourceFloor);
ratio('gsd-build source/ cold / node -e 0', results.sourceCold, results.node);
ratio('gsd-build source/ cold / no change', results.sourceCold, results.sourceWarm);
ratio('gsd-build check --no-cache / check after one edit', results.checkFresh, results.checkOne);
ratio('gsd-build check --no-cache / check, an edit of another file', results.checkFresh, results.checkSecond);
ratio('gsd-build check --no-cache / check --update after one edit', results.checkFresh, results.checkUpdate);
if (peaks.has(UPSTREAM_COLD)) {
  const touched = peaks.get(UPSTREAM_COLD) * results.memoryMsPerMib;
  console.log(`  ${'gsd-build upstream cold: its peak RSS, first touch'.padEnd(52)} ${touched.toFixed(0)} ms (${((touched / results.upstreamCold) * 100).toFixed(0)}% of its wall time, spread over its threads)`);
}
// Each page fault at the first-touch rate (a fault is a first touch of a page, or a touch again after the page was given back).
for (const [label, key] of [[UPSTREAM_COLD, 'upstreamCold'], [UPSTREAM_ONE, 'upstreamOne']]) {
  if (!pageFaults.has(label) || results.memoryMsPerMib === undefined) continue;
  const faulted = (pageFaults.get(label) * 4096 * results.memoryMsPerMib) / (1024 * 1024);
  console.log(`  ${`${label.replace('gsd-build --all, ', '')}: its page faults`.padEnd(52)} ${faulted.toFixed(0)} ms (${pageFaults.get(label)} at the first-touch rate, ${((faulted / results[key]) * 100).toFixed(0)}% of its wall time, spread over its threads)`);
}
if (results.sourceCold !== undefined) console.log(`  ${'gsd-build source/ cold (goal under 1 s)'.padEnd(52)} ${(results.sourceCold / 1000).toFixed(2)} s`);
const scales = values.scales.split(',').map(Number);
for (const scale of scales.slice(1)) {
  ratio(`synthetic ${scale}x / ${scales[0]}x cold (linear: ${scale / scales[0]}x)`, results[`scale${scale}Cold`], results[`scale${scales[0]}Cold`]);
  ratio(`synthetic ${scale}x / ${scales[0]}x one edit`, results[`scale${scale}One`], results[`scale${scales[0]}One`]);
}
rmSync(scratch, { recursive: true, force: true });
