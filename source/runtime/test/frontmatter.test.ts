import { suite, assert } from '../../../compiler/test/harness.ts';
import { parseYaml, readFrontmatter, stringifyYaml, withFrontmatter } from '../md/frontmatter.ts';
import { CliError } from '../core/errors.ts';
import { lineOfPointer, parseJson } from '../core/json.ts';

const s = suite('runtime frontmatter');

const PLAN = `---
phase: 01-foundation
plan: "02"
wave: 2
version: 1.0
autonomous: false
depends_on: ["01-01", '01-03']
files_modified:
  - src/a.ts
  - "src/b c.ts"   # trailing comment
must_haves:
  truths:
    - it works
  artifacts:
    - path: src/a.ts
      provides: the thing
      min_lines: 10
    - path: src/b.ts
  key_links: []
notes: |
  line one
  line two
empty:
---
# Body
`;

s('should parse the YAML subset with typed scalars and nested lists of maps', () => {
  const fm = readFrontmatter(PLAN, 'PLAN.md');
  assert.equal(fm.data, {
    phase: '01-foundation',
    plan: '02',
    wave: 2,
    version: '1.0',
    autonomous: false,
    depends_on: ['01-01', '01-03'],
    files_modified: ['src/a.ts', 'src/b c.ts'],
    must_haves: {
      truths: ['it works'],
      artifacts: [{ path: 'src/a.ts', provides: 'the thing', min_lines: 10 }, { path: 'src/b.ts' }],
      key_links: [],
    },
    notes: 'line one\nline two\n',
    empty: null,
  });
  assert.is(fm.split.body, '# Body\n');
  assert.is(fm.split.bodyLine, 25);
});

s('should round-trip: serialise then parse gives the same data', () => {
  const data = readFrontmatter(PLAN, 'x').data;
  const again = parseYaml(stringifyYaml(data), 'x');
  assert.equal(again, data);
  const tricky = { a: '01', b: '1.0', c: 'yes', d: 'x: y', e: '- dash', f: '', g: 'true', h: '2025-01-01', i: 'plain text', j: '#hash', k: 'multi\nline' };
  assert.equal(parseYaml(stringifyYaml(tricky), 'x'), tricky);
  assert.match(stringifyYaml(tricky), /^i: plain text$/m);
});

s('should keep untouched keys byte-for-byte when rewriting', () => {
  const fm = readFrontmatter(PLAN, 'x');
  const out = withFrontmatter({ ...fm.data, wave: 3 }, fm.split.body, fm);
  assert.match(out, /"src\/b c\.ts" {3}# trailing comment/);
  assert.match(out, /^wave: 3$/m);
  assert.match(out, /depends_on: \["01-01", '01-03'\]/);
});

s('should report malformed frontmatter at the right line', () => {
  const bad: [string, RegExp][] = [
    ['---\na: 1\n', /^F\.md:1: frontmatter opened/],
    ['---\na: 1\nb c\n---\n', /^F\.md:3: expected "key: value", found "b c"/],
    ['---\na:\n  - x\n    - y\n---\n', /^F\.md:4: unexpected indentation/],
    ['---\na: [1, 2\n---\n', /^F\.md:2: unterminated or malformed inline list/],
    ['---\na: "open\n---\n', /^F\.md:2: unterminated quoted string/],
    ['---\nconstructor: 1\n---\n', /^F\.md:2: key "constructor" is not allowed/],
    ['---\na: {__proto__: 1}\n---\n', /^F\.md:2: key "__proto__" is not allowed/],
    ['---\n\tx: 1\n---\n', /^F\.md:2: tab used for indentation/],
  ];
  for (const [text, re] of bad) {
    try {
      readFrontmatter(text, 'F.md');
      assert.unreachable(text);
    } catch (error) {
      assert.instance(error, CliError, text);
      assert.match((error as Error).message, re);
    }
  }
  assert.equal(readFrontmatter('no frontmatter\n---\n', 'x').data, {});
});

s('should parse JSON safely: size cap, forbidden keys, positions', () => {
  assert.throws(() => parseJson('{"a": {"constructor": 1}}', 'in'), /in:1: key "constructor" is not allowed/);
  assert.throws(() => parseJson('{\n"a": tru\n}', 'in'), /in:2:\d+: invalid JSON/);
  assert.throws(() => parseJson(`"${'x'.repeat(100)}"`, 'in', 50), /over the 50-byte limit/);
  const text = '{\n  "a": {\n    "b": [\n      1,\n      2\n    ]\n  }\n}';
  assert.is(lineOfPointer(text, '/a/b'), 3);
  assert.is(lineOfPointer(text, '/a/b/1'), 5);
  assert.is(lineOfPointer(text, '/zz'), undefined);
});

s.run();
