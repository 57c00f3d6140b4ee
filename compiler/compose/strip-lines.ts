// Selects the lines a runtime's bundle keeps: gsd:section marker lines go,
// a gsd:only passage for this runtime loses its two marker lines, and a
// passage for other runtimes goes whole.
import type { IrNode } from '../ir/types.ts';
import { splitLines } from '../load/scan-lines.ts';
import type { Cut } from './cuts.ts';

/** Cuts removing each whole line (with its line ending) that never reaches this runtime's bundle. */
export function strippedLines(node: IrNode, targetId: string): Cut[] {
  if (node.markerLines.length === 0 && node.onlyBlocks.length === 0) return [];
  const lines = new Set(node.markerLines);
  for (const block of node.onlyBlocks) {
    if (block.runtimes.includes(targetId)) {
      lines.add(block.openLine).add(block.closeLine);
    } else {
      for (let line = block.openLine; line <= block.closeLine; line += 1) lines.add(line);
    }
  }
  return splitLines(node.text)
    .filter((_, index) => lines.has(index + 1))
    .map((line) => ({ start: line.start, end: line.start + line.content.length + line.eol.length, replacement: '' }));
}
