// package-legitimacy check, offline: recorded registry answers (fixtures/registry/)
// stand in for npm, PyPI and crates.io. Each verdict per ecosystem, each way a
// lookup fails (always SUS with the reason, never a throw), the typo distance,
// name checks before any URL, and the audit table. The global fetch throws if
// anything reaches for the network.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { checkPackages, RULES, validatedNames } from '../commands/package-legitimacy.ts';
import { main } from '../main.ts';
import { boundedDistance, nearestPopular } from '../supply/distance.ts';
import { fixtureName, networkFetch, type FetchJson } from '../supply/fetch.ts';
import { checkName, normalisePypi } from '../supply/names.ts';
import { FIXED_NOW, run, tmpDir } from './helpers.ts';

const s = suite('package legitimacy');
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'registry');
const NOW = new Date(FIXED_NOW);

/** Run the CLI in-process against the fixtures; any call of the global fetch fails the test. */
async function check(ecosystem: string, names: string[], extra: string[] = []) {
  const real = globalThis.fetch;
  let reached = 0;
  globalThis.fetch = (async () => {
    reached += 1;
    throw new Error('the network was reached');
  }) as typeof fetch;
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await main(['package-legitimacy', 'check', '--ecosystem', ecosystem, ...names, ...extra], {
      cwd: tmpDir(),
      env: { GSD_REGISTRY_FIXTURES: FIXTURES, GSD_NOW: FIXED_NOW },
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
    });
    assert.is(reached, 0, 'fetch was called with fixtures set');
    const text = out.join('');
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { code, text, json, err: err.join('') };
  } finally {
    globalThis.fetch = real;
  }
}

const byName = (json: any) => Object.fromEntries(json.packages.map((p: any) => [p.name, p]));
const rulesOf = (p: any) => p.reasons.map((r: any) => r.rule);

s('should call an established npm package OK, with every signal filled in', async () => {
  const r = await check('npm', ['express', '@types/node']);
  assert.is(r.code, 0);
  const { express, '@types/node': types } = byName(r.json);
  assert.is(express.verdict, 'OK');
  assert.is(express.rule, 'clear');
  assert.equal(express.reasons, []);
  assert.is(express.signals.exists, true);
  assert.is(express.signals.latest_version, '4.21.2');
  assert.is(express.signals.weekly_downloads, 35412876);
  assert.is(express.signals.maintainers, 4);
  assert.is(express.signals.repository, 'git+https://github.com/expressjs/express.git');
  assert.equal(express.signals.install_scripts, []);
  assert.is(express.signals.age_days, 5178);
  assert.is(types.verdict, 'OK', 'a scoped name is looked up with its "/" escaped');
  assert.equal(r.json.counts, { OK: 2, SUS: 0, SLOP: 0 });
});

s('should call npm SLOP for a missing name, an unpublished one and a near-typo with tiny usage', async () => {
  const r = await check('npm', ['express-session-validator-pro', 'flatmap-stream-utils', 'expresss']);
  assert.is(r.code, 0, 'SLOP is data, not a failure');
  const p = byName(r.json);
  assert.is(p['express-session-validator-pro'].verdict, 'SLOP');
  assert.is(p['express-session-validator-pro'].rule, 'not-found');
  assert.is(p['express-session-validator-pro'].signals.exists, false);
  assert.is(p['flatmap-stream-utils'].rule, 'unpublished');
  assert.is(p.expresss.verdict, 'SLOP');
  assert.is(p.expresss.rule, 'typo-squat');
  assert.equal(p.expresss.signals.typo_of, { name: 'express', distance: 1 });
  assert.equal(r.json.counts, { OK: 0, SUS: 0, SLOP: 3 });
});

s('should call npm SUS for a young package with an install script, and for a deprecated one', async () => {
  const r = await check('npm', ['tiny-left-pad', 'request']);
  const p = byName(r.json);
  assert.is(p['tiny-left-pad'].verdict, 'SUS');
  assert.equal(rulesOf(p['tiny-left-pad']), ['young', 'few-downloads', 'no-repository', 'install-scripts']);
  assert.equal(p['tiny-left-pad'].signals.install_scripts, ['postinstall']);
  assert.is(p.request.verdict, 'SUS');
  assert.is(p.request.rule, 'deprecated');
  assert.match(p.request.reasons[0].detail, /request has been deprecated/);
});

