// npm run test:runtimes: the runtimes' own programs load the bundles.
//
// Installs pinned versions of each runtime's program into a cache outside the
// repository (scripts/runtimes/lib/install.mjs), builds every bundle, lays each
// scope's bundle into a fresh fake home or project, runs the program's offline
// listing and validation commands with no network but loopback, and checks that
// every command/skill and agent is listed with its description and that config
// and hook files load without an error or warning (scripts/runtimes/<id>.mjs).
// A deliberately broken copy per runtime proves that its probe can fail.
//
// Usage: node scripts/test-runtimes.mjs [runtime-id ...] [--jobs N] [--keep] [--verbose]
// (--keep leaves the sandboxes in the temp folder; --verbose prints what each broken fixture made the probe report)
// Ends with `N passed, M failed`; exits 1 on any failure.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CACHE_ROOT, ensurePackage, packageRoot } from './runtimes/lib/install.mjs';
import { layBundle, makeSandbox, networkIsolation, removeSandbox, runOffline, startSession, stubRequests } from './runtimes/lib/sandbox.mjs';
import { expectedItems, loadTarget } from './runtimes/lib/bundle.mjs';
import { Findings } from './runtimes/lib/findings.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROBES_DIR = path.join(REPO_ROOT, 'scripts', 'runtimes');
const PROBE_TIMEOUT_MS = 240_000;

