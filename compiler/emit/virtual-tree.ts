// A bundle while it is built and checked: bundle-relative POSIX path → file. emit-bundle
// makes it; the manifest, checks, goldens and writers read it.
import type { MergeFormat } from '../../source/runtime/install/bundle-types.ts';

export interface TreeFile {
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
}

/** Bundle-relative POSIX path → file, in sorted order. */
export type VirtualTree = Map<string, TreeFile>;