s('should call PyPI packages OK, SLOP (missing, no files, typo of requests) and SUS (young sdist-only)', async () => {
  const r = await check('pypi', ['requests', 'huggingface-cli-tools', 'torch-utils-extra', 'reqeusts', 'fastapi-helper-kit']);
  const p = byName(r.json);
  assert.is(p.requests.verdict, 'OK');
  assert.is(p.requests.signals.repository, 'https://github.com/psf/requests');
  assert.is(p.requests.signals.created, '2011-02-14T15:47:13.000000Z', 'the earliest upload across releases');
  assert.is(p.requests.signals.maintainers, null);
  assert.equal(p.requests.signals.not_offered, ['maintainers'], 'PyPI lists no maintainers: not a reason');
  assert.is(p['huggingface-cli-tools'].rule, 'not-found');
  assert.is(p['torch-utils-extra'].rule, 'unpublished');
  assert.is(p.reqeusts.rule, 'typo-squat');
  assert.equal(p.reqeusts.signals.typo_of, { name: 'requests', distance: 1 });
  assert.is(p['fastapi-helper-kit'].verdict, 'SUS');
  assert.ok(rulesOf(p['fastapi-helper-kit']).includes('install-scripts'), 'a release with no wheel runs setup at install');
  assert.equal(r.json.counts, { OK: 1, SUS: 1, SLOP: 3 });
});

s('should look PyPI names up in their normal form and keep one of each', async () => {
  assert.is(normalisePypi('PyYAML'), 'pyyaml');
  assert.is(normalisePypi('Foo__Bar.-baz'), 'foo-bar-baz');
  const r = await check('pypi', ['requests', 'Requests', 'REQUESTS']);
  assert.is(r.json.packages.length, 1);
});

s('should call crates OK, SLOP (missing, typo of serde_json) and SUS (young, yanked latest)', async () => {
  const r = await check('crates', ['serde', 'tokio-async-runtime', 'serde_jsno', 'tiny-hasher']);
  const p = byName(r.json);
  assert.is(p.serde.verdict, 'OK');
  assert.is(p.serde.signals.maintainers, 2);
  assert.is(p.serde.signals.weekly_downloads, Math.round((71234567 * 7) / 90), 'recent_downloads covers 90 days');
  assert.is(p['tokio-async-runtime'].rule, 'not-found');
  assert.is(p.serde_jsno.rule, 'typo-squat');
  assert.equal(p.serde_jsno.signals.typo_of, { name: 'serde_json', distance: 1 }, '"-" and "_" compare equal; a swap is one edit');
  assert.is(p['tiny-hasher'].verdict, 'SUS');
  assert.ok(rulesOf(p['tiny-hasher']).includes('deprecated'));
  assert.match(p['tiny-hasher'].reasons.find((x: any) => x.rule === 'deprecated').detail, /latest version 0\.2\.0 yanked/);
});

s('should degrade every failed lookup to SUS with its reason, never a throw', async () => {
  const npm = byName((await check('npm', ['slow-pkg', 'offline-pkg', 'lodash', 'never-recorded'])).json);
  assert.is(npm['slow-pkg'].verdict, 'SUS');
  assert.is(npm['slow-pkg'].rule, 'lookup-failed');
  assert.match(npm['slow-pkg'].reasons[0].detail, /registry\.npmjs\.org: timed out after 5000 ms/);
  assert.match(npm['offline-pkg'].reasons[0].detail, /network error \(getaddrinfo ENOTFOUND/);
  assert.is(npm['offline-pkg'].signals.exists, null, 'unknown, not missing: never SLOP on a failure');
  // The document answered but the downloads API did not: that signal is unknown and says why.
  assert.is(npm.lodash.verdict, 'SUS');
  assert.is(npm.lodash.signals.weekly_downloads, null);
  assert.match(npm.lodash.signals.lookup_failures[0], /api\.npmjs\.org downloads: expected HTTP 200 or 404, found 503/);
  assert.match(npm['never-recorded'].reasons[0].detail, /no recorded answer for https:\/\/registry\.npmjs\.org\/never-recorded/);
  const pypi = byName((await check('pypi', ['flaky-pkg', 'PyYAML'])).json);
  assert.match(pypi['flaky-pkg'].reasons[0].detail, /pypi\.org: expected HTTP 200 or 404, found 500/);
  assert.match(pypi.PyYAML.reasons[0].detail, /pypistats\.org: expected HTTP 200 or 404, found 429/);
  const crates = byName((await check('crates', ['broken-crate', 'rand'])).json);
  assert.match(crates['broken-crate'].reasons[0].detail, /crates\.io: expected a JSON answer, found malformed JSON/);
  assert.match(crates.rand.reasons[0].detail, /crates\.io owners: expected HTTP 200 or 404, found 500/);
  for (const p of [...Object.values(npm), ...Object.values(pypi), ...Object.values(crates)] as any[]) assert.is(p.verdict, 'SUS', p.name);
});

s('should time a hanging registry out through the real fetch path and report SUS', async () => {
  // A fetch that never answers but honours the abort signal, as Node's does.
  const hanging = ((_url: string, init: { signal: AbortSignal }) =>
    new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)))) as unknown as typeof fetch;
  // AbortSignal.timeout's timer does not hold the process open; a real socket would.
  const keepAlive = setTimeout(() => {}, 10_000);
  const [r] = await checkPackages('npm', validatedNames('npm', ['express']), networkFetch(30, RULES.maxAnswerBytes, hanging), NOW);
  clearTimeout(keepAlive);
  assert.is(r!.verdict, 'SUS');
  assert.match(r!.reasons[0]!.detail, /timed out after 30 ms/);
  // And a transport that throws outright, and one that answers a JSON array.
  const boom: FetchJson = async () => {
    throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
  };
  const [b] = await checkPackages('crates', validatedNames('crates', ['serde']), boom, NOW);
  assert.match(b!.reasons[0]!.detail, /crates\.io: network error \(ECONNREFUSED\)/);
  const array: FetchJson = async () => ({ status: 200, body: '[]' });
  const [a] = await checkPackages('pypi', validatedNames('pypi', ['requests']), array, NOW);
  assert.match(a!.reasons[0]!.detail, /expected a JSON object, found an array/);
});

