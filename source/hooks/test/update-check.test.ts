// The passive update check (check-update.ts, lib/update.ts) and the status
// line's marker, against a stand-in registry on 127.0.0.1: good answers, and
// hostile ones (oversized, stalled, trickled, malformed, not SemVer, a
// redirect loop, a redirect off http), each of which must leave no cached
// "update available" and never throw.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import AjvModule from 'ajv';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { bundle, project as scratchProject, run as gsdTools, tmpDir } from '../../runtime/test/helpers.ts';
import { checkUpdateHook, latestOf, manifestUrl, runCheck, takeLock } from '../check-update.ts';
import { cacheFile, isNewer, readCache, RELEASE_FILE, SETTINGS, type CacheRecord, type UpdateSettings } from '../lib/update.ts';
import { statusline, updateNotice } from '../statusline.ts';
import settingsJson from '../update-check.json' with { type: 'json' };
import hooksJson from '../hooks.json' with { type: 'json' };

type AjvCtor = new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;

const s = suite('update-check');
const HERE = import.meta.dirname;
const PKG = SETTINGS.package;

// ------------------------------------------------------------ stand-in registry

let server: http.Server;
let base = '';
const hits: string[] = [];
/** What the registry answers at /<pkg>/latest, chosen per test. */
let route = 'newer';
/** When the slow route answered. */
let answeredAt = 0;

const manifest = (version: unknown) => JSON.stringify({ name: PKG, version, dist: { tarball: 'x' } });

function answer(name: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const json = (body: string, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };
  switch (name) {
    case 'newer': return json(manifest('0.2.0'));
    case 'same': return json(manifest('0.1.0'));
    case 'older-prerelease': return json(manifest('0.1.0-rc.3'));
    case 'newer-prerelease': return json(manifest('0.2.0-rc.1'));
    case 'huge': {
      // 8 MiB, chunked, no Content-Length to believe or disbelieve
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 128) {
          sent += 1;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(manifest('9.9.9'));
      };
      res.on('error', () => undefined);
      return pump();
    }
    case 'lying-length': {
      // says 20 bytes, sends 1 MiB of spaces: only the 20 declared bytes are read, which are no manifest
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '20' });
      res.on('error', () => undefined);
      try {
        res.end(Buffer.alloc(1024 * 1024, 0x20));
      } catch {
        // node may refuse the mismatch; the socket is then cut
      }
      return;
    }
    case 'stall': return; // never answers
    case 'trickle': {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"version":"9.9.9", "pad":"');
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'malformed': return json('{"version": "9.9.9",');
    case 'array': return json('["9.9.9"]');
    case 'not-semver': return json(manifest('latest'));
    case 'short-semver': return json(manifest('9.9'));
    case 'v-prefix': return json(manifest('v9.9.9'));
    case 'huge-number': return json(manifest('99999999999.0.0'));
    case 'long-prerelease': return json(manifest(`9.9.9-${'a'.repeat(10_000)}`));
    case 'number': return json(JSON.stringify({ version: 9 }));
    case 'escape': return json(manifest('9.9.9\u001b[31m'));
    case 'proto': return json('{"__proto__": {"version": "9.9.9"}}');
    case 'error-500': return json(manifest('9.9.9'), 500);
    case 'loop': {
      const next = req.url!.endsWith('/a') ? '/loop/b' : '/loop/a';
      res.writeHead(302, { location: next });
      return void res.end();
    }
    case 'to-file': {
      res.writeHead(301, { location: 'file:///etc/passwd' });
      return void res.end();
    }
    case 'redirect-once': {
      res.writeHead(302, { location: `/good/${PKG}/latest` });
      return void res.end();
    }
    case 'slow-newer': {
      setTimeout(() => {
        answeredAt = Date.now();
        json(manifest('0.2.0'));
      }, 2500);
      return;
    }
    default: return json('{}', 404);
  }
}

