// A release zip is written by whoever served the download: readZip refuses the
// whole zip, with a message naming why, for entries no release zip has
// (symlinks, NUL bytes, "." segments, a name twice), for more entries or more
// bytes than it reads, and for sizes that do not match the data; and
// `gsd-build install --zip` then writes nothing. The zips here are written by
// hand (local headers, central directory, end record), so each field can lie.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { readZip, UnsafeZipError } from '../release/read-zip.ts';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';

const zipRead = suite('read-zip');

interface RawEntry {
  name: string;
  data?: Buffer;
  /** Stored (0, the default) or deflated (8): `data` is then compressed here. */
  method?: 0 | 8;
  /** What the central directory says, when it should lie. */
  uncompressedSize?: number;
  compressedSize?: number;
  /** The unix mode in the external attributes' high half; 0o100644 (or 0o40755 for a name ending in /) unless told. */
  unixMode?: number;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A zip of `entries` as given: names as UTF-8 bytes, nothing checked, every size as the entry says. */
function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = entry.data ?? Buffer.alloc(0);
    const method = entry.method ?? 0;
    const stored = method === 8 ? deflateRawSync(data) : data;
    const crc = crc32(data);
    const compressedSize = entry.compressedSize ?? stored.length;
    const uncompressedSize = entry.uncompressedSize ?? data.length;
    const unixMode = entry.unixMode ?? (entry.name.endsWith('/') ? 0o40755 : 0o100644);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x2821, 12); // 2000-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressedSize, 18);
    local.writeUInt32LE(uncompressedSize, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x2821, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressedSize, 20);
    central.writeUInt32LE(uncompressedSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30); // extra
    central.writeUInt16LE(0, 32); // comment
    central.writeUInt16LE(0, 34); // disk
    central.writeUInt16LE(0, 36); // internal attributes
    central.writeUInt32LE((unixMode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, stored);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const file = (name: string, text = 'x\n'): RawEntry => ({ name, data: Buffer.from(text) });

/** The message readZip refuses `zip` with (failing the test when it reads it). */
async function refusal(zip: Buffer, what: string): Promise<Error> {
  try {
    await readZip(zip);
  } catch (error) {
    return error as Error;
  }
  assert.unreachable(`${what} was accepted`);
  throw new Error('unreachable');
}

zipRead('should read a hand-written zip, stored and deflated, as written', async () => {
  // rawZip is trusted by every refusal test below: a zip it writes honestly reads back.
  const entries = await readZip(rawZip([{ name: 'gsd-x/' }, file('gsd-x/a.md', 'a\n'), { name: 'gsd-x/b/run.sh', data: Buffer.from('#!/bin/sh\n'.repeat(50)), method: 8, unixMode: 0o100755 }]));
  assert.equal(entries.map((entry) => [entry.name, entry.directory, entry.mode.toString(8), entry.contents.toString()]), [
    ['gsd-x/', true, '755', ''],
    ['gsd-x/a.md', false, '644', 'a\n'],
    ['gsd-x/b/run.sh', false, '755', '#!/bin/sh\n'.repeat(50)],
  ]);
});

zipRead('should refuse a zip with a symbolic link entry, whatever it points at', async () => {
  for (const target of ['../../../etc', 'inside.md', '/']) {
    const error = await refusal(rawZip([file('gsd-x/gsd-file-manifest.json'), { name: 'gsd-x/.claude', data: Buffer.from(target), unixMode: 0o120777 }]), `a link to ${target}`);
    assert.instance(error, UnsafeZipError);
    assert.is(error.message, 'entry "gsd-x/.claude" is a symbolic link');
  }
  // A regular file's type bits next to the link's: only the link is refused.
  assert.is((await readZip(rawZip([{ name: 'gsd-x/a.md', data: Buffer.from('a'), unixMode: 0o100777 }])))[0]!.mode, 0o777);
});

zipRead('should refuse an entry name with a NUL byte, and show a name\'s control characters escaped', async () => {
  let error = await refusal(rawZip([file('gsd-x/ok.md'), file('gsd-x/evil.md\0.txt')]), 'a NUL byte');
  assert.instance(error, UnsafeZipError);
  // Escaped, as any control character in a name the zip's author chose: the message goes to a terminal.
  assert.is(error.message, 'entry "gsd-x/evil.md\\u0000.txt" has a NUL byte');
  // An escape sequence that would erase the line, and a right-to-left override that would reverse what follows.
  error = await refusal(rawZip([{ name: 'gsd-x/\x1b[2K\r\u202egpj.md', data: Buffer.from('/'), unixMode: 0o120777 }]), 'a link with control characters');
  assert.is(error.message, 'entry "gsd-x/\\u001b[2K\\r\\u202egpj.md" is a symbolic link');
  assert.not.match(error.message, /[\0-\x1f\u202e]/);
});

zipRead('should refuse a "." segment anywhere in an entry name', async () => {
  for (const name of ['gsd-x/./a.md', './gsd-x/a.md', 'gsd-x/b/.', 'gsd-x/./']) {
    const error = await refusal(rawZip([file('gsd-x/ok.md'), name.endsWith('/') ? { name } : file(name)]), name);
    assert.instance(error, UnsafeZipError, name);
    assert.is(error.message, `entry "${name}" has an empty or "." segment`, name);
  }
  // A dot inside a segment is a name like any other.
  assert.equal((await readZip(rawZip([file('gsd-x/.claude/a.md'), file('gsd-x/..b/c.d.md')]))).map((entry) => entry.name), ['gsd-x/.claude/a.md', 'gsd-x/..b/c.d.md']);
});

zipRead('should refuse a zip that names an entry twice', async () => {
  // The zip's two copies may differ: which lands would depend on the reader.
  const error = await refusal(rawZip([file('gsd-x/gsd-file-manifest.json', '{"a":1}'), file('gsd-x/a.md'), file('gsd-x/gsd-file-manifest.json', '{"a":2}')]), 'a name twice');
  assert.instance(error, UnsafeZipError);
  assert.is(error.message, 'entry "gsd-x/gsd-file-manifest.json" appears twice');
  const folders = await refusal(rawZip([{ name: 'gsd-x/' }, { name: 'gsd-x/' }]), 'a folder twice');
  assert.is(folders.message, 'entry "gsd-x/" appears twice');
  // One file on macOS and Windows: another case, or the same name decomposed (NFD) and composed (NFC).
  const cased = await refusal(rawZip([file('gsd-x/README.md'), file('gsd-x/readme.md')]), 'a name in another case');
  assert.is(cased.message, 'entries "gsd-x/README.md" and "gsd-x/readme.md" are one file where case or Unicode form is not told apart');
  const forms = await refusal(rawZip([file('gsd-x/caf\u00e9.md'), file('gsd-x/cafe\u0301.md')]), 'a name in another Unicode form');
  assert.instance(forms, UnsafeZipError);
  assert.is(forms.message, 'entries "gsd-x/caf\u00e9.md" and "gsd-x/cafe\u0301.md" are one file where case or Unicode form is not told apart');
});

zipRead('should read 20000 entries and refuse 20001', async () => {
  // Folders: nothing to inflate, so the count is all that is tried.
  const folders = (count: number) => rawZip(Array.from({ length: count }, (_, index) => ({ name: `gsd-x/${String(index).padStart(5, '0')}/` })));
  assert.is((await readZip(folders(20_000))).length, 20_000);
  const error = await refusal(folders(20_001), '20001 entries');
  assert.instance(error, UnsafeZipError);
  assert.is(error.message, 'more than 20000 entries');
});

zipRead('should refuse more than 256 MiB uncompressed in all, from the sizes the zip declares, inflating nothing', async () => {
  const MiB = 1024 * 1024;
  // A few hundred deflated bytes, declared as this many uncompressed bytes (nothing is inflated before the sum is checked).
  const declared = (name: string, uncompressedSize: number): RawEntry => ({ name, data: Buffer.from('x'), method: 8, uncompressedSize });
  let error = await refusal(rawZip([declared('gsd-x/one.bin', 256 * MiB + 1)]), 'one entry of 256 MiB + 1');
  assert.instance(error, UnsafeZipError);
  assert.is(error.message, 'more than 268435456 bytes uncompressed');
  // The sum over the entries, not each on its own.
  error = await refusal(rawZip([declared('gsd-x/a.bin', 100 * MiB), declared('gsd-x/b.bin', 100 * MiB), declared('gsd-x/c.bin', 100 * MiB)]), 'three of 100 MiB');
  assert.instance(error, UnsafeZipError);
  assert.is(error.message, 'more than 268435456 bytes uncompressed');
  // Exactly the limit passes that check, and is then refused because the data is not that long.
  error = await refusal(rawZip([declared('gsd-x/one.bin', 256 * MiB)]), 'a lie of exactly 256 MiB');
  assert.not.instance(error, UnsafeZipError);
  assert.is(error.message, 'not enough bytes in the stream. expected 268435456. got only 1');
});

zipRead('should refuse an entry whose data does not match its declared size', async () => {
  const zeros = Buffer.alloc(1024 * 1024);
  // A small bomb: 1 MiB of zeros in about a kilobyte, declared as 10 bytes; inflating stops past the 10th.
  let error = await refusal(rawZip([file('gsd-x/ok.md'), { name: 'gsd-x/bomb.bin', data: zeros, method: 8, uncompressedSize: 10 }]), 'more data than declared');
  assert.match(error.message, /^too many bytes in the stream\. expected 10\. got at least \d+$/);
  error = await refusal(rawZip([{ name: 'gsd-x/short.bin', data: Buffer.from('0123456789'), method: 8, uncompressedSize: 1000 }]), 'less data than declared');
  assert.is(error.message, 'not enough bytes in the stream. expected 1000. got only 10');
  // Stored: the two sizes must agree.
  error = await refusal(rawZip([{ name: 'gsd-x/stored.bin', data: Buffer.from('abc'), uncompressedSize: 1000 }]), 'a stored entry of two sizes');
  assert.is(error.message, 'compressed/uncompressed size mismatch for stored file: 3 != 1000');
});

zipRead('should refuse a hostile zip with gsd-build install --zip, writing nothing to HOME or the project', async () => {
  const manifest = file('gsd-x/gsd-file-manifest.json', '{}');
  for (const [label, zip, message] of [
    ['link', rawZip([manifest, { name: 'gsd-x/.claude', data: Buffer.from('/'), unixMode: 0o120777 }]), 'entry "gsd-x/.claude" is a symbolic link'],
    ['twice', rawZip([manifest, file('gsd-x/a.md', 'one'), file('gsd-x/a.md', 'two')]), 'entry "gsd-x/a.md" appears twice'],
  ] as const) {
    const home = temporaryDir('home');
    const project = temporaryDir('project');
    const zipFile = path.join(temporaryDir('hostile'), `gsd-${label}.zip`);
    writeFileSync(zipFile, zip);
    const result = runCli(['install', '--zip', zipFile], { cwd: project, env: { HOME: home, GSD_NO_CODE_CACHE: '1' } });
    assert.is(result.status, 1, `${label}: ${result.stderr}`);
    assert.is(result.stderr, `gsd-build: ${zipFile}: refused: ${message}; nothing was written\n`, label);
    assert.is(result.stdout, '', label);
    assert.equal([readdirSync(home), readdirSync(project)], [[], []], label);
    for (const dir of [home, project, path.dirname(zipFile)]) rmSync(dir, { recursive: true, force: true });
  }
});

zipRead.run();
