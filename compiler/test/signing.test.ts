// Release signatures: minisign's formats made and checked with Node's crypto.
// A sign/verify round trip in both algorithms; every way a signature can be
// wrong gives its own verdict; a signed release is reproducible for the same
// key; the installers report a good signature and refuse a bad one whole,
// writing nothing; and the real minisign (/usr/bin/minisign, which npm test
// installs as root) checks our signatures and we check its.
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { readZip } from '../release/read-zip.ts';
import { zipTree } from '../release/release.ts';
import { generateKeyPair, loadSigningKey, SigningKeyError, type Signer } from '../release/signing.ts';
import {
  builtInKey,
  checkBundleSignature,
  MANIFEST_SIGNATURE_FILE,
  parsePublicKey,
  parseSignature,
  verifySignature,
  type Verdict,
} from '../../source/runtime/install/signature.ts';
import { suite, assert } from './harness.ts';
import { releasedZipCount, runCli, temporaryDir } from './fixture-support.ts';

const signing = suite('signing');
const MINISIGN = '/usr/bin/minisign';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const keys = temporaryDir('keys');
const pair = generateKeyPair();
writeFileSync(path.join(keys, 'test.key'), pair.secretKeyFile, { mode: 0o600 });
writeFileSync(path.join(keys, 'test.pub'), pair.publicKeyFile);
const signer: Signer = loadSigningKey(pair.secretKeyFile, 'test key');
const other: Signer = loadSigningKey(generateKeyPair().secretKeyFile, 'other key');

const message = Buffer.from('{"manifestVersion":1,"files":[]}\n');
const problem = (verdict: Verdict) => (verdict.ok ? 'verified' : verdict.problem);
/** Line `index` of a signature file replaced by `edit(line)`. */
const editLine = (text: string, index: number, edit: (line: string) => string) =>
  text
    .split('\n')
    .map((line, at) => (at === index ? edit(line) : line))
    .join('\n');
/** A base64 line with one byte of its decoded bytes flipped. */
const flipByte = (line: string, at: number) => {
  const bytes = Buffer.from(line, 'base64');
  bytes[at]! ^= 0x01;
  return bytes.toString('base64');
};

signing('should sign and verify in minisign formats: prehashed ED and legacy Ed, key files with and without their comment', () => {
  const started = performance.now();
  const text = signer.sign(message, 'gsd-build release 0.1.0 file:gsd-file-manifest.json');
  const signedIn = performance.now() - started;
  const lines = text.split('\n');
  assert.is(lines.length, 5, 'four lines and a final newline');
  assert.is(lines[0], `untrusted comment: signature from gsd-build key ${signer.keyId}`);
  assert.is(Buffer.from(lines[1]!, 'base64').subarray(0, 2).toString('latin1'), 'ED');
  assert.is(lines[2], 'trusted comment: gsd-build release 0.1.0 file:gsd-file-manifest.json');
  const before = performance.now();
  const verdict = verifySignature(message, text, signer.publicKey);
  const verifiedIn = performance.now() - before;
  assert.equal(verdict, { ok: true, keyId: signer.keyId, algorithm: 'ED', trustedComment: 'gsd-build release 0.1.0 file:gsd-file-manifest.json' });
  assert.ok(signedIn < 200 && verifiedIn < 200, `sign ${signedIn} ms, verify ${verifiedIn} ms`);
  const legacy = signer.sign(message, 'legacy', { legacy: true });
  assert.is(parseSignature(legacy).algorithm, 'Ed');
  assert.equal(verifySignature(message, legacy, signer.publicKey), { ok: true, keyId: signer.keyId, algorithm: 'Ed', trustedComment: 'legacy' });
  // The same key, message and comment give the same bytes (Ed25519 is deterministic).
  assert.is(signer.sign(message, 'x'), signer.sign(message, 'x'));
  // Key files: minisign's two lines, the base64 line alone, CRLF line ends.
  const file = signer.publicKeyFile;
  assert.match(file, new RegExp(`^untrusted comment: minisign public key ${signer.keyId}\\nRW[A-Za-z0-9+/]{54}\\n$`));
  for (const form of [file, file.split('\n')[1]!, file.replace(/\n/g, '\r\n')]) assert.is(parsePublicKey(form).keyId, signer.keyId);
  assert.match(signer.keyId, /^[0-9A-F]{16}$/);
  assert.is(verifySignature(message, text.replace(/\n/g, '\r\n'), signer.publicKey).ok, true, 'CRLF signature file');
});