s('should send a User-Agent, ask for JSON and refuse an answer over the size cap', async () => {
  const seen: { url: string; headers: Record<string, string> }[] = [];
  const big = (async (url: string, init: { headers: Record<string, string> }) => {
    seen.push({ url, headers: init.headers });
    return new Response('{}', { status: 200, headers: { 'content-length': '999999' } });
  }) as unknown as typeof fetch;
  const [r] = await checkPackages('crates', validatedNames('crates', ['serde']), networkFetch(1000, 1000, big), NOW);
  assert.is(seen[0]!.url, 'https://crates.io/api/v1/crates/serde');
  assert.match(seen[0]!.headers['user-agent']!, /^gsd-tools/);
  assert.is(seen[0]!.headers.accept, 'application/json');
  assert.match(r!.reasons[0]!.detail, /over the 1000-byte cap/);
});

s('should stop reading an answer with no declared length once it passes the cap', async () => {
  let pulled = 0;
  // A 1 MiB chunked body (2,048 chunks of 512 bytes): read whole before the cap is checked, every chunk is pulled.
  const chunked = (async () =>
    new Response(new ReadableStream({ pull(controller) { pulled += 1; controller.enqueue(new Uint8Array(512).fill(0x20)); if (pulled === 2048) controller.close(); } }), { status: 200 })) as unknown as typeof fetch;
  const [r] = await checkPackages('npm', validatedNames('npm', ['express']), networkFetch(5000, 1000, chunked), NOW);
  assert.match(r!.reasons[0]!.detail, /over the 1000-byte cap/);
  assert.ok(pulled <= 4, `${pulled} chunks pulled for a 1000-byte cap`);
});

s('should measure typo distance with a swap as one edit, bounded', () => {
  assert.is(boundedDistance('reqeusts', 'requests', 2), 1);
  assert.is(boundedDistance('expresss', 'express', 2), 1);
  assert.is(boundedDistance('lodahs', 'lodash', 1), 1);
  assert.is(boundedDistance('kitten', 'sitting', 3), 3);
  assert.is(boundedDistance('kitten', 'sitting', 1), 2, 'over the bound answers bound + 1');
  assert.is(boundedDistance('a'.repeat(300), 'a'.repeat(300), 2), 3, 'inputs over the length cap are never compared');
  assert.equal(nearestPopular('expresss', ['react', 'express'], RULES.typo.bands), { name: 'express', distance: 1 });
  assert.is(nearestPopular('express', ['express', 'expresss'], RULES.typo.bands), null, 'a popular name is not a typo');
  assert.is(nearestPopular('vuex', ['vue'], RULES.typo.bands), null, 'names under the first band are not compared');
  assert.is(nearestPopular('requests-toolbelt', ['requests'], RULES.typo.bands), null);
});

