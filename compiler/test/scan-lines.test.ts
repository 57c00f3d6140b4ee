// Edge cases of the one scan that tells text, fences, comments and markers apart.
import { fencedBlocks, scanLines } from '../load/scan-lines.ts';
import { parseSections } from '../load/parse-sections.ts';
import { FROZEN_WHEN } from '../pipeline.ts';
import { suite, assert } from './harness.ts';

const scan = suite('scan-lines');
const kinds = (text: string) => scanLines(text).map((line) => line.kind);
const OPEN = '<!-- gsd:section id="a" when="flag:--wave" -->';
const CLOSE = '<!-- /gsd:section -->';

scan('should see a marker outside fences and comments', () => {
  assert.equal(kinds(`x\n${OPEN}\ny\n${CLOSE}\n`), ['text', 'marker', 'text', 'marker']);
});

scan('should treat marker lines inside ``` and ~~~ fences as fence content', () => {
  assert.equal(kinds(`\`\`\`md\n${OPEN}\n\`\`\`\n~~~\n${CLOSE}\n~~~\n`), ['fence', 'fence', 'fence', 'fence', 'fence', 'fence']);
});

scan('should close a fence only with the same character and at least the same length', () => {
  assert.equal(kinds('````\n```\n~~~~\n````\nafter\n'), ['fence', 'fence', 'fence', 'fence', 'text']);
});

scan('should accept up to three spaces before a fence and not four', () => {
  assert.equal(kinds(`   \`\`\`\n${OPEN}\n   \`\`\`\n    \`\`\`\n${OPEN}\n`), ['fence', 'fence', 'fence', 'text', 'marker']);
});

scan('should not open a backtick fence whose info string has a backtick', () => {
  assert.equal(kinds(`\`\`\` a\`b\n${OPEN}\n`), ['text', 'marker']);
});

scan('should treat the rest of a file after an unclosed fence as literal', () => {
  assert.equal(kinds(`\`\`\`\n${OPEN}\n${CLOSE}`), ['fence', 'fence', 'fence']);
});

scan('should treat a marker line inside a multi-line comment as comment content that ends it', () => {
  // The comment ends on the first line containing -->, which the marker line has.
  assert.equal(kinds(`<!-- a note\n\`\`\`\n${OPEN}\n${OPEN}\n`), ['comment', 'comment', 'comment', 'marker']);
});

scan('should let a comment inside a fence stay fence content, so the fence still closes', () => {
  assert.equal(kinds('```\n<!-- open\n```\nafter\n'), ['fence', 'fence', 'fence', 'text']);
});

scan('should let a fence delimiter inside a comment stay comment content', () => {
  assert.equal(kinds('<!--\n```\n-->\nafter\n'), ['comment', 'comment', 'comment', 'text']);
});

scan('should read a comment followed by text on its line as text, not a marker', () => {
  assert.equal(kinds(`${OPEN} trailing\n<!-- gsd:sectional -->\n`), ['text', 'comment']);
});

scan('should accept an indented marker and CRLF line endings', () => {
  const lines = scanLines(`  ${OPEN}\r\nstub\r\n\t${CLOSE}\r\n`);
  assert.equal(lines.map((line) => line.kind), ['marker', 'text', 'marker']);
  assert.equal(lines.map((line) => line.eol), ['\r\n', '\r\n', '\r\n']);
});

scan('should partition a marked body into gap and explicit sections', () => {
  const lines = scanLines(`intro\n${OPEN}\nstub\n${CLOSE}\nouttro\n`);
  const { sections, diagnostics } = parseSections('f.md', lines, FROZEN_WHEN);
  assert.equal(diagnostics, []);
  assert.equal(
    sections.map((s) => [s.id, s.when, s.startLine, s.endLine]),
    [
      ['gap-0', 'always', 1, 1],
      ['a', 'flag:--wave', 3, 3],
      ['gap-1', 'always', 5, 5],
    ],
  );
});

scan('should find no markers, and so no errors, in fenced examples of bad markers', () => {
  const text = `\`\`\`\n<!-- gsd:section id="Bad" when="nope" -->\n<!-- /gsd:section extra -->\n\`\`\`\n`;
  const { sections, diagnostics } = parseSections('f.md', scanLines(text), FROZEN_WHEN);
  assert.equal(diagnostics, []);
  assert.equal(sections.length, 1);
});

scan('should list fenced blocks with their info strings and body lines, an unclosed one running to the end', () => {
  const blocks = fencedBlocks(scanLines('a\n```bash title="x"\none\n```\n~~~~\n```\n~~~~\n````\nlast\n'));
  assert.equal(
    blocks.map((block) => [block.info, block.body.map((line) => [line.line, line.content])]),
    [
      ['bash title="x"', [[3, 'one']]],
      ['', [[6, '```']]],
      ['', [[9, 'last']]],
    ],
  );
});

scan.run();