signing('should give each damaged or foreign signature its own verdict, saying what was expected and found', () => {
  const text = signer.sign(message, 'gsd-build release 0.1.0 file:gsd-file-manifest.json');
  const tamperedMessage = Buffer.from(message);
  tamperedMessage[5]! ^= 0x20;
  assert.match(problem(verifySignature(tamperedMessage, text, signer.publicKey)), /expected the signature to match the signed file's bytes, found it does not/);
  assert.match(problem(verifySignature(message, editLine(text, 1, (line) => flipByte(line, 40)), signer.publicKey)), /expected the signature to match/);
  assert.match(problem(verifySignature(message, editLine(text, 3, (line) => flipByte(line, 3)), signer.publicKey)), /expected the global signature to cover the trusted comment/);
  assert.match(problem(verifySignature(message, editLine(text, 2, (line) => line.replace('0.1.0', '9.9.9')), signer.publicKey)), /the comment was changed after signing/);
  assert.match(
    problem(verifySignature(message, text, other.publicKey)),
    new RegExp(`expected a signature by key id ${other.keyId}, found one by key id ${signer.keyId}`),
  );
  // The key id matches but the key does not (a forged key id).
  const forged = parsePublicKey(Buffer.concat([Buffer.from('Ed'), signer.publicKey.keyIdBytes, other.publicKey.raw]).toString('base64'));
  assert.match(problem(verifySignature(message, text, forged)), /expected the signature to match/);
  const truncated: [string, RegExp][] = [
    [text.split('\n').slice(0, 3).join('\n'), /expected 4 lines .*, found 3/],
    [text.slice(0, text.indexOf('\n') + 30), /expected 4 lines .*, found 2/],
    ['', /expected 4 lines .*, found 1/],
    [editLine(text, 3, (line) => line.slice(0, 40)), /expected line 4, the global signature, of 64 bytes, found 30/],
  ];
  for (const [damaged, why] of truncated) assert.match(problem(verifySignature(message, damaged, signer.publicKey)), why);
  assert.match(problem(verifySignature(message, editLine(text, 1, () => 'not*base64!'), signer.publicKey)), /not a minisign signature: expected line 2, the signature, as base64, found "not\*base64!"/);
  assert.match(problem(verifySignature(message, editLine(text, 1, (line) => line.replace(/=*$/, '') + 'A'), signer.publicKey)), /expected line 2, the signature, of 74 bytes, found 75/);
  // The same bytes, but with the padding bits set: not canonical, so not ours to guess at.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const loose = editLine(text, 1, (line) => {
    const at = line.indexOf('=') - 1;
    return line.slice(0, at) + alphabet[alphabet.indexOf(line[at]!) ^ 1] + line.slice(at + 1);
  });
  assert.match(problem(verifySignature(message, loose, signer.publicKey)), /expected line 2, the signature, as canonical base64/);
  assert.match(problem(verifySignature(message, editLine(text, 0, () => 'comment: x'), signer.publicKey)), /expected line 1 to start "untrusted comment: "/);
  assert.match(problem(verifySignature(message, editLine(text, 2, (line) => line.replace('trusted comment: ', 'trusted: ')), signer.publicKey)), /expected line 3 to start "trusted comment: "/);
  const otherAlgorithm = editLine(text, 1, (line) => {
    const bytes = Buffer.from(line, 'base64');
    bytes.write('XX', 0, 'latin1');
    return bytes.toString('base64');
  });
  assert.match(problem(verifySignature(message, otherAlgorithm, signer.publicKey)), /expected signature algorithm "ED" .* or "Ed" .*, found "XX"/);
  assert.throws(() => parsePublicKey('RWgarbage'), /expected an Ed25519 public key as base64|of 42 bytes/);
  assert.throws(() => parsePublicKey('hello\nworld\nagain'), /expected a minisign public key/);
});