s.before(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url?.startsWith('/loop/')) return answer('loop', req, res);
    if (req.url?.startsWith('/good/')) return answer('newer', req, res);
    answer(req.url === `/${PKG}/latest` ? route : 'none', req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

s.after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// ------------------------------------------------------------ helpers

/** A hook folder holding a release file, and a home of its own for the cache. */
function install(version = '0.1.0', updateCommand: string | null = '/gsd-update'): { hooksDir: string; env: Record<string, string>; cache: string } {
  const home = tmpDir('gsd-upd-home-');
  const hooksDir = path.join(home, '.claude', 'hooks');
  fs.mkdirSync(hooksDir, { recursive: true });
  fs.writeFileSync(path.join(hooksDir, RELEASE_FILE), JSON.stringify({ version, ...(updateCommand ? { updateCommand } : {}) }));
  const env = { HOME: home, PATH: process.env.PATH ?? '' };
  return { hooksDir, env, cache: cacheFile(hooksDir, env) };
}

const FAST: UpdateSettings = { ...SETTINGS, timeoutMs: 600 };

async function check(name: string, opts: { version?: string; registry?: string; settings?: UpdateSettings } = {}): Promise<{ record: CacheRecord | null; cached: CacheRecord | null; ms: number }> {
  route = name;
  const inst = install(opts.version);
  // A stale "update available" from an earlier check: a failed check must not leave it standing.
  fs.mkdirSync(path.dirname(inst.cache), { recursive: true });
  fs.writeFileSync(inst.cache, JSON.stringify({ checked_at: '2020-01-01T00:00:00.000Z', installed: opts.version ?? '0.1.0', latest: '0.1.5', update_available: true }));
  const started = Date.now();
  const record = await runCheck({ hooksDir: inst.hooksDir, env: inst.env, settings: opts.settings ?? FAST, npmRegistry: async () => opts.registry ?? base });
  return { record, cached: readCache(inst.cache), ms: Date.now() - started };
}

// ------------------------------------------------------------ data

s('should keep its settings as data valid by their schema, naming the package.json package and no registry', () => {
  const schema = JSON.parse(fs.readFileSync(path.join(HERE, '..', 'update-check.schema.json'), 'utf8')) as object;
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  assert.ok(validate(settingsJson), JSON.stringify(validate.errors));
  assert.not.ok(validate({ ...settingsJson, maxRedirects: 50 }), 'limits are bounded by the schema');
  const pkg = JSON.parse(fs.readFileSync(path.join(HERE, '..', '..', '..', 'package.json'), 'utf8')) as { name: string };
  assert.is(settingsJson.package, pkg.name);
  for (const file of ['update-check.json', 'check-update.ts', 'lib/update.ts', 'statusline.ts']) {
    const text = fs.readFileSync(path.join(HERE, '..', file), 'utf8');
    assert.not.match(text, /npmjs\.|yarnpkg\.|npm\.pkg\.github|registry\.[a-z0-9-]+\.(?:org|com|io|net)/i, `${file} names no registry host`);
  }
  const entry = (hooksJson as { id: string; event: string }[]).find((h) => h.id === 'gsd-check-update');
  assert.is(entry?.event, 'SessionStart');
});

s('should compare SemVer by precedence, prereleases before their release', () => {
  const newer: [string, string][] = [
    ['1.2.0', '1.1.9'],
    ['1.10.0', '1.9.0'],
    ['2.0.0', '1.99.99'],
    ['1.2.0', '1.2.0-rc.1'],
    ['1.2.0-rc.2', '1.2.0-rc.1'],
    ['1.2.0-rc.10', '1.2.0-rc.9'],
    ['1.2.0-rc', '1.2.0-beta'],
    ['1.2.0-alpha.1', '1.2.0-alpha'],
    ['1.2.0-alpha.beta', '1.2.0-alpha.1'],
  ];
  for (const [a, b] of newer) {
    assert.ok(isNewer(a, b), `${a} > ${b}`);
    assert.not.ok(isNewer(b, a), `${b} < ${a}`);
  }
  assert.not.ok(isNewer('1.2.0', '1.2.0'));
  for (const bad of ['latest', '1.2', 'v1.3.0', '1.3.0 ', '99999999999.0.0', `1.0.0-${'a'.repeat(100)}`, '01.2.3', 9, null]) assert.not.ok(isNewer(bad, '0.0.1'), String(bad));
});

s('should build the manifest URL under npm\'s registry, refusing other schemes and credentials', () => {
  assert.is(manifestUrl('https://npm.example.test/api/npm/', PKG, 'latest')?.href, `https://npm.example.test/api/npm/${PKG}/latest`);
  assert.is(manifestUrl('https://npm.example.test/api/npm', PKG, 'latest')?.href, `https://npm.example.test/api/npm/${PKG}/latest`);
  assert.is(manifestUrl('https://npm.example.test/', '@scope/name', 'next')?.href, 'https://npm.example.test/@scope%2fname/next');
  for (const bad of ['file:///tmp/', 'ftp://npm.example.test/', 'https://user:secret@npm.example.test/', 'not a url', '']) assert.is(manifestUrl(bad, PKG, 'latest'), null, bad);
});

s('should read the version out of a manifest and nothing else', () => {
  assert.equal(latestOf(manifest('1.2.3')), { latest: '1.2.3' });
  assert.ok('problem' in latestOf('{"__proto__": {"version": "1.2.3"}}'));
  assert.ok('problem' in latestOf('null'));
  assert.ok('problem' in latestOf('"1.2.3"'));
});

// ------------------------------------------------------------ the worker against the stand-in

s('should cache a newer release found at npm\'s registry', async () => {
  const { record, cached } = await check('newer');
  assert.equal({ latest: cached?.latest, update_available: cached?.update_available, installed: cached?.installed, problem: cached?.problem }, { latest: '0.2.0', update_available: true, installed: '0.1.0', problem: undefined });
  assert.equal(record, cached);
});

s('should cache no update for the same version, an older prerelease, and follow one redirect', async () => {
  assert.is((await check('same')).cached?.update_available, false);
  assert.is((await check('older-prerelease')).cached?.update_available, false);
  assert.is((await check('newer-prerelease')).cached?.update_available, true, '0.2.0-rc.1 is newer than 0.1.0');
  assert.is((await check('newer-prerelease', { version: '0.2.0' })).cached?.update_available, false, '0.2.0-rc.1 is older than 0.2.0');
  const once = (await check('redirect-once')).cached;
  assert.is(once?.latest, '0.2.0');
});

const ATTACKS: [string, RegExp][] = [
  ['huge', /over 262144 bytes/],
  ['lying-length', /malformed JSON/],
  ['stall', /no answer within 600 ms/],
  ['trickle', /no answer within 600 ms|over/],
  ['malformed', /malformed JSON/],
  ['array', /JSON object/],
  ['not-semver', /SemVer/],
  ['short-semver', /SemVer/],
  ['v-prefix', /SemVer/],
  ['huge-number', /SemVer/],
  ['long-prerelease', /SemVer/],
  ['number', /SemVer/],
  ['escape', /SemVer/],
  ['proto', /SemVer/],
  ['error-500', /HTTP 200, found 500/],
  ['loop', /more than 3 redirects/],
  ['to-file', /redirect to file:/],
];

for (const [name, why] of ATTACKS) {
  s(`should leave no cached update after a hostile answer: ${name}`, async () => {
    const { record, cached, ms } = await check(name, { version: '0.1.0' });
    assert.ok(record, 'the worker still writes its record');
    assert.is(cached?.update_available, false);
    assert.is(cached?.latest, null);
    assert.match(cached?.problem ?? '', why);
    assert.ok(ms < 3000, `${name} took ${ms} ms`);
  });
}

s('should count the loop\'s requests: the first and three redirects', async () => {
  hits.length = 0;
  route = 'loop';
  await check('loop');
  assert.is(hits.length, 4, hits.join(' '));
});

s('should fail quietly offline and with a registry it must not use', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const offline = await check('newer', { registry: dead });
  assert.match(offline.cached?.problem ?? '', /network error \(ECONNREFUSED\)/);
  assert.is(offline.cached?.update_available, false);
  hits.length = 0;
  const withCredentials = await check('newer', { registry: base.replace('http://', 'http://me:pw@') });
  assert.match(withCredentials.cached?.problem ?? '', /without credentials/);
  assert.is(hits.length, 0, 'nothing was sent');
  const none = await runCheck({ ...install(), npmRegistry: async () => null });
  assert.match(none?.problem ?? '', /no npm registry/);
});

