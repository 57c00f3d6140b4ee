// Goldens: the committed bundles under golden/<target>/<scope>/. `check`
// compares a build with them file by file; `check --update` rewrites them.
import { lstatSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as DiffModule from 'diff';
import { compareText, diagnostic, formatDiagnostic, type Diagnostic } from '../diagnostics.ts';
import { listFiles } from '../util/list-files.ts';
import { bytesOf } from '../emit/bundle-manifest.ts';
import { contentDigest } from '../emit/content-facts.ts';
import { digestOf, byteLengthOf, type TreeFile, type VirtualTree } from '../emit/virtual-tree.ts';

/** The diff package, loaded when a finding first needs a diff: a check that passes (or replays a pass) needs none. */
let diffPackage: typeof DiffModule | undefined;
const diffModule = () => (diffPackage ??= createRequire(import.meta.url)('diff') as typeof DiffModule);

export interface GoldenFinding {
  /** `mode`: the same bytes, but the build makes the file executable and the golden is not, or the other way round. */
  kind: 'differs' | 'missing' | 'orphaned' | 'mode';
  /** Path relative to the golden root, e.g. `claude/global/.claude/agents/gsd-planner.md`. */
  path: string;
  /** Unified diff (golden → built) for `differs`, when the built file was rendered (not reused from an earlier emission). */
  diff?: string;
  /** For `mode`: whether the built file is executable. */
  executable?: boolean;
}

/**
 * The goldens' paths, sorted; which of them are symbolic links to a file
 * (never built: read through, so each shows as the stray or changed file it
 * is); and a golden-entry diagnostic for each entry that is neither a file,
 * a link to one, nor a folder. Those are never opened (a FIFO would block a
 * read for good): `check` reports them, `check --update` removes them.
 */
export function goldenPaths(goldenRoot: string): { files: string[]; links: Set<string>; strays: Diagnostic[] } {
  const others: string[] = [];
  const files = listFiles(goldenRoot, () => false, others);
  const links = new Set<string>();
  const strays: Diagnostic[] = [];
  for (const other of others.sort(compareText)) {
    const full = path.join(goldenRoot, other);
    const kind = strayKind(full);
    if (kind === null) {
      files.push(other);
      links.add(other);
    } else strays.push(diagnostic(other, 1, 1, 'golden-entry', `expected a file, a link to a file or a folder in the goldens, found ${kind}`));
  }
  return { files: files.sort(compareText), links, strays };
}

/** What an entry that is neither file nor folder is, or null for a link to a file. */
function strayKind(full: string): string | null {
  const own = lstatSync(full);
  if (!own.isSymbolicLink()) return own.isFIFO() ? 'a FIFO' : own.isSocket() ? 'a socket' : 'a device';
  const target = statSync(full, { throwIfNoEntry: false });
  return target === undefined ? 'a link to nothing' : target.isFile() ? null : target.isDirectory() ? 'a link to a folder' : 'a link to neither file nor folder';
}

/** Every golden file as bytes, keyed by its path relative to `goldenRoot` (goldenPaths); an entry that is neither file, link to one nor folder is an error. */
export async function readGoldenFiles(goldenRoot: string): Promise<Map<string, Uint8Array>> {
  const { files, strays } = goldenPaths(goldenRoot);
  if (strays.length > 0) throw new Error(strays.map((d) => formatDiagnostic(d, goldenRoot)).join('\n'));
  return new Map(files.map((file) => [file, readFileSync(path.join(goldenRoot, file))]));
}

/** The goldens as a comparison reads them: each file's size and SHA-256, its bytes only for a diff. */
export interface GoldenFiles {
  /** Every golden path, sorted. */
  readonly paths: readonly string[];
  has(file: string): boolean;
  size(file: string): number;
  /** Whether the golden file is executable (its owner's execute bit); without it, modes are not compared. */
  executable?(file: string): boolean;
  digest(file: string): string;
  bytes(file: string): Uint8Array;
}

function goldenFilesOf(files: ReadonlyMap<string, Uint8Array>): GoldenFiles {
  return {
    paths: [...files.keys()],
    has: (file) => files.has(file),
    size: (file) => files.get(file)!.byteLength,
    digest: (file) => contentDigest(files.get(file)!),
    bytes: (file) => files.get(file)!,
  };
}

/**
 * The golden form of built bundles: every file as built, except built code
 * (the runtime CLI and hooks, tested on their own), kept as `<file>.sha256`
 * with its digest and size so that a change shows as one line per bundle.
 */
export function goldenTrees(bundles: ReadonlyMap<string, VirtualTree>): Map<string, VirtualTree> {
  const trees = new Map<string, VirtualTree>();
  for (const [key, tree] of bundles) {
    const golden: VirtualTree = new Map();
    for (const [file, entry] of tree) {
      if (!entry.generated) {
        golden.set(file, entry);
        continue;
      }
      // The digest and size emit already has (each distinct content hashed once per process).
      golden.set(`${file}.sha256`, { contents: `${digestOf(entry)}  ${byteLengthOf(entry)} bytes\n` });
    }
    trees.set(key, new Map([...golden].sort(([a], [b]) => compareText(a, b))));
  }
  return trees;
}

/**
 * Pure comparison of built bundles (keyed `<target>/<scope>`) with golden
 * files: a file is the same when its size and SHA-256 are (emit has both for
 * every file, a file reused from an earlier emission included).
 */
export function compareWithGolden(bundles: ReadonlyMap<string, VirtualTree>, goldenFiles: ReadonlyMap<string, Uint8Array> | GoldenFiles): GoldenFinding[] {
  return compareEntries(goldenEntries(bundles), 'paths' in goldenFiles ? goldenFiles : goldenFilesOf(goldenFiles));
}

/** Every file of the bundles' golden form (goldenTrees) by its path under the golden root. */
export function goldenEntries(bundles: ReadonlyMap<string, VirtualTree>): Map<string, TreeFile> {
  const built = new Map<string, TreeFile>();
  for (const [key, tree] of goldenTrees(bundles)) {
    for (const [file, entry] of tree) built.set(`${key}/${file}`, entry);
  }
  return built;
}

/** compareWithGolden of the bundles' golden entries (goldenEntries). */
export function compareEntries(built: ReadonlyMap<string, TreeFile>, golden: GoldenFiles): GoldenFinding[] {
  const findings: GoldenFinding[] = [];
  for (const [file, entry] of built) {
    if (!golden.has(file)) {
      findings.push({ kind: 'missing', path: file });
      continue;
    }
    if (byteLengthOf(entry) === golden.size(file) && digestOf(entry) === golden.digest(file)) {
      if (golden.executable !== undefined && golden.executable(file) !== (entry.executable === true)) findings.push({ kind: 'mode', path: file, executable: entry.executable === true });
      continue;
    }
    // A file not rendered has no text to show: the finding has no diff until it is (check-run.ts emits its bundle again).
    findings.push(entry.reused ? { kind: 'differs', path: file } : { kind: 'differs', path: file, diff: diffModule().createTwoFilesPatch(`golden/${file}`, `built/${file}`, decode(golden.bytes(file)), decode(bytesOf(entry)), '', '', { context: 3 }) });
  }
  for (const file of golden.paths) {
    if (!built.has(file)) findings.push({ kind: 'orphaned', path: file });
  }
  return findings.sort((a, b) => compareText(a.path, b.path));
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

export function formatGoldenFinding(finding: GoldenFinding): string {
  switch (finding.kind) {
    case 'missing':
      return `golden/${finding.path}: missing golden file (the build makes it; run gsd-build check --update and review the diff)`;
    case 'orphaned':
      return `golden/${finding.path}: orphaned golden file (the build no longer makes it)`;
    case 'differs':
      return finding.diff?.trimEnd() ?? `golden/${finding.path}: differs from the built file`;
    case 'mode':
      return finding.executable
        ? `golden/${finding.path}: not executable, but the build makes it executable (git keeps the mode)`
        : `golden/${finding.path}: executable, but the build makes it a plain file (git keeps the mode)`;
  }
}