signing('should report an unsigned bundle as integrity only, refuse it under --require-signature, and refuse a bad signature whole', () => {
  const none = checkBundleSignature({ label: 'b', manifestBytes: message, signatureText: null });
  assert.equal(none, { status: 'none', summary: 'signature: none — checked against its own manifest only (integrity, not origin)' });
  assert.throws(
    () => checkBundleSignature({ label: 'b', manifestBytes: message, signatureText: null, require: true }),
    (error: Error & { reason?: string }) => error.reason === 'refused' && /--require-signature expected gsd-file-manifest\.json\.minisig .*found none/.test(error.message),
  );
  const text = signer.sign(message, 't');
  const good = checkBundleSignature({ label: 'b', manifestBytes: message, signatureText: text, pinned: signer.publicKey, require: true });
  assert.is(good.status, 'verified');
  assert.is(good.summary, `signature: verified (key id ${signer.keyId}, pinned by --public-key, signs gsd-file-manifest.json; every file matched its sha256)`);
  // Against the built-in key, a test key's signature is another key's.
  assert.throws(
    () => checkBundleSignature({ label: 'b', manifestBytes: message, signatureText: text }),
    (error: Error) => new RegExp(`b/gsd-file-manifest\\.json\\.minisig: refused: bad signature .* built-in key ${builtInKey().keyId}: expected a signature by key id ${builtInKey().keyId}, found one by key id ${signer.keyId}.*nothing was written`).test(error.message),
  );
  assert.throws(() => checkBundleSignature({ label: 'b', manifestBytes: Buffer.from('{}'), signatureText: text, pinned: signer.publicKey }), /refused: bad signature .*changed after signing/);
});

signing('should read only an Ed25519 PKCS#8 secret key, and keygen should write a 0600 secret and a minisign public key, never overwriting', () => {
  for (const [text, why] of [
    ['', /found nothing/],
    ['untrusted comment: minisign encrypted secret key\nRWRTY0Iy...\n', /found a minisign secret key/],
    [generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), /expected an Ed25519 key, found a rsa key/],
    ['-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', /expected a readable PKCS#8 private key/],
  ] as const) {
    assert.throws(() => loadSigningKey(text, 'k'), (error: Error) => error instanceof SigningKeyError && why.test(error.message), String(why));
  }
  const out = path.join(temporaryDir('keygen'), 'keys');
  let result = runCli(['keygen', '--out', out]);
  assert.is(result.status, 0, result.stderr);
  const secret = path.join(out, 'release-signing.key');
  assert.is(statSync(secret).mode & 0o777, 0o600);
  const loaded = loadSigningKey(readFileSync(secret, 'utf8'), secret);
  assert.is(readFileSync(path.join(out, 'release-signing.pub'), 'utf8'), loaded.publicKeyFile);
  assert.match(result.stdout, new RegExp(`generated key id ${loaded.keyId}`));
  const before = readFileSync(secret, 'utf8');
  result = runCli(['keygen', '--out', out]);
  assert.is(result.status, 1);
  assert.match(result.stderr, /expected no file at .*release-signing\.key, found one; keygen never overwrites a key/);
  assert.is(readFileSync(secret, 'utf8'), before);
  assert.is(runCli(['keygen']).status, 2);
});

