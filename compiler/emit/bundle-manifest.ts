// The last emit stage: every bundle carries, at its top, `gsd-file-manifest.json`
// (what the bundle holds: each file with its SHA-256, byte size and mode, and
// which files are shared config the installer merges rather than owns;
// schemas/manifest.schema.json) and `README.txt` (how to install it). Both are
// pure functions of the tree: no clock, no machine paths.
import { compareText } from '../diagnostics.ts';
import type { ScopeId, Target } from '../targets/target-types.ts';
import type { BundleManifest, ManifestCapability, ManifestFile } from '../../source/runtime/install/bundle-types.ts';
import { byteLengthOf, digestOf, factsOf, type TreeFile, type VirtualTree } from './virtual-tree.ts';
import { contentFacts } from './content-facts.ts';

export type { BundleManifest, ManifestFile } from '../../source/runtime/install/bundle-types.ts';

export const MANIFEST_FILE = 'gsd-file-manifest.json';
export const README_FILE = 'README.txt';
/** The files at a bundle's top that describe it; never installed. */
export function isBundleMetadata(path: string): boolean {
  return path === MANIFEST_FILE || path === README_FILE;
}

/** Bumped when a reader of an older manifest could misread a newer one. */
export const MANIFEST_VERSION = 1;

const GSD_TOOLS = 'gsd-core/bin/gsd-tools.cjs';

export function bytesOf(file: TreeFile): Uint8Array {
  if (file.reused) throw new Error('internal: the bytes of a reused file were asked for');
  return typeof file.contents === 'string' ? Buffer.from(file.contents, 'utf8') : file.contents;
}

export function buildManifest(tree: VirtualTree, target: Target, scopeId: ScopeId, version: string, capabilities: readonly ManifestCapability[] = [], profile?: string): BundleManifest {
  return manifestOf(sortedEntries(tree), target, scopeId, version, capabilities, profile);
}

/** A file's manifest entry. */
function manifestFile(path: string, file: TreeFile): ManifestFile {
  const entry: ManifestFile = { path, sha256: digestOf(file), bytes: byteLengthOf(file), mode: file.executable ? '0755' : '0644' };
  if (file.merge) entry.merge = file.merge;
  if (file.generated) entry.generated = true;
  return entry;
}

/**
 * The manifest line of a reused file, made once for a build that keeps its
 * manifest's parts (watch): a reused file is never changed, and such a build
 * lays most of each bundle's last files, the same objects, into its next tree.
 * Any other build makes each tree once: a memo would only keep its lines alive.
 */
const reusedLines = new WeakMap<TreeFile, { path: string; line: string }>();

function fileLine(path: string, file: TreeFile, kept: boolean): string {
  if (!kept || !file.reused) return manifestLine(manifestFile(path, file));
  let known = reusedLines.get(file);
  if (known === undefined || known.path !== path) reusedLines.set(file, (known = { path, line: manifestLine(manifestFile(path, file)) }));
  return known.line;
}

/** The manifest of a tree's entries, given in path order. */
function manifestOf(entries: readonly [string, TreeFile][], target: Target, scopeId: ScopeId, version: string, capabilities: readonly ManifestCapability[], profile: string | undefined): BundleManifest {
  return manifestWith(entries.map(([path, file]) => manifestFile(path, file)), target, scopeId, version, capabilities, profile);
}

function manifestWith(files: ManifestFile[], target: Target, scopeId: ScopeId, version: string, capabilities: readonly ManifestCapability[], profile: string | undefined): BundleManifest {
  const scope = target.definition.scopes[scopeId]!;
  return {
    manifestVersion: MANIFEST_VERSION,
    target: target.definition.id,
    runtime: target.definition.name,
    scope: scopeId,
    version,
    // Absent means full, so full bundles keep their bytes.
    ...(profile !== undefined && profile !== 'full' ? { profile } : {}),
    base: scope.base,
    root: scope.root,
    env: scope.env ?? [],
    ...(capabilities.length > 0 ? { capabilities: [...capabilities] } : {}),
    files,
  };
}

/** JSON with one line per file, so a changed file is a one-line change in the goldens. */
export function serializeManifest(manifest: BundleManifest): string {
  return manifestText(manifest.files.map(manifestLine), manifestTop(manifest));
}

