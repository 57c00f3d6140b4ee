// strippedLines (compose/strip-lines.ts) walks to the lines it removes: each
// cut is that whole line with its ending, for LF, CRLF, a last line without
// one, line numbers past the end, repeats, and on every node of source/.
import path from 'node:path';
import { compile, REPO_ROOT } from '../pipeline.ts';
import { strippedLines } from '../compose/strip-lines.ts';
import { splitLines } from '../load/scan-lines.ts';
import type { IrNode } from '../ir/types.ts';
import { suite, assert } from './harness.ts';

const strip = suite('strip-lines');

/** The cuts by splitting the text into lines: what the walk must equal. */
function bySplitting(node: IrNode, targetId: string): { start: number; end: number }[] {
  const lines = new Set([...node.markerLines, ...(node.droppedLines ?? [])]);
  for (const block of node.onlyBlocks) {
    if (block.runtimes.includes(targetId)) lines.add(block.openLine).add(block.closeLine);
    else for (let line = block.openLine; line <= block.closeLine; line += 1) lines.add(line);
  }
  return splitLines(node.text)
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ number }) => lines.has(number))
    .map(({ line }) => ({ start: line.start, end: line.start + line.content.length + line.eol.length }));
}

const cutsOf = (node: IrNode, targetId: string) => strippedLines(node, targetId).map(({ start, end, replacement }) => ({ start, end, replacement }));

function node(text: string, markerLines: number[], extra: Partial<IrNode> = {}): IrNode {
  return { id: 'workflow:x', kind: 'workflow', path: 'gsd-core/workflows/x.md', name: 'x', bom: false, text, frontmatter: null, body: { start: 0, line: 1 }, outline: [], sections: [], markerLines, onlyBlocks: [], edges: [], spans: [], bytes: text.length, ...extra } as IrNode;
}

strip('should cut each whole line with its ending, whatever the endings and however the lines are given', () => {
  const cases: [string, number[]][] = [
    ['a\nb\nc\n', [2]],
    ['a\nb\nc', [3]],
    ['a\r\nb\r\nc\r\n', [1, 3]],
    ['a\nb\r\nc', [2, 3]],
    ['a\nb\n', [3, 9]],
    ['', [1]],
    ['\n\n\n', [1, 2, 3, 4]],
    ['only', [1, 1, 2]],
    ['x\ny\nz\n', [3, 1, 2]],
  ];
  for (const [text, lines] of cases) {
    const given = node(text, lines);
    assert.equal(cutsOf(given, 'claude'), bySplitting(given, 'claude').map((cut) => ({ ...cut, replacement: '' })), JSON.stringify([text, lines]));
  }
  // A gsd:only passage: its marker lines for its runtime, the whole passage for any other; a profile's dropped lines too.
  const passage = node('one\n<!-- only -->\ntwo\n<!-- /only -->\nthree\nfour', [], { onlyBlocks: [{ runtimes: ['codex'], openLine: 2, closeLine: 4, columns: [1] }], droppedLines: [6] });
  for (const target of ['codex', 'claude']) assert.equal(cutsOf(passage, target), bySplitting(passage, target).map((cut) => ({ ...cut, replacement: '' })), target);
  assert.equal(cutsOf(passage, 'codex').map((cut) => passage.text.slice(cut.start, cut.end)), ['<!-- only -->\n', '<!-- /only -->\n', 'four']);
});

strip('should cut what splitting cuts on every node of source/, for every target', async () => {
  const compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  const marked = compiled.ir.nodes.filter((each) => each.markerLines.length > 0 || each.onlyBlocks.length > 0);
  assert.ok(marked.length >= 10 && marked.some((each) => each.onlyBlocks.length > 0), `${marked.length} marked nodes`);
  for (const each of marked) {
    for (const target of compiled.targets) {
      const id = target.definition.id;
      assert.equal(cutsOf(each, id), bySplitting(each, id).map((cut) => ({ ...cut, replacement: '' })), `${each.path} for ${id}`);
    }
  }
});

strip.run();
