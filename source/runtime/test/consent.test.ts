// The installer's consent gate for capabilities: a bundle built with a
// third-party capability that brings a hook is refused unless the user names
// it with --allow-capability; the install record says what was allowed and
// which files the capability brought; uninstall and an update without it
// remove exactly those. Then the attacks: a capability posing as first-party,
// a bundle manifest or install record edited to claim consent, a hook passed
// off under another capability's id or under none.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { compile, emitBundles, errorsOf, REPO_ROOT } from '../../../compiler/pipeline.ts';
import { serializeManifest } from '../../../compiler/emit/bundle-manifest.ts';
import { landingPolicies } from '../../../compiler/targets/landing-policy.ts';
import { firstPartySources, loadCapabilities } from '../../../compiler/load/load-capabilities.ts';
import { bundleFromFiles, MANIFEST_FILE } from '../install/bundle.ts';
import { install, INSTALLED_FILE, uninstall, type InstalledManifest, type Options } from '../install/install.ts';
import type { LandingPolicy } from '../install/landing.ts';
import trust from '../install/capability-trust.json' with { type: 'json' };
import { checkCapabilities } from '../install/consent.ts';
import trustSchema from '../install/capability-trust.schema.json' with { type: 'json' };
import { Ajv } from 'ajv';
import { tmpDir } from './helpers.ts';
import { runCli } from '../../../compiler/test/fixture-support.ts';
import { manifestOf, snapshot, treeFiles, type Files } from './install-fixtures.ts';

const s = suite('capability consent');
const FIXTURE = path.join(REPO_ROOT, 'compiler', 'test', 'fixtures', 'capabilities', 'edit-log');
let files: Files;
let policies: LandingPolicy[];

s.before(async () => {
  const compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source'), capabilities: [{ dir: FIXTURE, display: 'fixtures/edit-log', origin: 'third-party' }] });
  assert.equal(errorsOf(compiled.diagnostics), []);
  const emitted = emitBundles(compiled, [{ target: 'claude', scope: 'global' }]);
  assert.equal(errorsOf(emitted.diagnostics), []);
  files = treeFiles(emitted.bundles.get('claude/global')!);
  policies = landingPolicies(compiled.targets);
});

const HOOK = '.claude/hooks/edit-log-record.cjs';
type Capabilities = NonNullable<ReturnType<typeof manifestOf>['capabilities']>;

function options(home: string, extra: Partial<Options> = {}): Options {
  return { home, cwd: tmpDir('consent-project'), env: {}, now: new Date('2026-01-02T03:04:05Z'), policies, ...extra };
}

/** The bundle with its manifest's capability list rewritten. */
function edited(change: (capabilities: Capabilities) => unknown[]): Files {
  const manifest = manifestOf(files);
  const next = new Map(files);
  next.set(MANIFEST_FILE, Buffer.from(serializeManifest({ ...manifest, capabilities: change(structuredClone(manifest.capabilities!)) as Capabilities })));
  return next;
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal, found none');
}