/** What goes before each file's line in the manifest, and between two lines. */
const LINE_INDENT = '    ';
const LINE_BETWEEN = `,\n${LINE_INDENT}`;

/** The manifest as serializeManifest writes it, from its files' lines (manifestLine) and its top (manifestTop). */
function manifestText(lines: readonly string[], top: string): string {
  return `${top},\n  "files": [\n${lines.length > 0 ? `${LINE_INDENT}${lines.join(LINE_BETWEEN)}` : ''}\n  ]\n}\n`;
}

/** The manifest's text up to its files (manifestText), the last field's comma not yet written. */
function manifestTop(manifest: BundleManifest): string {
  const { files: _files, ...head } = manifest;
  return JSON.stringify(head, null, 2).replace(/\n}$/, '');
}

/** README.txt of a bundle: its manifest's fields, whether it holds a file, and the files the installer merges (in manifest order). */
export function readmeText(manifest: Omit<BundleManifest, 'files'>, holds: (path: string) => boolean, merged: readonly string[]): string {
  const name = `gsd-${manifest.target}-${manifest.scope}-${manifest.version}`;
  const hasCli = holds(`${manifest.root}/${GSD_TOOLS}`);
  const global = manifest.scope === 'global';
  const where = global ? `~/${manifest.root}` : `${manifest.root}/ in your project`;
  const tools = `${manifest.root}/${GSD_TOOLS}`;
  const moves = manifest.env.length > 0 ? ` (or where ${manifest.env.map((v) => `$${v}`).join(', then ')} points)` : '';
  const lines = [
    `GSD ${manifest.version} for ${manifest.runtime}, ${manifest.scope} scope (${name})`,
    '',
    'This folder is a frozen GSD bundle, laid out exactly as its files land:',
    `under ${where}${global ? moves : ''}.`,
    `${MANIFEST_FILE} lists every file with its SHA-256. In a signed release,`,
    `${MANIFEST_FILE}.minisig beside it is the release key's signature of it:`,
    'the installer checks it and says so (--require-signature refuses a bundle',
    'without one). To check where the bundle came from, verify SHA256SUMS with',
    'minisign and the key printed in the project README before unzipping.',
    '',
  ];
  if (!hasCli) {
    lines.push('This bundle has no installer: copy its files into place yourself.', '');
    return `${lines.join('\n')}`;
  }
  const flag = global ? '--global' : '--local';
  lines.push(
    'Install (Node.js 20.6 or newer):',
    '',
    ...(global
      ? [`  node ${tools} install ${flag}`, '', '  run from this folder. --config-dir DIR installs the root somewhere else.']
      : [`  cd /path/to/your/project`, `  node /path/to/${name}/${tools} install ${flag}`]),
    '',
    '  --dry-run prints what would change and writes nothing. Files GSD owns are',
    '  copied; shared config files are merged, keeping every key, comment and',
    '  entry of yours:',
    ...(merged.length > 0 ? merged.map((file) => `    ${file}`) : ['    (none in this bundle)']),
    '',
    'Update: install a newer bundle the same way. A GSD file you edited is copied',
    `to ${global ? '~/' : ''}${manifest.root}/gsd-local-patches/ first and listed.`,
    '',
    'Uninstall:',
    '',
    `  node ${global ? '~/' : ''}${tools} uninstall${global ? '' : '   (from the project folder)'}`,
    '',
    '  removes exactly the files and config entries the install added.',
    '',
  );
  return lines.join('\n');
}

/**
 * A manifest file entry as JSON.stringify writes it, keys in the order of
 * ManifestFile: written directly, as it is one line per file of every bundle.
 */
export function manifestLine(file: ManifestFile): string {
  // Values of a known shape go in as they are; anything else through JSON.stringify.
  const bytes = Number.isSafeInteger(file.bytes) ? String(file.bytes) : JSON.stringify(file.bytes);
  const mode = file.mode === '0644' || file.mode === '0755' ? `"${file.mode}"` : JSON.stringify(file.mode);
  const merge = file.merge !== undefined ? `,"merge":${JSON.stringify(file.merge)}` : '';
  const generated = file.generated !== undefined ? `,"generated":${JSON.stringify(file.generated)}` : '';
  return `{"path":${JSON.stringify(file.path)},"sha256":${JSON.stringify(file.sha256)},"bytes":${bytes},"mode":${mode}${merge}${generated}}`;
}