s('should refuse bad names before any URL is built, naming the expected form', async () => {
  const bad: [string, string, RegExp][] = [
    ['npm', '../../etc/passwd', /expected an npm name: .*@scope\/name/],
    ['npm', '@scope', /is not a valid name/],
    ['npm', '_private', /not starting with "\." or "_"/],
    ['npm', 'a'.repeat(215), /at most 214 characters/],
    ['pypi', 'requests==2.0', /expected a PyPI project name: .*no version or extras/],
    ['pypi', 'requests[socks]', /PyPI project name/],
    ['pypi', '-lead', /starting and ending with a letter or digit/],
    ['crates', '1password', /expected a crate name: .*starting with a letter/],
    ['crates', 'serde json', /crate name/],
    ['crates', 'a?b=c', /crate name/],
  ];
  for (const [eco, name, message] of bad) {
    const r = await check(eco, [name], ['--json-errors']);
    assert.is(r.code, 2, name);
    const e = JSON.parse(r.err);
    assert.is(e.reason, 'invalid-args', name);
    assert.match(e.message, message, name);
  }
  const two = await check('npm', ['ok-name', 'Bad Name', 'x/y']);
  assert.match(two.err, /"Bad Name", "x\/y" are not valid names/);
  assert.is(checkName('npm', 'JSONStream').ok, true, 'legacy capitals are still valid npm names');
  const many = await check('npm', Array.from({ length: RULES.maxPackages + 1 }, (_, i) => `pkg-${i}`));
  assert.is(many.code, 2);
  assert.match(many.err, new RegExp(`expected at most ${RULES.maxPackages} packages per call, found ${RULES.maxPackages + 1}`));
  const noEco = await check('npm', [], []);
  assert.is(noEco.code, 2, 'at least one package is required');
});

s('should print the audit table with --raw, one row per package, registry text made safe', async () => {
  const r = await check('npm', ['express', 'expresss', 'slow-pkg'], ['--raw']);
  assert.is(r.code, 0);
  const lines = r.text.trimEnd().split('\n');
  assert.is(lines[0], '| Package | Ecosystem | Verdict | Age (days) | Weekly downloads | Maintainers | Repository | Why |');
  assert.is(lines.length, 5);
  assert.is(lines[2], '| express | npm | OK | 5178 | 35412876 | 4 | git+https://github.com/expressjs/express.git | all checks clear |');
  assert.match(lines[3]!, /^\| expresss \| npm \| SLOP \| .* typo-squat: one edit from the popular express with 14 weekly downloads/);
  assert.match(lines[4]!, /^\| slow-pkg \| npm \| SUS \| unknown \| unknown \| unknown \| none \| lookup-failed: registry\.npmjs\.org: timed out/);
  const pypi = await check('pypi', ['requests'], ['--raw']);
  assert.match(pypi.text, /\| requests \| pypi \| OK \| 5131 \| 124567890 \| n\/a \|/);
  // A hostile repository field cannot break out of its cell or the table.
  const hostile: FetchJson = async (url) =>
    url.includes('downloads')
      ? { status: 200, body: JSON.stringify({ downloads: 5000000 }) }
      : {
          status: 200,
          body: JSON.stringify({
            'dist-tags': { latest: '1.0.0' },
            time: { created: '2015-01-01T00:00:00.000Z' },
            maintainers: [{ name: 'a' }],
            versions: { '1.0.0': { repository: 'x | y\n## Injected `code`' } },
          }),
        };
  const { auditTable } = await import('../supply/verdict.ts');
  const rows = auditTable('npm', await checkPackages('npm', validatedNames('npm', ['some-lib']), hostile, NOW)).trimEnd().split('\n');
  assert.is(rows.length, 3);
  assert.ok(rows[2]!.includes("x \\| y ## Injected 'code'"), rows[2]);
});

s('should name each recorded answer after its URL', () => {
  assert.is(fixtureName('https://registry.npmjs.org/@types%2Fnode'), 'registry.npmjs.org__types_2Fnode.json');
  assert.is(fixtureName('https://pypi.org/pypi/requests/json'), 'pypi.org_pypi_requests_json.json');
});

s('should answer the same through the bundled CLI, exit 0 with SLOP, and keep the rules file consistent', async () => {
  const r = await run(['package-legitimacy', 'check', '--ecosystem', 'pypi', 'reqeusts', 'requests'], { cwd: tmpDir(), env: { GSD_REGISTRY_FIXTURES: FIXTURES } });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.counts, { OK: 1, SUS: 0, SLOP: 1 });
  assert.is(r.json.ecosystem, 'pypi');
  // Every popular name is a valid name of its ecosystem, and every rule has a verdict.
  for (const [eco, names] of Object.entries(RULES.popular)) for (const n of names) assert.ok(checkName(eco as 'npm', n).ok, `${eco}: ${n}`);
  for (const v of Object.values(RULES.verdicts)) assert.ok(['OK', 'SUS', 'SLOP'].includes(v));
});

s.run();
