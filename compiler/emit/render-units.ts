// Render units: the pieces of a bundle each rendered from one input (a node,
// a built file) for one bundle, so an incremental build (compiler/incremental.ts)
// can reuse a unit the last build rendered from the same inputs instead of
// rendering it again. A unit's key hashes the bundle's salt (everything but
// the unit's own input: the compiler, every target definition, the scope, the
// version, the layout's exemptions) with the unit's kind, place and input:
// the salt is stored once per bundle, and units of another salt are not read.
import { hashParts } from '../cache/build-cache.ts';
import type { IrNode } from '../ir/types.ts';
import type { FileFacts } from './virtual-tree.ts';

/** A file the last build rendered for a unit, as the next build takes it back: no bytes, every fact. */
export interface ReusedFile {
  path: string;
  executable?: true;
  source?: string;
  generated?: true;
  verbatim?: true;
  facts: FileFacts;
}

/** What emit needs to reuse units of one bundle, and what it reports back. */
export interface UnitReuse {
  /** The files of a unit of the last build, when every one is still on disk as it wrote them; left as stored. */
  lookup(key: string): ReusedFile[] | undefined;
  /** A reused file's facts, completed with its digest and size from the bundle's record. */
  factsOf(file: ReusedFile): FileFacts;
  /** Filled by emit: unit key → the paths of its files. */
  made: Map<string, string[]>;
}

const nodeDigests = new WeakMap<IrNode, string>();

/**
 * A digest of everything rendering reads from a node: its text and what the
 * loader found in it (spans, markers, passages, dropped lines, frontmatter),
 * so two nodes with one digest render to the same bytes in the same bundle.
 */
export function nodeDigest(node: IrNode): string {
  let digest = nodeDigests.get(node);
  if (digest === undefined) {
    const { id, kind, path, name, variant, router, text, body, markerLines, onlyBlocks, droppedLines, spans, frontmatter } = node;
    const read = { id, kind, path, name, variant, router, body, markerLines, onlyBlocks, droppedLines, spans, data: frontmatter?.data ?? null };
    digest = hashParts([JSON.stringify(read), text]);
    nodeDigests.set(node, digest);
  }
  return digest;
}