/** The tree's entries in path order: emit hands over sorted trees, which are not sorted again. */
function sortedEntries(tree: VirtualTree): [string, TreeFile][] {
  const entries = [...tree];
  for (let index = 1; index < entries.length; index += 1) if (compareText(entries[index - 1]![0], entries[index]![0]) >= 0) return entries.sort(([a], [b]) => compareText(a, b));
  return entries;
}

/**
 * What addBundleManifest made for a bundle, kept with its emission (watch) so
 * that the manifest of its next delta changes only its changed files' lines.
 * The manifest is kept as its UTF-8 bytes, in one of two buffers that the
 * bundle's deltas take in turn: a new text of its size (over 128 KiB for most
 * bundles) is a new large object in V8's heap, on memory touched for the first
 * time (a page fault per 4 KiB), where a buffer used again is memory touched
 * already.
 */
export interface ManifestParts {
  /** The manifest without its files, as JSON: a delta needs the same. */
  head: string;
  /** Each file's place in `lines`. */
  places: ReadonlyMap<string, number>;
  lines: readonly string[];
  /** The manifest's UTF-8 (a view of `buffer`), where each file's line starts in it and its length, in bytes. */
  bytes: Buffer;
  byteStarts: readonly number[];
  byteLengths: readonly number[];
  /** The buffer `bytes` is in, and the one the next delta writes into (the last but one's, no longer read). */
  buffer: Buffer;
  spare: Buffer | null;
  /** The line number of the first file's line. */
  firstLine: number;
  manifest: TreeFile;
  readme: TreeFile;
}

/** A manifest's bytes as its parts keep them. */
type ManifestBytes = Pick<ManifestParts, 'bytes' | 'byteStarts' | 'byteLengths' | 'buffer' | 'spare'>;

/**
 * The manifest of a delta: the last one's bytes with the changed lines (`at`: their places, in order; `fresh`: their
 * new text) put in, written into the last one's spare buffer when it is large enough.
 */
function patchedManifest(last: ManifestParts, at: readonly number[], fresh: readonly string[]): ManifestBytes {
  const freshLengths = fresh.map((line) => Buffer.byteLength(line, 'utf8'));
  let size = last.bytes.length;
  for (let index = 0; index < at.length; index += 1) size += freshLengths[index]! - last.byteLengths[at[index]!]!;
  // Room to grow by a few lines before a new buffer.
  const buffer = last.spare !== null && last.spare.length >= size ? last.spare : Buffer.allocUnsafeSlow(size + (size >> 3));
  const byteStarts = [...last.byteStarts];
  const byteLengths = [...last.byteLengths];
  let written = 0;
  let from = 0;
  let shift = 0;
  for (let index = 0; index < at.length; index += 1) {
    const place = at[index]!;
    // Unchanged lines keep their bytes; each start moves by what the changed lines before it grew or shrank.
    for (let line = place + 1, end = index + 1 < at.length ? at[index + 1]! : byteStarts.length; line < end; line += 1) byteStarts[line] = last.byteStarts[line]! + shift + freshLengths[index]! - last.byteLengths[place]!;
    buffer.set(last.bytes.subarray(from, last.byteStarts[place]), written);
    written += last.byteStarts[place]! - from;
    byteStarts[place] = written;
    written += buffer.write(fresh[index]!, written, 'utf8');
    byteLengths[place] = freshLengths[index]!;
    from = last.byteStarts[place]! + last.byteLengths[place]!;
    shift += freshLengths[index]! - last.byteLengths[place]!;
  }
  buffer.set(last.bytes.subarray(from), written);
  return { bytes: buffer.subarray(0, size), byteStarts, byteLengths, buffer, spare: last.buffer };
}

/**
 * Adds the manifest and README.txt to a bundle's tree (the manifest covers
 * every other file); the result is in path order. Given the parts made for
 * the bundle's last tree, whose paths this tree has in the same order, and the
 * files that differ from it (`changed`), only their lines are made again, and
 * the manifest is its UTF-8 bytes (`bytes`: no limit of the target reads the
 * manifest's text), else that text.
 */
