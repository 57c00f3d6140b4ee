// Goldens: the committed bundles under golden/<target>/<scope>/. `check`
// compares a fresh build with them file by file; `check --update` rewrites them.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { compareText } from '../diagnostics.ts';
import { listFiles } from '../util/list-files.ts';
import { bytesOf, digestOf } from '../emit/bundle-manifest.ts';
import { byteLengthOf, type TreeFile, type VirtualTree } from '../emit/virtual-tree.ts';

export interface GoldenFinding {
  kind: 'differs' | 'missing' | 'orphaned';
  /** Path relative to the golden root, e.g. `claude/global/.claude/agents/gsd-planner.md`. */
  path: string;
  /** Unified diff (golden → built) for `differs`. */
  diff?: string;
}

/**
 * Every golden file as bytes, keyed by its path relative to `goldenRoot`. A
 * symbolic link to a file (never built) is read through, so it shows as the
 * stray or changed file it is; anything else that is neither a file nor a
 * folder is an error. Listed and read with synchronous calls: ten thousand
 * files as promises awaited one by one left the thread idle for seconds.
 */
export async function readGoldenFiles(goldenRoot: string): Promise<Map<string, Uint8Array>> {
  const others: string[] = [];
  const paths = listFiles(goldenRoot, () => false, others);
  for (const other of others) {
    // Never opened unless a file is behind it: a FIFO would block the read for good.
    let kind = 'neither a file nor a folder';
    try {
      if (statSync(path.join(goldenRoot, other)).isFile()) {
        paths.push(other);
        continue;
      }
      kind = 'a link to something other than a file';
    } catch (error) {
      kind = `a link that cannot be followed (${(error as NodeJS.ErrnoException).code})`;
    }
    throw new Error(`${path.join(goldenRoot, other)}: expected a golden file or folder, found ${kind}`);
  }
  const files = new Map<string, Uint8Array>();
  for (const file of paths.sort(compareText)) files.set(file, readFileSync(path.join(goldenRoot, file)));
  return files;
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

/** Pure comparison of built bundles (keyed `<target>/<scope>`) with golden files. */
export function compareWithGolden(bundles: ReadonlyMap<string, VirtualTree>, golden: ReadonlyMap<string, Uint8Array>): GoldenFinding[] {
  const findings: GoldenFinding[] = [];
  const built = new Map<string, TreeFile>();
  for (const [key, tree] of goldenTrees(bundles)) {
    for (const [file, entry] of tree) built.set(`${key}/${file}`, entry);
  }
  for (const [file, entry] of built) {
    const expected = golden.get(file);
    if (expected === undefined) {
      findings.push({ kind: 'missing', path: file });
      continue;
    }
    // Sizes first (emit measured every file): only a file of the golden's size is encoded and compared byte by byte.
    if (byteLengthOf(entry) === expected.byteLength && Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength).equals(bytesOf(entry))) continue;
    findings.push({
      kind: 'differs',
      path: file,
      diff: createTwoFilesPatch(`golden/${file}`, `built/${file}`, decode(expected), decode(bytesOf(entry)), '', '', { context: 3 }),
    });
  }
  for (const file of golden.keys()) {
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
      return finding.diff!.trimEnd();
  }
}
