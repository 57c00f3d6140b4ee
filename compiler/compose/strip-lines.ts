// Selects the lines a runtime's bundle keeps: gsd:section marker lines go,
// a gsd:only passage for this runtime loses its two marker lines, and a
// passage for other runtimes goes whole, and so do the lines a skill profile
// drops (compose/select-profile.ts).
import type { IrNode } from '../ir/types.ts';
import type { Cut } from './cuts.ts';

/** Cuts removing each whole line (with its line ending) that never reaches this runtime's bundle. */
export function strippedLines(node: IrNode, targetId: string): Cut[] {
  if (node.markerLines.length === 0 && node.onlyBlocks.length === 0 && !node.droppedLines) return [];
  const lines = new Set([...node.markerLines, ...(node.droppedLines ?? [])]);
  for (const block of node.onlyBlocks) {
    if (block.runtimes.includes(targetId)) {
      lines.add(block.openLine).add(block.closeLine);
    } else {
      for (let line = block.openLine; line <= block.closeLine; line += 1) lines.add(line);
    }
  }
  // Walked to each line wanted, not split: every bundle strips its nodes, and the texts are long.
  const text = node.text;
  const cuts: Cut[] = [];
  let line = 1;
  let start = 0;
  for (const wanted of [...lines].sort((a, b) => a - b)) {
    while (line < wanted && start < text.length) {
      const newline = text.indexOf('\n', start);
      start = newline === -1 ? text.length : newline + 1;
      line += 1;
    }
    if (line !== wanted || start >= text.length) continue;
    const newline = text.indexOf('\n', start);
    cuts.push({ start, end: newline === -1 ? text.length : newline + 1, replacement: '' });
  }
  return cuts;
}