export function addBundleManifest(
  tree: VirtualTree,
  target: Target,
  scope: ScopeId,
  version: string,
  capabilities: readonly ManifestCapability[] = [],
  profile?: string,
  delta?: { last: ManifestParts | undefined; changed: readonly string[]; bytes: boolean; keep: (parts: ManifestParts) => void },
): VirtualTree {
  if (tree.has(MANIFEST_FILE) || tree.has(README_FILE)) throw new Error(`internal: a bundle file is emitted at ${MANIFEST_FILE} or ${README_FILE}`);
  const head = manifestWith([], target, scope, version, capabilities, profile);
  const headText = delta ? JSON.stringify(head) : '';
  const last = delta?.last?.head === headText && delta.last.places.size === tree.size ? delta.last : undefined;
  const entries = last ? [...tree] : sortedEntries(tree);
  let lines: string[];
  let places: ReadonlyMap<string, number>;
  let firstLine: number;
  let kept: ManifestBytes | null = null;
  const manifestFile: TreeFile = { contents: '' };
  if (last) {
    lines = [...last.lines];
    places = last.places;
    firstLine = last.firstLine;
    const changed = delta!.changed.map((path) => {
      const at = places.get(path);
      if (at === undefined) throw new Error(`internal: a delta's file ${path} was not in its last manifest`);
      return at;
    });
    changed.sort((a, b) => a - b);
    for (const at of changed) lines[at] = fileLine(entries[at]![0], entries[at]![1], true);
    // The last bytes with the changed files' lines put in: the rest is the same, so it is not made again line by line.
    kept = patchedManifest(last, changed, changed.map((at) => lines[at]!));
    if (delta!.bytes) {
      manifestFile.contents = kept.bytes;
      manifestFile.facts = contentFacts(kept.bytes);
    } else manifestFile.contents = kept.bytes.toString('utf8');
    const lastLeaks = last.manifest.facts?.leaks;
    if (lastLeaks) {
      // The lines of files that did not change are the last manifest's, and so are their leak hits: the check scans the
      // rest, each line as the text has it (its indent, and its comma but on the last).
      const rescan = new Set(changed.map((at) => firstLine + at));
      const lineOf = (at: number) => `${LINE_INDENT}${lines[at]!}${at + 1 < lines.length ? ',' : ''}`;
      factsOf(manifestFile).leaksBeside = { hits: lastLeaks.filter((hit) => !rescan.has(hit.line)), lines: changed.map((at) => ({ line: firstLine + at, text: lineOf(at) })) };
    }
  } else {
    lines = entries.map(([path, file]) => fileLine(path, file, delta !== undefined));
    places = delta ? new Map(entries.map(([path], index) => [path, index])) : new Map();
    const top = manifestTop(head);
    const text = manifestText(lines, top);
    manifestFile.contents = text;
    // After the top's lines comes the `"files": [` line, then one line per file.
    const beforeFirst = `${top},\n  "files": [\n${LINE_INDENT}`;
    firstLine = beforeFirst.split('\n').length;
    if (delta) {
      const buffer = Buffer.from(text, 'utf8');
      const byteLengths = lines.map((line) => Buffer.byteLength(line, 'utf8'));
      const byteStarts = new Array<number>(lines.length);
      for (let at = 0, offset = Buffer.byteLength(beforeFirst, 'utf8'); at < lines.length; offset += byteLengths[at]! + LINE_BETWEEN.length, at += 1) byteStarts[at] = offset;
      kept = { bytes: buffer, byteStarts, byteLengths, buffer, spare: null };
    }
  }
  const merged: string[] = [];
  for (const [path, file] of entries) if (file.merge) merged.push(path);
  const readme = readmeText(head, (path) => tree.has(path), merged);
  const readmeFile: TreeFile = last && last.readme.contents === readme ? last.readme : { contents: readme };
  if (kept) delta!.keep({ head: headText, places, lines, ...kept, firstLine, manifest: manifestFile, readme: readmeFile });
  const added = (
    [
      [MANIFEST_FILE, manifestFile],
      [README_FILE, readmeFile],
    ] satisfies [string, TreeFile][]
  ).sort(([a], [b]) => compareText(a, b));
  // Merged into the sorted entries in one pass.
  const out: VirtualTree = new Map();
  let next = 0;
  for (const entry of entries) {
    while (next < added.length && compareText(added[next]![0], entry[0]) < 0) out.set(...added[next++]!);
    out.set(...entry);
  }
  while (next < added.length) out.set(...added[next++]!);
  return out;
}