s('should refuse a third-party hook without consent, writing nothing, and install it with --allow-capability', () => {
  const home = tmpDir('consent-home');
  const message = refusal(() => install(bundleFromFiles(files), options(home)));
  assert.match(message, /^refused: the bundle brings code of third-party capabilities, installed only with your consent: edit-log 0\.1\.0: \.claude\/hooks\/edit-log-record\.cjs\. Read it, then pass --allow-capability edit-log; nothing was written$/);
  assert.equal([...snapshot(home).keys()], [], 'nothing written');
  assert.match(refusal(() => install(bundleFromFiles(files), options(home, { allowCapabilities: ['nyquist'] }))), /^expected --allow-capability to name a capability of this bundle \(nyquist-validation, pattern-mapper, tdd, threat-model, ui-contract, edit-log\), found "nyquist"$/);

  const report = install(bundleFromFiles(files), options(home, { allowCapabilities: ['edit-log'] }));
  assert.ok(report.notes.includes('capability edit-log 0.1.0: its code is installed with your consent (--allow-capability)'));
  assert.ok(fs.existsSync(path.join(home, HOOK)));
  const record = JSON.parse(fs.readFileSync(path.join(home, '.claude', INSTALLED_FILE), 'utf8')) as InstalledManifest;
  const entries = Object.fromEntries(record.capabilities!.map((entry) => [entry.id, entry]));
  assert.equal({ ...entries['edit-log']!, digest: '' }, { id: 'edit-log', version: '0.1.0', origin: 'third-party', digest: '', code: true, allowed: true, files: [HOOK] });
  assert.equal([entries['nyquist-validation']!.origin, entries['nyquist-validation']!.code, entries['nyquist-validation']!.allowed], ['first-party', false, false]);

  // Consent is asked again: the record saying "allowed" does not stand in for it, edited or not.
  assert.match(refusal(() => install(bundleFromFiles(files), options(home))), /installed only with your consent: edit-log/);

  // Uninstall removes the capability's files with the rest.
  uninstall(path.join(home, '.claude'), { now: new Date('2026-01-03T00:00:00Z'), policies, home });
  for (const file of entries['edit-log']!.files) assert.ok(!fs.existsSync(path.join(home, file)), file);
});