signing('should ship the project public key as minisign reads it', () => {
  const key = builtInKey();
  assert.is(readFileSync(path.join(REPO_ROOT, 'compiler/data/release-signing.pub'), 'utf8'), `untrusted comment: minisign public key ${key.keyId}\n${key.base64}\n`);
});

// ---------------------------------------------------------------- releases and installs

let signedDir = '';
const zipName = (dir: string) => readdirSync(dir).find((file) => /^gsd-claude-global-.*\.zip$/.test(file))!;

signing('should sign a release reproducibly: the same key (env or --sign-key) gives the same bytes; a bad key writes nothing', async () => {
  signedDir = temporaryDir('signed1');
  const second = temporaryDir('signed2');
  const a = runCli(['release', '--out', signedDir], { env: { GSD_SIGNING_KEY: pair.secretKeyFile, TZ: 'UTC' } });
  assert.is(a.status, 0, a.stderr);
  assert.match(a.stdout, new RegExp(`released ${await releasedZipCount()} zip\\(s\\).*; signed with key id ${signer.keyId}`));
  assert.match(a.stderr, new RegExp(`warning: signing with key id ${signer.keyId}, not the project's key ${builtInKey().keyId}`));
  const b = runCli(['release', '--out', second, '--sign-key', path.join(keys, 'test.key')], { env: { GSD_SIGNING_KEY: '', TZ: 'Pacific/Chatham' }, umask: '077' });
  assert.is(b.status, 0, b.stderr);
  const files = readdirSync(signedDir).sort();
  assert.equal(readdirSync(second).sort(), files);
  assert.ok(files.includes('SHA256SUMS.minisig'));
  for (const file of files) assert.is(sha256(readFileSync(path.join(second, file))), sha256(readFileSync(path.join(signedDir, file))), file);
  const sums = readFileSync(path.join(signedDir, 'SHA256SUMS'));
  assert.equal(verifySignature(sums, readFileSync(path.join(signedDir, 'SHA256SUMS.minisig'), 'utf8'), signer.publicKey), {
    ok: true,
    keyId: signer.keyId,
    algorithm: 'ED',
    trustedComment: 'gsd-build release 0.1.0 file:SHA256SUMS',
  });
  const zip = zipName(signedDir);
  const folder = zip.replace(/\.zip$/, '');
  const entries = await readZip(readFileSync(path.join(signedDir, zip)));
  const manifest = entries.find((entry) => entry.name === `${folder}/gsd-file-manifest.json`)!.contents;
  const signature = entries.find((entry) => entry.name === `${folder}/${MANIFEST_SIGNATURE_FILE}`)!.contents.toString('utf8');
  assert.equal(verifySignature(manifest, signature, signer.publicKey), { ok: true, keyId: signer.keyId, algorithm: 'ED', trustedComment: `gsd-build release 0.1.0 file:${folder}/gsd-file-manifest.json` });
  // The installer in the zip checks against the project's key, built into it (not read from the zip, nor from this checkout).
  const installer = entries.find((entry) => entry.name === `${folder}/.claude/gsd-core/bin/gsd-install.cjs`)!.contents.toString('utf8');
  assert.ok(installer.includes(builtInKey().base64), "the project's key is in the released installer");
  assert.ok(!installer.includes(signer.publicKey.base64), "the release signer's key is not");
  const released = JSON.parse(readFileSync(path.join(signedDir, 'release-manifest.json'), 'utf8')) as { signature: { keyId: string; publicKey: string } };
  assert.equal([released.signature.keyId, released.signature.publicKey], [signer.keyId, signer.publicKey.base64]);
  const bad = temporaryDir('badkey');
  const c = runCli(['release', '--out', path.join(bad, 'out')], { env: { GSD_SIGNING_KEY: 'not a key' } });
  assert.is(c.status, 1);
  assert.match(c.stderr, /GSD_SIGNING_KEY: expected an Ed25519 private key as PKCS#8 PEM .*, found not a key…; nothing was written/);
  assert.equal(readdirSync(bad), []);
});

/** The claude global zip of the signed release with its entries changed by `edit` (folder-relative path → bytes; null drops it). */
async function rezip(edit: (files: Map<string, Buffer>) => void): Promise<string> {
  const zip = zipName(signedDir);
  const folder = zip.replace(/\.zip$/, '');
  const entries = await readZip(readFileSync(path.join(signedDir, zip)));
  const files = new Map(entries.filter((entry) => !entry.directory).map((entry) => [entry.name.slice(folder.length + 1), entry.contents]));
  const executable = new Set(entries.filter((entry) => entry.mode === 0o755 && !entry.directory).map((entry) => entry.name.slice(folder.length + 1)));
  edit(files);
  const out = path.join(temporaryDir('rezip'), zip);
  writeFileSync(out, await zipTree(folder, new Map([...files].map(([file, contents]) => [file, { contents, executable: executable.has(file) }]))));
  return out;
}

const installEnv = () => ({ HOME: temporaryDir('home'), GSD_NO_CODE_CACHE: '1' });

signing('should install a signed zip reporting the verified key, and refuse a zip whose manifest was edited after signing, writing nothing', async () => {
  const zip = path.join(signedDir, zipName(signedDir));
  const project = temporaryDir('project');
  let env = installEnv();
  let result = runCli(['install', '--zip', zip, '--public-key', path.join(keys, 'test.pub'), '--raw'], { cwd: project, env });
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`^signature: verified \\(key id ${signer.keyId}, pinned by --public-key, signs gsd-file-manifest\\.json; every file matched its sha256\\)$`, 'm'));
  assert.ok(existsSync(path.join(env.HOME, '.claude/gsd-core/bin/gsd-tools.cjs')));
  env = installEnv();
  result = runCli(['install', '--zip', zip, '--public-key', signer.publicKey.base64, '--dry-run'], { cwd: project, env });
  assert.is(result.status, 0, result.stderr);
  const report = JSON.parse(result.stdout) as { signature: { status: string; keyId: string; key: string } };
  assert.equal([report.signature.status, report.signature.keyId, report.signature.key], ['verified', signer.keyId, 'pinned']);
  // Signed by a key that is not the one checked against: refused whole.
  result = runCli(['install', '--zip', zip], { cwd: project, env });
  assert.is(result.status, 1);
  assert.match(result.stderr, new RegExp(`refused: bad signature of gsd-file-manifest\\.json against the built-in key ${builtInKey().keyId}: expected a signature by key id ${builtInKey().keyId}, found one by key id ${signer.keyId}.*nothing was written`));
  // A file and its manifest entry both changed after signing (what a careful attacker does).
  const tampered = await rezip((files) => {
    const manifest = JSON.parse(files.get('gsd-file-manifest.json')!.toString('utf8')) as { files: { path: string; sha256: string; bytes: number }[] };
    const target = manifest.files.find((file) => file.path.endsWith('gsd-core/VERSION'))!;
    const evil = Buffer.from('0.1.0\n# edited\n');
    files.set(target.path, evil);
    Object.assign(target, { sha256: sha256(evil), bytes: evil.length });
    files.set('gsd-file-manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  });
  env = installEnv();
  result = runCli(['install', '--zip', tampered, '--public-key', path.join(keys, 'test.pub')], { cwd: project, env });
  assert.is(result.status, 1, result.stdout);
  assert.match(result.stderr, /gsd-file-manifest\.json\.minisig: refused: bad signature of gsd-file-manifest\.json .*expected the signature to match the signed file's bytes, found it does not.*nothing was written/);
  assert.equal([readdirSync(env.HOME), readdirSync(project)], [[], []]);
  result = runCli(['install', '--zip', zip, '--public-key', 'RWnot-a-key'], { cwd: project, env });
  assert.is(result.status, 2);
  assert.match(result.stderr, /--public-key: expected a minisign public key .*found no readable file/);
  assert.is(runCli(['install', '--target', 'claude', '--require-signature'], { cwd: project, env }).status, 2);
});

signing('should refuse an unsigned zip under --require-signature, and install it otherwise as integrity only', async () => {
  const unsigned = await rezip((files) => files.delete(MANIFEST_SIGNATURE_FILE));
  const project = temporaryDir('project');
  const env = installEnv();
  let result = runCli(['install', '--zip', unsigned, '--require-signature'], { cwd: project, env });
  assert.is(result.status, 1);
  assert.match(result.stderr, /refused: --require-signature expected gsd-file-manifest\.json\.minisig beside gsd-file-manifest\.json, found none \(an unsigned bundle\); nothing was written/);
  assert.equal([readdirSync(env.HOME), readdirSync(project)], [[], []]);
  result = runCli(['install', '--zip', unsigned, '--dry-run', '--raw'], { cwd: project, env });
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /^signature: none — checked against its own manifest only \(integrity, not origin\)$/m);
});

/** A zip unpacked to disk as unzip would. */
async function unzipTo(zip: string, dir: string): Promise<string> {
  const entries = await readZip(readFileSync(zip));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.directory) mkdirSync(full, { recursive: true });
    else writeFileSync(full, entry.contents, { mode: entry.mode });
  }
  return path.join(dir, entries[0]!.name);
}