s('should take the registry from npm_config_registry', async () => {
  route = 'newer';
  const inst = install();
  const record = await runCheck({ hooksDir: inst.hooksDir, env: { ...inst.env, npm_config_registry: base }, settings: FAST });
  assert.is(record?.latest, '0.2.0');
});

// ------------------------------------------------------------ the hook

s('should start one worker when the answer is missing or stale, none while it is fresh or locked', () => {
  const inst = install();
  let started = 0;
  // The lock's age is its file's mtime: "now" is the real clock here.
  const opts = { hooksDir: inst.hooksDir, env: inst.env, now: Date.now(), startWorker: () => void (started += 1) };
  assert.equal(checkUpdateHook({ cwd: inst.env.HOME }, opts), { exitCode: 0 });
  assert.is(started, 1);
  checkUpdateHook({ cwd: inst.env.HOME }, opts);
  assert.is(started, 1, 'the lock holds a second session back');
  checkUpdateHook({ cwd: inst.env.HOME }, { ...opts, now: opts.now + SETTINGS.lockStaleMs + 1000 });
  assert.is(started, 2, 'a stale lock is taken over');
  fs.rmSync(`${inst.cache}.lock`);
  fs.writeFileSync(inst.cache, JSON.stringify({ checked_at: new Date(opts.now - 3_600_000).toISOString(), installed: '0.1.0', latest: '0.1.0', update_available: false }));
  checkUpdateHook({ cwd: inst.env.HOME }, opts);
  assert.is(started, 2, 'an answer an hour old is fresh');
  fs.writeFileSync(inst.cache, JSON.stringify({ checked_at: new Date(opts.now - 2 * 3_600_000).toISOString(), installed: '0.1.0', latest: null, update_available: false, problem: 'x' }));
  checkUpdateHook({ cwd: inst.env.HOME }, opts);
  assert.is(started, 3, 'a failure is retried after retryHours');
  fs.rmSync(`${inst.cache}.lock`);
  fs.writeFileSync(inst.cache, JSON.stringify({ checked_at: new Date(opts.now - 60_000).toISOString(), installed: '0.0.9', latest: '0.1.0', update_available: true }));
  assert.equal(checkUpdateHook({ cwd: inst.env.HOME }, opts), { exitCode: 0 }, 'an answer for the version installed before is no answer');
  assert.is(started, 4);
});

