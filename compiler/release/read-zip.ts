// Reading a release zip back, in memory, refusing anything that could land
// outside the folder it is unpacked into: absolute names, drive letters,
// backslashes, `..` or empty segments, NUL bytes, symlinks, a name given
// twice (also in another case or Unicode form), and entries outside the zip's
// one top folder. Nothing is written to
// disk here.
import yauzl from 'yauzl';
import { foldedPath } from '../util/text.ts';

export interface ZipEntry {
  /** The entry's name as stored, e.g. gsd-claude-global-0.1.0/.claude/VERSION. */
  name: string;
  directory: boolean;
  /** Unix permission bits (0o644, 0o755), from the entry's external attributes. */
  mode: number;
  /** DOS date and time as stored (fields, not a Date: a Date would depend on the time zone). */
  dosDate: number;
  dosTime: number;
  contents: Buffer;
}

export class UnsafeZipError extends Error {}

const MAX_ENTRIES = 20_000;
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;

/**
 * A name the zip's author chose, quoted for a message that goes to a terminal:
 * control characters (C0, DEL, C1), line and paragraph separators and bidi
 * controls escaped, so a name cannot move the cursor or hide what it is.
 */
function shown(name: string): string {
  return JSON.stringify(name).replace(/[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Why an entry name is unsafe, or null when it is a plain relative path. */
export function unsafeEntryName(name: string): string | null {
  if (name.includes('\0')) return 'a NUL byte';
  if (name.includes('\\')) return 'a backslash';
  if (name.startsWith('/')) return 'an absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'a drive letter';
  const segments = name.replace(/\/$/, '').split('/');
  if (segments.some((segment) => segment === '..')) return 'a ".." segment';
  if (segments.some((segment) => segment === '' || segment === '.')) return 'an empty or "." segment';
  return null;
}

/** Every entry of a zip, checked before any is returned: one unsafe entry refuses the whole zip. */
export async function readZip(buffer: Buffer): Promise<ZipEntry[]> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buffer, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true }, (error, file) => (error ? reject(error) : resolve(file!))),
  );
  const raw: { entry: yauzl.Entry; name: string }[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      const name = (entry.fileName as unknown as Buffer).toString('utf8');
      raw.push({ entry, name });
      if (raw.length > MAX_ENTRIES) return reject(new UnsafeZipError(`more than ${MAX_ENTRIES} entries`));
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  const tops = new Set<string>();
  const names = new Map<string, string>();
  let total = 0;
  for (const { entry, name } of raw) {
    const why = unsafeEntryName(name);
    if (why) throw new UnsafeZipError(`entry ${shown(name)} has ${why}`);
    const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
    if (mode === 0o120000) throw new UnsafeZipError(`entry ${shown(name)} is a symbolic link`);
    // Two copies of one name: which one lands would depend on the reader (a release zip has each once). Names
    // are compared as a case-insensitive file system (macOS, Windows) sees them, where A.md and a.md, or a name
    // in two Unicode forms, are one file.
    const folded = foldedPath(name);
    const first = names.get(folded);
    if (first === name) throw new UnsafeZipError(`entry ${shown(name)} appears twice`);
    if (first !== undefined) throw new UnsafeZipError(`entries ${shown(first)} and ${shown(name)} are one file where case or Unicode form is not told apart`);
    names.set(folded, name);
    tops.add(name.split('/')[0]!);
    total += entry.uncompressedSize;
    if (total > MAX_TOTAL_BYTES) throw new UnsafeZipError(`more than ${MAX_TOTAL_BYTES} bytes uncompressed`);
  }
  if (tops.size > 1) throw new UnsafeZipError(`entries under ${tops.size} top folders (${[...tops].slice(0, 3).map(shown).join(', ')}); a release zip has one`);
  const entries: ZipEntry[] = [];
  for (const { entry, name } of raw) {
    const directory = name.endsWith('/');
    const contents = directory ? Buffer.alloc(0) : await readEntry(zip, entry);
    entries.push({ name, directory, mode: (entry.externalFileAttributes >>> 16) & 0o777, dosDate: entry.lastModFileDate, dosTime: entry.lastModFileTime, contents });
  }
  zip.close();
  return entries;
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      const chunks: Buffer[] = [];
      stream!.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream!.on('end', () => resolve(Buffer.concat(chunks)));
      stream!.on('error', reject);
    }),
  );
}
