// A bundle while it is built and checked: bundle-relative POSIX path → file. emit-bundle
// makes it; the manifest, checks, goldens and writers read it.
import type { MergeFormat } from '../../source/runtime/install/bundle-types.ts';
import { contentDigest, textFacts } from './content-facts.ts';

export interface TreeFile {
  /** The bytes; empty for a reused file (below), whose bytes are the ones already on disk. */
  contents: string | Uint8Array;
  executable?: boolean;
  /** Corpus path of the node the file was rendered from, for diagnostics. */
  source?: string;
  /** Built code (runtime CLI, hooks): goldens keep its digest, not its text. */
  generated?: boolean;
  /** A corpus file shipped byte for byte (an asset, a hook script with no build step): never rewritten, so not leak-checked. */
  verbatim?: boolean;
  /** A file shared with the user: the installer merges GSD's entries into theirs in this format. */
  merge?: MergeFormat;
  /** What the manifest and the bundle checks derived from the bytes, each filled when first asked for. */
  facts?: FileFacts;
  /**
   * Not rendered: the last build wrote this file from the same inputs and it is
   * still on disk (compiler/incremental.ts). `contents` is empty; `facts` holds
   * everything read from the bytes. Only an incremental build makes such files.
   */
  reused?: true;
  /**
   * Rendered as text and kept as its UTF-8 bytes (`contents`) once every fact
   * a check reads was in `facts` (pipeline.ts emitBundles, encodeTexts): held
   * as a string to its bundle's end, a text was copied twice by V8's young
   * generation.
   */
  encoded?: true;
}

/** A foreign root the leak check found in a file, before the bundle-wide exemptions. */
export interface LeakHit {
  line: number;
  /** The column of `token`. */
  column: number;
  /** The matched root text (the bundle's own folders exempt it). */
  matched: string;
  /** The whitespace-delimited word holding the match, as the diagnostic quotes it (check-emitted.ts LeakScan.messageOf). */
  token: string;
}

/** A finding of a per-file limit (compiler/check/check-emitted.ts). */
export interface LimitHit {
  line: number;
  column: number;
  message: string;
}

/**
 * What a listed command's frontmatter adds to the per-turn listing: the size
 * of its name (when it has one; else the file's stem counts, added where the
 * path is known) and description, in UTF-8 bytes and in characters. Sizes,
 * not the prose: they are all the listing cost reads, and they keep the
 * stored units ASCII (report/listing-cost.ts).
 */
export interface ListedEntry {
  named: boolean;
  bytes: number;
  chars: number;
}

/** Facts derived from a file's bytes: plain data, stored in the build cache for reused files. */
export interface FileFacts {
  sha256?: string;
  bytes?: number;
  leaks?: LeakHit[];
  /** Leak hits known on every line but `lines` (each line's number, 1-based, and text), which the check scans (a manifest made from the last one). */
  leaksBeside?: { hits: LeakHit[]; lines: { line: number; text: string }[] };
  limits?: LimitHit[];
  listed?: ListedEntry;
}

/** Bundle-relative POSIX path → file, in sorted order. */
export type VirtualTree = Map<string, TreeFile>;

/** The file's facts record, made on first use. */
export function factsOf(file: TreeFile): FileFacts {
  return (file.facts ??= {});
}

/** Whether a file holds text: rendered (a string, or its UTF-8 once encoded) or reused from a rendered one; else bytes shipped as they are. */
export function isTextFile(file: TreeFile): boolean {
  return typeof file.contents === 'string' || file.encoded === true;
}

/** A fact a reused or encoded file carries: its text is not there to read again. */
export function keptFact<K extends keyof FileFacts>(file: TreeFile, key: K): NonNullable<FileFacts[K]> {
  const value = file.facts?.[key];
  if (value === undefined) throw new Error(`internal: a ${file.reused ? 'reused' : 'encoded'} file has no ${key} in its facts`);
  return value!;
}

/** The mode a file is written with, whatever the umask: 0755 when executable, else 0644. */
export function fileMode(file: TreeFile): number {
  return file.executable ? 0o755 : 0o644;
}

/** The file's size in bytes (a reused file's from its facts). */
export function byteLengthOf(file: TreeFile): number {
  const facts = factsOf(file);
  if (facts.bytes === undefined) {
    if (typeof file.contents === 'string') fillTextFacts(facts, file.contents);
    else facts.bytes = file.contents.byteLength;
  }
  return facts.bytes!;
}

/** The SHA-256 (hex) of a tree file's bytes, computed once per file (a byte array shared by bundles, once per process). */
export function digestOf(file: TreeFile): string {
  const facts = factsOf(file);
  if (facts.sha256 === undefined) {
    if (typeof file.contents === 'string') fillTextFacts(facts, file.contents);
    else facts.sha256 = contentDigest(file.contents);
  }
  return facts.sha256!;
}

/** A text's digest and size, filled together: one encoding of it gives both. */
function fillTextFacts(facts: FileFacts, text: string): void {
  const known = textFacts(text);
  facts.sha256 ??= known.sha256;
  facts.bytes ??= known.bytes;
}

/** The file's text, which a check may read only for a file that was rendered. */
export function renderedText(file: TreeFile): string {
  if (file.reused || typeof file.contents !== 'string') throw new Error('internal: the text of a reused or binary file was asked for');
  return file.contents;
}