s('should tell the session about a cached newer release, in the runtime\'s command syntax', () => {
  const inst = install('0.1.0', '$gsd-update');
  const now = Date.parse('2026-06-01T00:00:00Z');
  fs.mkdirSync(path.dirname(inst.cache), { recursive: true });
  fs.writeFileSync(inst.cache, JSON.stringify({ checked_at: new Date(now - 60_000).toISOString(), installed: '0.1.0', latest: '0.2.0', update_available: true }));
  const answer = checkUpdateHook({ cwd: inst.env.HOME }, { hooksDir: inst.hooksDir, env: inst.env, now, startWorker: () => assert.unreachable('fresh') });
  const context = (answer.stdout as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }).hookSpecificOutput;
  assert.is(context.hookEventName, 'SessionStart');
  assert.match(context.additionalContext, /GSD 0\.2\.0 is out \(installed: 0\.1\.0\); \$gsd-update installs it/);
  assert.is(updateNotice(null, inst.hooksDir, inst.env), '⬆ GSD 0.2.0: $gsd-update');
});

s('should be off with GSD_NO_UPDATE_CHECK, npm offline mode and hooks.update_check false', () => {
  const inst = install();
  const now = Date.parse('2026-06-01T00:00:00Z');
  fs.mkdirSync(path.dirname(inst.cache), { recursive: true });
  fs.writeFileSync(inst.cache, JSON.stringify({ checked_at: new Date(now - 30 * 3_600_000).toISOString(), installed: '0.1.0', latest: '0.2.0', update_available: true }));
  const project = tmpDir('gsd-upd-proj-');
  fs.mkdirSync(path.join(project, '.planning'));
  const run = (env: Record<string, string>, cwd = inst.env.HOME) => {
    let started = 0;
    const answer = checkUpdateHook({ cwd }, { hooksDir: inst.hooksDir, env: { ...inst.env, ...env }, now, startWorker: () => void (started += 1) });
    return { started, advised: answer.stdout !== undefined, marker: updateNotice(cwd === project ? project : null, inst.hooksDir, { ...inst.env, ...env }) };
  };
  assert.equal(run({ GSD_NO_UPDATE_CHECK: '1' }), { started: 0, advised: false, marker: null });
  assert.equal(run({ npm_config_offline: 'true' }), { started: 0, advised: false, marker: null });
  fs.writeFileSync(path.join(project, '.planning', 'config.json'), JSON.stringify({ hooks: { update_check: false } }));
  assert.equal(run({}, project), { started: 0, advised: false, marker: null });
  // the same switches off: the check runs and the marker shows
  assert.equal(run({ GSD_NO_UPDATE_CHECK: '0' }), { started: 1, advised: true, marker: '⬆ GSD 0.2.0: /gsd-update' });
  fs.rmSync(`${inst.cache}.lock`);
  fs.writeFileSync(path.join(project, '.planning', 'config.json'), JSON.stringify({ hooks: { update_check: true } }));
  assert.equal(run({}, project), { started: 1, advised: true, marker: '⬆ GSD 0.2.0: /gsd-update' });
});