signing('should verify an unzipped signed bundle in gsd-tools install, and refuse its edited manifest writing nothing', async () => {
  const folder = await unzipTo(path.join(signedDir, zipName(signedDir)), temporaryDir('unzipped'));
  const tools = path.join(folder, '.claude/gsd-core/bin/gsd-tools.cjs');
  const project = temporaryDir('project');
  const run = (args: string[], env: Record<string, string>) => spawnSync(process.execPath, [tools, ...args], { cwd: project, env: { ...env, PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  let env = installEnv();
  let result = run(['install', '--global', '--public-key', path.join(keys, 'test.pub'), '--raw'], env);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`^signature: verified \\(key id ${signer.keyId}, pinned by --public-key`, 'm'));
  assert.ok(existsSync(path.join(env.HOME, '.claude/gsd-core/bin/gsd-tools.cjs')));
  env = installEnv();
  result = run(['install', '--global', '--require-signature'], env);
  assert.is(result.status, 1);
  assert.match(result.stderr, new RegExp(`expected a signature by key id ${builtInKey().keyId}, found one by key id ${signer.keyId}`));
  const manifestPath = path.join(folder, 'gsd-file-manifest.json');
  writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replace('"version": "', '"version": "9'));
  result = run(['install', '--global', '--public-key', signer.publicKey.base64], env);
  assert.is(result.status, 1, result.stdout);
  assert.match(result.stderr, /refused: bad signature of gsd-file-manifest\.json against the pinned key .*changed after signing.*nothing was written/);
  assert.equal([readdirSync(env.HOME), readdirSync(project)], [[], []]);
});