const { values: options, positionals: only } = parseArgs({
  allowPositionals: true,
  options: {
    jobs: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', short: 'v', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (options.help) {
  console.log('Usage: node scripts/test-runtimes.mjs [runtime-id ...] [--jobs N] [--keep] [--verbose]');
  process.exit(0);
}

const suiteStarted = Date.now();
const results = []; // { name, ok, line, failures }

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function record(name, ok, line, failures = []) {
  results.push({ name, ok, line, failures });
  console.log(line);
  for (const failure of failures) console.log(`      ${failure}`);
}

async function loadProbes() {
  const files = readdirSync(PROBES_DIR).filter((file) => file.endsWith('.mjs')).sort();
  const probes = [];
  for (const file of files) probes.push((await import(pathToFileURL(path.join(PROBES_DIR, file)).href)).default);
  const known = probes.map((probe) => probe.id);
  const unknown = only.filter((id) => !known.includes(id));
  if (unknown.length > 0) {
    console.error(`unknown runtime ${unknown.join(', ')}; probes exist for ${known.join(', ')}`);
    process.exit(2);
  }
  return probes.filter((probe) => only.length === 0 || only.includes(probe.id));
}

/** "real program <name> <version>" per target id must match the probes' pins. */
function checkValidatedMap(probes) {
  const file = path.join(PROBES_DIR, 'validated.json');
  const map = JSON.parse(readFileSync(file, 'utf8'));
  const problems = [];
  for (const probe of probes) {
    const want = `real program ${probe.program} ${probe.version}${probe.coverage ? ` (${probe.coverage})` : ''}`;
    if (map[probe.id] !== want) problems.push(`scripts/runtimes/validated.json: ${probe.id} is ${JSON.stringify(map[probe.id] ?? null)}, expected ${JSON.stringify(want)}`);
  }
  const ok = problems.length === 0;
  record('validated.json', ok, `${'validated.json'.padEnd(10)} matches the probes' pinned versions  ${ok ? 'pass' : 'FAIL'}`, problems);
}

async function installAll(probes) {
  const unique = new Map();
  for (const probe of probes) for (const pkg of probe.packages) unique.set(`${pkg.key}@${pkg.version}`, pkg);
  const outcome = new Map();
  const queue = [...unique.entries()];
  const started = Date.now();
  const worker = async () => {
    while (queue.length > 0) {
      const [key, pkg] = queue.shift();
      outcome.set(key, await ensurePackage(pkg, (message) => console.log(`  ${message}`)));
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  const fresh = [...outcome.values()].filter((o) => o.ok && !o.cached).length;
  console.log(`programs: ${unique.size} pinned packages in ${CACHE_ROOT} (${fresh} installed now, ${seconds(Date.now() - started)})`);
  return outcome;
}

function buildBundles(outDir) {
  const started = Date.now();
  const build = spawnSync(process.execPath, [path.join(REPO_ROOT, 'compiler', 'bin', 'gsd-build.mjs'), '--all', '--out', outDir], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (build.status !== 0) {
    record('build', false, `build      gsd-build --all  FAIL`, (build.stdout + build.stderr).trim().split('\n').slice(-20));
    return false;
  }
  console.log(`bundles: built into ${outDir} (${seconds(Date.now() - started)})`);
  return true;
}

function context(probe, scope, bundleRoot, workDir) {
  const definition = loadTarget(REPO_ROOT, probe.id);
  const bundleDir = path.join(bundleRoot, probe.id, scope);
  const box = makeSandbox(workDir, `${probe.id}-${scope}`);
  layBundle(bundleDir, scope === 'global' ? box.home : box.project);
  let stubs = 0;
  const ctx = {
    id: probe.id,
    scope,
    definition,
    scopeDef: definition.scopes[scope],
    bundleDir,
    box,
    expected: expectedItems(bundleDir, definition, scope),
    findings: new Findings(probe.program),
    root: (key) => packageRoot(probe.packages.find((pkg) => pkg.key === key)),
    bin: (key, rel) => path.join(packageRoot(probe.packages.find((pkg) => pkg.key === key)), rel),
    run: (argv, opts = {}) => runOffline(argv, { box, ...opts, env: { ...probe.env, ...opts.env } }),
    session: (argv, opts = {}) => startSession(argv, { box, ...opts, env: { ...probe.env, ...opts.env } }),
    /** A loopback stub for this sandbox: pass as `stub` to run/session, read with requests(). */
    stub: (extra = {}) => ({ port: 8765, log: path.join(box.tmp, `stub-${++stubs}.jsonl`), ...extra }),
    requests: (stub) => stubRequests(stub.log),
    /** Where a bundle file (relative path) lies in the sandbox. */
    placed: (file) => path.join(scope === 'global' ? box.home : box.project, file),
    /** For broken fixtures: a top-level command/skill and an agent of the bundle. */
    victims() {
      const command = ctx.expected.commands.find((c) => !c.nested);
      const agent = ctx.expected.agents[0];
      if (!command || !agent) throw new Error('the bundle has no top-level command or no agent to break');
      return { command, agent, commandFile: ctx.placed(command.file), agentFile: ctx.placed(agent.file) };
    },
  };
  return ctx;
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
    }),
  ]);
}

async function runProbe(probe, scope, bundleRoot, workDir, { fixture = false } = {}) {
  const started = Date.now();
  let ctx;
  try {
    ctx = context(probe, scope, bundleRoot, workDir);
    if (probe.setup) await probe.setup(ctx);
    let patterns = [];
    if (fixture) patterns = await probe.fixture.break(ctx);
    await withTimeout(probe.probe(ctx), PROBE_TIMEOUT_MS, `${probe.id} ${scope}`);
    return { ctx, patterns, ms: Date.now() - started };
  } catch (error) {
    ctx?.findings.fail(`probe error: ${error?.stack?.split('\n').slice(0, 3).join(' ') ?? error}`);
    return { ctx, patterns: [], ms: Date.now() - started, error };
  } finally {
    if (ctx && !options.keep) removeSandbox(ctx.box);
  }
}

function label(probe, scope) {
  return `${probe.id.padEnd(9)} ${probe.version.padEnd(9)} ${scope.padEnd(7)}`;
}

async function testRuntime(probe, installed, bundleRoot, workDir) {
  const missing = probe.packages.map((pkg) => installed.get(`${pkg.key}@${pkg.version}`)).filter((o) => !o?.ok);
  if (missing.length > 0) {
    record(probe.id, false, `${label(probe, 'all')} ${probe.program} not available  FAIL`, missing.map((o) => o?.message ?? 'not installed'));
    return;
  }
  for (const scope of probe.scopes) {
    const { ctx, ms } = await runProbe(probe, scope, bundleRoot, workDir);
    const findings = ctx?.findings ?? new Findings(probe.program);
    const ok = findings.failures.length === 0 && Object.keys(findings.counts).length > 0;
    if (Object.keys(findings.counts).length === 0 && findings.failures.length === 0) findings.fail('the probe checked nothing');
    record(`${probe.id} ${scope}`, ok, `${label(probe, scope)} ${findings.summary().padEnd(52)} ${ok ? 'pass' : 'FAIL'}  ${seconds(ms)}`, findings.failures);
  }
  if (probe.fixture) {
    const { scope, what } = probe.fixture;
    const { ctx, patterns, ms, error } = await runProbe(probe, scope, bundleRoot, workDir, { fixture: true });
    const failures = ctx?.findings.failures ?? [];
    const missed = error ? [`the fixture run itself failed: ${error.message}`] : patterns.filter((pattern) => !failures.some((failure) => pattern.test(failure))).map((pattern) => `not caught: ${pattern}`);
    const ok = !error && patterns.length > 0 && failures.length > 0 && missed.length === 0;
    record(
      `${probe.id} fixture`,
      ok,
      `${label(probe, scope)} broken fixture (${what}): ${failures.length} problem(s) reported`.padEnd(85) + ` ${ok ? 'pass' : 'FAIL'}  ${seconds(ms)}`,
      ok && !options.verbose ? [] : [...missed, ...failures.map((failure) => `reported: ${failure}`)],
    );
  }
}

/**
 * A probe's plugin check (probe.plugin: Claude Code's plugin and marketplace):
 * `gsd-build plugin` once, validated as built, then a broken copy whose
 * every planted defect must be reported.
 */
async function testPlugin(probe, installed, workDir) {
  const missing = probe.packages.map((pkg) => installed.get(`${pkg.key}@${pkg.version}`)).filter((o) => !o?.ok);
  if (missing.length > 0) return;
  const built = path.join(workDir, `${probe.id}-plugin`);
  const started = Date.now();
  const build = spawnSync(process.execPath, [path.join(REPO_ROOT, 'compiler', 'bin', 'gsd-build.mjs'), 'plugin', '--out', built], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (build.status !== 0) {
    record(`${probe.id} plugin`, false, `${label(probe, 'plugin')} gsd-build plugin  FAIL`, (build.stdout + build.stderr).trim().split('\n').slice(-20));
    return;
  }
  for (const broken of [false, true]) {
    const runStarted = Date.now();
    const tree = broken ? path.join(workDir, `${probe.id}-plugin-broken`) : built;
    if (broken) cpSync(built, tree, { recursive: true });
    const box = makeSandbox(workDir, `${probe.id}-plugin${broken ? '-broken' : ''}`);
    const ctx = {
      id: probe.id,
      box,
      tree,
      findings: new Findings(probe.program),
      bin: (key, rel) => path.join(packageRoot(probe.packages.find((pkg) => pkg.key === key)), rel),
      run: (argv, opts = {}) => runOffline(argv, { box, ...opts, env: { ...probe.env, ...opts.env } }),
      session: (argv, opts = {}) => startSession(argv, { box, ...opts, env: { ...probe.env, ...opts.env } }),
    };
    let patterns = [];
    let error = null;
    try {
      if (probe.setup) await probe.setup(ctx);
      if (broken) patterns = await probe.plugin.break(ctx);
      await withTimeout(probe.plugin.validate(ctx), PROBE_TIMEOUT_MS, `${probe.id} plugin`);
    } catch (caught) {
      error = caught;
      ctx.findings.fail(`probe error: ${caught?.stack?.split('\n').slice(0, 3).join(' ') ?? caught}`);
    } finally {
      if (!options.keep) removeSandbox(box);
    }
    const failures = ctx.findings.failures;
    const ms = Date.now() - runStarted + (broken ? 0 : runStarted - started);
    if (!broken) {
      const ok = failures.length === 0 && Object.keys(ctx.findings.counts).length > 0;
      record(`${probe.id} plugin`, ok, `${label(probe, 'plugin')} ${ctx.findings.summary().padEnd(52)} ${ok ? 'pass' : 'FAIL'}  ${seconds(ms)}`, failures);
    } else {
      const missed = error ? [`the fixture run itself failed: ${error.message}`] : patterns.filter((pattern) => !failures.some((failure) => pattern.test(failure))).map((pattern) => `not caught: ${pattern}`);
      const ok = !error && patterns.length > 0 && missed.length === 0;
      record(
        `${probe.id} plugin fixture`,
        ok,
        `${label(probe, 'plugin')} broken plugin (${probe.plugin.what}): ${failures.length} problem(s) reported`.padEnd(85) + ` ${ok ? 'pass' : 'FAIL'}  ${seconds(ms)}`,
        ok && !options.verbose ? [] : [...missed, ...failures.map((failure) => `reported: ${failure}`)],
      );
    }
  }
}

const probes = await loadProbes();
console.log(`runtime validation: ${probes.map((probe) => `${probe.id} ${probe.version}`).join(', ')}`);
checkValidatedMap(probes);
let isolationError = null;
try {
  networkIsolation();
} catch (error) {
  isolationError = error.message;
}
if (isolationError) {
  record('network', false, `network    isolation  FAIL`, [isolationError]);
} else {
  const installed = await installAll(probes);
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'gsd-runtimes-'));
  const bundleRoot = path.join(workDir, 'bundles');
  if (buildBundles(bundleRoot)) {
    const queue = [...probes];
    const jobs = Math.max(1, Number(options.jobs) || 1);
    await Promise.all(
      Array.from({ length: jobs }, async () => {
        while (queue.length > 0) {
          const probe = queue.shift();
          await testRuntime(probe, installed, bundleRoot, workDir);
          if (probe.plugin) await testPlugin(probe, installed, workDir);
        }
      }),
    );
  }
  if (!options.keep) rmSync(workDir, { recursive: true, force: true });
  else console.log(`kept sandboxes in ${workDir}`);
}

const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`suite time ${seconds(Date.now() - suiteStarted)}`);
if (failed > 0) console.log(`failed: ${results.filter((r) => !r.ok).map((r) => r.name).join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