s('should show no marker for a planted or tampered cache', () => {
  const inst = install('1.0.0', null);
  fs.mkdirSync(path.dirname(inst.cache), { recursive: true });
  const plant = (record: unknown) => {
    fs.writeFileSync(inst.cache, typeof record === 'string' ? record : JSON.stringify(record));
    return updateNotice(null, inst.hooksDir, inst.env);
  };
  const at = new Date().toISOString();
  assert.is(plant({ checked_at: at, installed: '1.0.0', latest: '1.1.0', update_available: true }), '⬆ GSD 1.1.0 available', 'plain without a known command');
  assert.is(plant({ checked_at: at, installed: '1.0.0', latest: '0.9.0', update_available: true }), null, 'older');
  assert.is(plant({ checked_at: at, installed: '1.0.0', latest: '1.1.0\u001b[2J', update_available: true }), null, 'not SemVer');
  assert.is(plant({ checked_at: at, installed: '1.0.0', latest: '1.1.0', update_available: false }), null);
  assert.is(plant({ checked_at: 'yesterday', installed: '1.0.0', latest: '1.1.0', update_available: true }), null);
  assert.is(plant('{"checked_at": '), null);
  assert.is(plant('[]'), null);
  assert.is(plant({ checked_at: at, installed: '1.0.0', latest: '1.1.0', update_available: true, pad: ' '.repeat(5000) }), null, 'bigger than any record the worker writes');
  const elsewhere = path.join(tmpDir('gsd-upd-link-'), 'record.json');
  fs.writeFileSync(elsewhere, JSON.stringify({ checked_at: at, installed: '1.0.0', latest: '1.1.0', update_available: true }));
  fs.rmSync(inst.cache);
  fs.symlinkSync(elsewhere, inst.cache);
  assert.is(updateNotice(null, inst.hooksDir, inst.env), null, 'a link planted at the cache name');
  fs.rmSync(inst.cache);
  fs.writeFileSync(path.join(inst.hooksDir, RELEASE_FILE), JSON.stringify({ version: '1.0.0', updateCommand: '/gsd-update; rm -rf ~' }));
  fs.writeFileSync(inst.cache, JSON.stringify({ checked_at: at, installed: '1.0.0', latest: '1.1.0', update_available: true }));
  assert.is(updateNotice(null, inst.hooksDir, inst.env), '⬆ GSD 1.1.0 available', 'a command outside the alphabet is dropped');
  const line = statusline({ model: { display_name: 'Opus' }, cwd: inst.env.HOME }, { hooksDir: inst.hooksDir, env: inst.env }).text ?? '';
  assert.ok(line.startsWith('⬆ GSD 1.1.0 available │ Opus'), line);
});

s('should take a lock only once until it is released or stale', () => {
  const file = path.join(tmpDir('gsd-upd-lock-'), 'x.lock');
  assert.ok(takeLock(file, Date.now(), 60_000));
  assert.not.ok(takeLock(file, Date.now(), 60_000));
  assert.ok(takeLock(file, Date.now() + 120_000, 60_000));
});