// ---------------------------------------------------------------- interop with the real minisign

/** The real minisign; its absence fails the test (a skipped check must not count as a pass): npm test's pretest installs it. */
function minisign(args: string[], cwd: string) {
  if (!existsSync(MINISIGN)) throw new Error(`minisign not found at ${MINISIGN}. These tests need Debian's minisign package: apt-get update && apt-get install -y minisign (npm test's pretest does this as root).`);
  return spawnSync(MINISIGN, args, { cwd, encoding: 'utf8' });
}

signing('should interoperate with minisign both ways', () => {
  const dir = temporaryDir('minisign');
  writeFileSync(path.join(dir, 'file.json'), message);
  writeFileSync(path.join(dir, 'ours.pub'), signer.publicKeyFile);
  // Ours, checked by minisign: prehashed, legacy, against the key file and the -P line.
  writeFileSync(path.join(dir, 'ours.minisig'), signer.sign(message, 'gsd-build release 0.1.0 file:file.json'));
  writeFileSync(path.join(dir, 'legacy.minisig'), signer.sign(message, 'legacy form', { legacy: true }));
  let result = minisign(['-Vm', 'file.json', '-x', 'ours.minisig', '-P', signer.publicKey.base64], dir);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /Signature and comment signature verified\nTrusted comment: gsd-build release 0\.1\.0 file:file\.json/);
  assert.is(minisign(['-Vm', 'file.json', '-x', 'legacy.minisig', '-p', 'ours.pub'], dir).status, 0);
  // minisign refuses what we refuse: another key, an edited comment.
  writeFileSync(path.join(dir, 'other.pub'), other.publicKeyFile);
  assert.is(minisign(['-Vm', 'file.json', '-x', 'ours.minisig', '-p', 'other.pub'], dir).status, 1);
  writeFileSync(path.join(dir, 'edited.minisig'), editLine(signer.sign(message, 'a'), 2, () => 'trusted comment: b'));
  assert.match(minisign(['-Vm', 'file.json', '-x', 'edited.minisig', '-p', 'ours.pub'], dir).stderr, /Comment signature verification failed/);
  // minisign's, checked by ours: an unencrypted key pair of its own, both algorithms.
  result = minisign(['-G', '-W', '-p', 'theirs.pub', '-s', 'theirs.key'], dir);
  assert.is(result.status, 0, result.stderr);
  const theirs = parsePublicKey(readFileSync(path.join(dir, 'theirs.pub'), 'utf8'));
  // The key id as minisign prints it (0.12 pads it to 16 digits, 0.11 does not).
  const shown = /^untrusted comment: minisign public key ([0-9A-F]+)$/.exec(readFileSync(path.join(dir, 'theirs.pub'), 'utf8').split('\n')[0]!)![1]!;
  assert.is(shown.padStart(16, '0'), theirs.keyId, 'key id shown as minisign shows it');
  assert.is(minisign(['-S', '-s', 'theirs.key', '-m', 'file.json', '-x', 'theirs.minisig', '-t', 'made by minisign'], dir).status, 0);
  assert.is(minisign(['-S', '-l', '-s', 'theirs.key', '-m', 'file.json', '-x', 'theirs-legacy.minisig'], dir).status, 0);
  assert.equal(verifySignature(message, readFileSync(path.join(dir, 'theirs.minisig'), 'utf8'), theirs), { ok: true, keyId: theirs.keyId, algorithm: 'ED', trustedComment: 'made by minisign' });
  const legacy = verifySignature(message, readFileSync(path.join(dir, 'theirs-legacy.minisig'), 'utf8'), theirs);
  assert.ok(legacy.ok && legacy.algorithm === 'Ed' && /file:file\.json/.test(legacy.trustedComment), JSON.stringify(legacy));
  assert.match(problem(verifySignature(message, readFileSync(path.join(dir, 'theirs.minisig'), 'utf8'), signer.publicKey)), new RegExp(`found one by key id ${theirs.keyId}`));
  assert.match(problem(verifySignature(Buffer.from('other bytes'), readFileSync(path.join(dir, 'theirs.minisig'), 'utf8'), theirs)), /expected the signature to match/);
});

signing("should have minisign verify a signed release's SHA256SUMS and an unzipped bundle's manifest", async () => {
  let result = minisign(['-Vm', 'SHA256SUMS', '-P', signer.publicKey.base64], signedDir);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /Trusted comment: gsd-build release 0\.1\.0 file:SHA256SUMS/);
  const folder = await unzipTo(path.join(signedDir, zipName(signedDir)), temporaryDir('unzipped'));
  result = minisign(['-Vm', 'gsd-file-manifest.json', '-P', signer.publicKey.base64], folder);
  assert.is(result.status, 0, result.stderr);
});

signing.run();
