// The frontmatter line scan must find exactly the block remark-frontmatter
// finds (value, end offset, end line): builds use the scan, and the goldens
// were made with remark.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkFrontmatter from 'remark-frontmatter';
import type { Root } from 'mdast';
import { scanFrontmatter } from '../load/parse-document.ts';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';

const scan = suite('frontmatter-scan');
// Inline constructs cannot change where a block ends; switched off, the corpora parse several times faster.
const INLINE = ['attention', 'autolink', 'characterEscape', 'characterReference', 'codeText', 'hardBreakEscape', 'htmlText', 'labelStartImage', 'labelStartLink', 'labelEnd'];
const remark = unified()
  .use(remarkParse)
  .use(remarkFrontmatter, ['yaml'])
  .use(function noInline(this: { data: () => unknown }) {
    ((this.data() as { micromarkExtensions?: unknown[] }).micromarkExtensions ??= []).push({ disable: { null: INLINE } });
  })
  .freeze();

function byRemark(text: string) {
  const first = (remark.parse(text) as Root).children[0];
  if (first?.type !== 'yaml' || !first.position) return null;
  return { value: first.value, endOffset: first.position.end.offset, endLine: first.position.end.line };
}

const CASES = [
  '---\nname: x\n---\nbody\n',
  '---\r\nname: x\r\ntools: a\r\n---\r\nbody',
  '---\rname: x\r---\rbody',
  '---\n\nname: x\n\n---\n',
  '---\n---\n',
  '---\n---',
  '---',
  '---\n',
  '---\nname: x\n',
  '--- \t\nname: x\n---  \t\nbody',
  '---x\nname: x\n---\n',
  ' ---\nname: x\n---\n',
  '---\nname: x\n--- x\n----\n ---\n---\nz',
  '----\nname: x\n---\n',
  '\n---\nname: x\n---\n',
  '---\n```\n---\n```\n',
  '---\nname: x\n\n\n---\n\n# Title\n',
];

scan('should agree with remark-frontmatter on edge cases', () => {
  for (const text of CASES) assert.equal(scanFrontmatter(text), byRemark(text), JSON.stringify(text));
});

scan('should agree with remark-frontmatter on every Markdown file of source/ and the upstream corpus', () => {
  const roots = [path.join(REPO_ROOT, 'source'), path.join(REPO_ROOT, 'node_modules/@opengsd/gsd-core')];
  let count = 0;
  for (const root of roots) {
    for (const file of fg.sync('**/*.md', { cwd: root, ignore: ['**/node_modules/**'] })) {
      const text = readFileSync(path.join(root, file), 'utf8').replace(/^\uFEFF/, '');
      assert.equal(scanFrontmatter(text), byRemark(text), file);
      count += 1;
    }
  }
  assert.ok(count > 500, `expected the corpora's Markdown files, found ${count}`);
});

scan.run();