s('should take hooks.update_check from gsd-tools config-set, refuse a non-boolean, and stop the check with it', async () => {
  const root = scratchProject({ '.planning/config.json': '{}\n' });
  let r = await gsdTools(['config-get', 'hooks.update_check', '--raw'], { cwd: root });
  assert.is(r.stdout.trim(), 'true', 'on by default');
  r = await gsdTools(['config-set', 'hooks.update_check', 'sometimes'], { cwd: root });
  assert.is.not(r.code, 0, 'a non-boolean is refused');
  r = await gsdTools(['config-set', 'hooks.update_check', 'false'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  const inst = install();
  let started = 0;
  const answer = checkUpdateHook({ cwd: path.join(root, 'src') }, { hooksDir: inst.hooksDir, env: inst.env, startWorker: () => void (started += 1) });
  assert.equal({ answer, started }, { answer: { exitCode: 0 }, started: 0 });
  r = await gsdTools(['config-set', 'hooks.update_check', 'true'], { cwd: root });
  checkUpdateHook({ cwd: root }, { hooksDir: inst.hooksDir, env: inst.env, startWorker: () => void (started += 1) });
  assert.is(started, 1);
});

// ------------------------------------------------------------ the built scripts, end to end

s('should return from the built hook at once and leave the answer for the next session and the status line', async () => {
  const built = path.join(await bundle(), 'hooks');
  const inst = install();
  for (const id of ['gsd-check-update', 'gsd-statusline']) fs.copyFileSync(path.join(built, `${id}.cjs`), path.join(inst.hooksDir, `${id}.cjs`));
  route = 'slow-newer';
  const env = { ...inst.env, npm_config_registry: base };
  const payload = JSON.stringify({ hook_event_name: 'SessionStart', session_id: 's1', cwd: inst.env.HOME, source: 'startup' });
  const run = (id: string, input: string, extra: Record<string, string> = {}) => {
    const started = Date.now();
    const r = spawnSync(process.execPath, [path.join(inst.hooksDir, `${id}.cjs`)], { input, encoding: 'utf8', env: { ...env, ...extra }, timeout: 10_000 });
    return { status: r.status, stdout: r.stdout, ms: Date.now() - started };
  };
  answeredAt = 0;
  const first = run('gsd-check-update', payload);
  const hookEnded = Date.now();
  assert.is(first.status, 0);
  assert.is(first.stdout, '', 'nothing cached yet');
  let record: CacheRecord | null = null;
  for (let i = 0; i < 100 && !record; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    record = readCache(inst.cache);
  }
  assert.is(record?.latest, '0.2.0');
  // The registry answered 2.5 s after the request; the hook had ended before that, without waiting.
  assert.ok(answeredAt > 0 && hookEnded < answeredAt, `the hook ended ${answeredAt - hookEnded} ms before the answer (took ${first.ms} ms)`);
  console.log(`  gsd-check-update returned in ${first.ms} ms; the worker's answer came ${answeredAt - hookEnded} ms later`);
  assert.not.ok(fs.existsSync(`${inst.cache}.lock`), 'the worker released its lock');
  const second = run('gsd-check-update', payload);
  assert.match(second.stdout, /GSD 0\.2\.0 is out \(installed: 0\.1\.0\); \/gsd-update installs it/);
  const status = run('gsd-statusline', JSON.stringify({ model: { display_name: 'Opus' }, workspace: { current_dir: inst.env.HOME } }));
  assert.ok(status.stdout.startsWith('⬆ GSD 0.2.0: /gsd-update │ Opus'), status.stdout);
  const off = run('gsd-statusline', JSON.stringify({ model: { display_name: 'Opus' }, workspace: { current_dir: inst.env.HOME } }), { GSD_NO_UPDATE_CHECK: '1' });
  assert.not.match(off.stdout, /GSD 0\.2\.0/);
});

function runAsync(args: string[], input: string, env: Record<string, string>): Promise<{ status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status });
    });
    child.stdin.end(input);
  });
}

/** Each runtime that registers the hook, with its own name for the session-start event (targets/<id>/target.json hooks.events). */
const SESSION_START: [string | null, string][] = [
  [null, 'SessionStart'],
  ['codex', 'SessionStart'],
  ['codebuddy', 'SessionStart'],
  ['qwen', 'SessionStart'],
  ['kimi', 'SessionStart'],
  ['kimi-cli', 'SessionStart'],
  ['augment', 'SessionStart'],
  ['antigravity', 'SessionStart'],
  ['hermes', 'on_session_start'],
  ['copilot', 'sessionStart'],
  ['cursor', 'sessionStart'],
];

s('should run the check from the built hook under each runtime\'s own session-start payload', async () => {
  const built = path.join(await bundle(), 'hooks', 'gsd-check-update.cjs');
  route = 'newer';
  const runs = await Promise.all(
    SESSION_START.map(async ([runtime, event]) => {
      const inst = install();
      fs.copyFileSync(built, path.join(inst.hooksDir, 'gsd-check-update.cjs'));
      const args = [path.join(inst.hooksDir, 'gsd-check-update.cjs'), ...(runtime ? ['--runtime', runtime] : [])];
      // Not spawnSync: the stand-in registry answers from this process's event loop.
      const r = await runAsync(args, JSON.stringify({ hook_event_name: event, session_id: 's1', cwd: inst.env.HOME }), { ...inst.env, npm_config_registry: base });
      let record: CacheRecord | null = null;
      for (let i = 0; i < 100 && !record; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        record = readCache(inst.cache);
      }
      return `${runtime ?? 'claude'}: exit ${r.status}, latest ${record?.latest ?? `none (${record?.problem ?? "no record"})`}`;
    }),
  );
  assert.equal(runs, SESSION_START.map(([runtime]) => `${runtime ?? 'claude'}: exit 0, latest 0.2.0`));
});

s.run();
