// A node's digest: what emit keys a node's render units by, and what a
// delta compares to find the nodes it must render again.
import { hashParts } from '../cache/build-cache.ts';
import type { IrNode } from './types.ts';

const nodeDigests = new WeakMap<IrNode, string>();

/**
 * A digest of everything rendering reads from a node: its text and what the
 * loader found in it (spans, markers, passages, dropped lines, frontmatter),
 * so two nodes with one digest render to the same bytes in the same bundle.
 * Linking fills in children and resolved edges later; rendering reads those
 * through other nodes, whose own digests cover them.
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

/**
 * Takes a node's digest as given: one computed by nodeDigest when the node
 * was built, kept with it in the node memo (build-ir.ts), so a build that
 * reads its nodes back does not hash each of them again.
 */
export function knownNodeDigest(node: IrNode, digest: string): void {
  nodeDigests.set(node, digest);
}