s('should remove exactly the files a capability brought when an update comes without it', () => {
  const home = tmpDir('consent-update');
  install(bundleFromFiles(files), options(home, { allowCapabilities: ['edit-log'] }));
  const manifest = manifestOf(files);
  const mine = new Set(manifest.capabilities!.find((entry) => entry.id === 'edit-log')!.files);
  // The same bundle without the capability: its files, its manifest entry and its hook registration gone.
  const settings = '.claude/settings.json';
  const without = new Map([...files].filter(([file]) => !mine.has(file)));
  const settingsText = JSON.parse(Buffer.from(files.get(settings)!).toString('utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  for (const event of Object.keys(settingsText.hooks)) settingsText.hooks[event] = settingsText.hooks[event]!.filter((group) => !group.hooks.some((hook) => hook.command.includes('edit-log')));
  const settingsBytes = Buffer.from(`${JSON.stringify(settingsText, null, 2)}\n`);
  without.set(settings, settingsBytes);
  const listed = manifest.files.filter((file) => !mine.has(file.path)).map((file) => (file.path === settings ? { ...file, sha256: createHash('sha256').update(settingsBytes).digest('hex'), bytes: settingsBytes.length } : file));
  without.set(MANIFEST_FILE, Buffer.from(serializeManifest({ ...manifest, capabilities: manifest.capabilities!.filter((entry) => entry.id !== 'edit-log'), files: listed })));
  const before = snapshot(home);
  const report = install(bundleFromFiles(without), options(home));
  assert.equal(report.files.removed.map((file) => file.replace(/^~\//, '')).sort(), [...mine].sort());
  const after = snapshot(home);
  const gone = [...before.keys()].filter((key) => !after.has(key) && !key.endsWith('/'));
  assert.equal(gone.sort(), [...mine].sort(), 'nothing else left');
  assert.ok(!Buffer.from(fs.readFileSync(path.join(home, settings))).toString('utf8').includes('edit-log'), 'its hook registration is gone');
});

s('should ask consent through gsd-tools install --allow-capability from an unzipped bundle', () => {
  const dir = tmpDir('consent-unzipped');
  for (const [file, bytes] of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), bytes);
  }
  const home = tmpDir('consent-cli-home');
  const run = (...args: string[]) => spawnSync(process.execPath, [path.join(dir, '.claude/gsd-core/bin/gsd-tools.cjs'), 'install', '--global', ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: home, GSD_NOW: '2026-01-02T03:04:05Z' } });
  const refusedRun = run();
  assert.is(refusedRun.status, 1, refusedRun.stderr);
  assert.match(refusedRun.stderr, /installed only with your consent: edit-log 0\.1\.0: \.claude\/hooks\/edit-log-record\.cjs\. Read it, then pass --allow-capability edit-log/);
  assert.ok(!fs.existsSync(path.join(home, '.claude')), 'nothing written');
  const allowed = run('--allow-capability', 'edit-log');
  assert.is(allowed.status, 0, allowed.stderr);
  assert.match(allowed.stdout, /capability edit-log 0\.1\.0: its code is installed with your consent/);
  assert.ok(fs.existsSync(path.join(home, HOOK)));
});

s('should ask consent through gsd-build install --target with a third-party capability, and install with --allow-capability', () => {
  const home = tmpDir('consent-build-home');
  const project = tmpDir('consent-build-project');
  const run = (...args: string[]) => runCli(['install', '--target', 'claude', '--scope', 'global', '--capability', FIXTURE, '--raw', ...args], { cwd: project, env: { HOME: home, GSD_NOW: '2026-01-02T03:04:05Z' } });
  const refusedRun = run();
  assert.is(refusedRun.status, 1, refusedRun.stderr);
  assert.match(refusedRun.stderr, /installed only with your consent: edit-log 0\.1\.0: \.claude\/hooks\/edit-log-record\.cjs\. Read it, then pass --allow-capability edit-log/);
  assert.ok(!fs.existsSync(path.join(home, '.claude')), 'nothing written');
  // A name that is not a capability of this bundle is a usage error, and writes nothing either.
  const wrong = run('--allow-capability', 'edit');
  assert.is(wrong.status, 2, wrong.stderr);
  assert.match(wrong.stderr, /expected --allow-capability to name a capability of this bundle \(.*edit-log\), found "edit"/);
  assert.ok(!fs.existsSync(path.join(home, '.claude')), 'nothing written');
  const allowed = run('--allow-capability', 'edit-log');
  assert.is(allowed.status, 0, allowed.stderr);
  assert.match(allowed.stdout, /capability edit-log 0\.1\.0: its code is installed with your consent/);
  assert.equal(fs.readFileSync(path.join(home, HOOK)), Buffer.from(files.get(HOOK)!));
});

s('should not take a capability posing as first-party at its word', () => {
  const home = tmpDir('consent-posing');
  // Renamed and relabelled: an id that is not ours.
  const renamed = edited((list) => list.map((entry) => (entry.id === 'edit-log' ? { ...entry, id: 'edit', origin: 'first-party' } : entry)));
  assert.match(refusal(() => install(bundleFromFiles(renamed), options(home))), /named after it|not one of ours/);
  // Our id and digest copied, the real entry dropped, the hook renamed to match: ours brings no code, so the hook is not covered.
  const ours = manifestOf(files).capabilities!.find((entry) => entry.id === 'nyquist-validation')!;
  const moved = '.claude/hooks/nyquist-validation-record.cjs';
  const posing = edited((list) => list.filter((entry) => entry.id !== 'nyquist-validation').map((entry) => (entry.id === 'edit-log' ? { ...entry, id: 'nyquist-validation', origin: 'first-party', digest: ours.digest, files: entry.files.map((file) => (file === HOOK ? moved : file)) } : entry)));
  const manifest = JSON.parse(Buffer.from(posing.get(MANIFEST_FILE)!).toString('utf8')) as ReturnType<typeof manifestOf>;
  posing.set(moved, posing.get(HOOK)!);
  posing.delete(HOOK);
  posing.set(MANIFEST_FILE, Buffer.from(serializeManifest({ ...manifest, files: manifest.files.map((file) => (file.path === HOOK ? { ...file, path: moved } : file)).sort((a, b) => (a.path < b.path ? -1 : 1)) })));
  assert.match(refusal(() => install(bundleFromFiles(posing), options(home))), /installed only with your consent: nyquist-validation 0\.1\.0 \(ours brings no code: this is not it\): \.claude\/hooks\/nyquist-validation-record\.cjs/);
  assert.equal([...snapshot(home).keys()], [], 'nothing written');
});

s('should refuse a bundle manifest that claims consent, and a hook passed off under another id or under none', () => {
  const home = tmpDir('consent-smuggle');
  const claiming = edited((list) => list.map((entry) => ({ ...entry, allowed: true })));
  assert.match(refusal(() => bundleFromFiles(claiming)), /"capabilities" is not a list of \{id, version, origin, source, digest, hooks, files\}/);
  const underOurs = edited((list) => list.map((entry) => (entry.id === 'edit-log' ? { ...entry, hooks: false, files: entry.files.filter((file) => file !== HOOK) } : entry.id === 'nyquist-validation' ? { ...entry, files: [...entry.files, HOOK] } : entry)));
  assert.match(refusal(() => install(bundleFromFiles(underOurs), options(home))), /^refused: \.claude\/hooks\/edit-log-record\.cjs is claimed by capability nyquist-validation but not named after it/);
  const unclaimed = edited((list) => list.map((entry) => (entry.id === 'edit-log' ? { ...entry, hooks: false, files: entry.files.filter((file) => file !== HOOK) } : entry)));
  assert.match(refusal(() => install(bundleFromFiles(unclaimed), options(home))), /^refused: \.claude\/hooks\/edit-log-record\.cjs is a program that is neither GSD's own nor claimed by a capability/);
  const ownHook = edited((list) => list.map((entry) => (entry.id === 'edit-log' ? { ...entry, files: [...entry.files, '.claude/hooks/gsd-statusline.cjs'] } : entry)));
  assert.match(refusal(() => install(bundleFromFiles(ownHook), options(home, { allowCapabilities: ['edit-log'] }))), /claims \.claude\/hooks\/gsd-statusline\.cjs, a program of GSD's own/);
  assert.equal([...snapshot(home).keys()], [], 'nothing written');
});

s('should keep the trust data valid against its schema', () => {
  const validate = new Ajv({ allErrors: true, strict: true }).compile(trustSchema);
  assert.ok(validate(trust), JSON.stringify(validate.errors));
  assert.not.ok(validate({ ...trust, firstParty: { 'Bad Id': { digest: 'sha256:00', code: false } } }), 'a bad id or digest is refused');
});

s('should list every first-party capability in the trust data with the digest of its folder, bringing no code', () => {
  const loaded = loadCapabilities(firstPartySources(path.join(REPO_ROOT, 'source'), 'capabilities'), { version: '0.1.0', configSchema: null });
  const digests = Object.fromEntries(loaded.capabilities.map((capability) => [capability.id, { digest: capability.digest, code: capability.hooks.length > 0 }]));
  if (process.env['UPDATE_FIXTURES'] === '1') {
    // The one way to refresh the trust data after editing a first-party capability; read its diff before committing.
    const file = path.join(REPO_ROOT, 'source/runtime/install/capability-trust.json');
    const current = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof trust;
    fs.writeFileSync(file, `${JSON.stringify({ ...current, firstParty: digests }, null, 2)}\n`);
    return;
  }
  assert.equal(trust.firstParty, digests, 'refresh source/runtime/install/capability-trust.json after editing a first-party capability (UPDATE_FIXTURES=1 node scripts/run-tests.mjs consent)');
});

s('should let every bundle of our own corpus through without consent (the golden manifests)', () => {
  const manifests: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name === MANIFEST_FILE) manifests.push(path.join(dir, entry.name));
    }
  };
  walk(path.join(REPO_ROOT, 'golden'));
  assert.ok(manifests.length >= 36, `${manifests.length} golden manifests`);
  for (const file of manifests) {
    const records = checkCapabilities(JSON.parse(fs.readFileSync(file, 'utf8')) as ReturnType<typeof manifestOf>, []);
    assert.ok(records.every((record) => record.origin === 'first-party' && !record.code), file);
  }
});

s.run();
