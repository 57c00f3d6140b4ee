// The leak check (check/check-emitted.ts leakHits) tries its pattern only at
// the starts a foreign root allows; it must find exactly what a scan of every
// line from its start finds. Compared here on generated text: every target's
// foreign roots with every prefix the pattern knows and characters that must
// not precede or follow a root, several to a line, adjacent and overlapping.
import { checkEmittedPaths, checkPathCollisions, foreignRoots, leakHits, leakScan, limitCheck } from '../check/check-emitted.ts';
import type { IrNode } from '../ir/types.ts';
import type { TreeFile } from '../emit/virtual-tree.ts';
import { loadTargets } from '../targets/load-targets.ts';
import { suite, assert } from './harness.ts';

const leaks = suite('leak check');

const PREFIXES = ['', '~/', '$HOME/', './', '$HOME', 'x', '.', '-', '/', '"', '(', ' ', '`', '~/~/', './.'];
const SUFFIXES = ['/gsd-core/x.md', '/skills/gsd-a/SKILL.md', '/agents/gsd-x.md', '', '/', '.md', '-x', '/other', '/gsd-core', 'x/gsd-core/a'];
const GLUE = ['', ' ', '\n', ' and ', '`', '.', ',', '\n\n', ')'];

/** A small deterministic generator (a linear congruential one): the same text on every run. */
function random(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % below;
  };
}

/**
 * Line, matched text, and the word holding the match with its column, of every
 * match a scan of each whole line finds: the reference. The word runs out from
 * the match to the quotes, brackets and spaces around it on its line, less
 * trailing punctuation.
 */
function lineScan(text: string, pattern: RegExp): string[] {
  return text.split('\n').flatMap((line, index) =>
    [...line.matchAll(pattern)].map((match) => {
      const start = Math.max(...[...' \t`\'"('].map((stop) => line.lastIndexOf(stop, match.index - 1) + 1));
      const ends = [...' \t`\'")'].map((stop) => line.indexOf(stop, match.index)).filter((end) => end !== -1);
      const word = line.slice(start, ends.length > 0 ? Math.min(...ends) : line.length).replace(/[.,;:]+$/, '');
      return `${index + 1}:${match[0]}:${start + 1}:${word}`;
    }),
  );
}

leaks('should find what a whole-line scan finds, in every target, on generated text', async () => {
  const { targets } = await loadTargets();
  let compared = 0;
  let found = 0;
  for (const [index, target] of targets.entries()) {
    const roots = foreignRoots(target, targets);
    const literals = [...new Set([...targets.flatMap((other) => Object.values(other.definition.scopes).map((scope) => scope.root)), '.claude', '.gemini/antigravity'])].filter((root) => root.length > 1);
    const pick = random(index + 1);
    const choose = <T>(items: readonly T[]): T => items[pick(items.length)]!;
    for (let sample = 0; sample < 60; sample += 1) {
      let text = '';
      for (let part = 0; part < 40; part += 1) text += choose(PREFIXES) + choose(literals) + choose(SUFFIXES) + choose(GLUE);
      const expected = lineScan(text, roots.pattern);
      const actual = leakHits({ contents: text }, roots, []).map((hit) => `${hit.line}:${hit.matched}:${hit.column}:${hit.token}`);
      assert.equal(actual, expected, `${target.definition.id}, sample ${sample}`);
      compared += 1;
      found += expected.length;
    }
  }
  assert.ok(compared === targets.length * 60 && found > compared, `expected many leaks over ${compared} texts, found ${found}`);
});

leaks("should take a text's hits from the last bundle checked only against the same roots, node and verbatim flag", async () => {
  const { targets } = await loadTargets();
  const codex = targets.find((target) => target.definition.id === 'codex')!;
  const cursor = targets.find((target) => target.definition.id === 'cursor')!;
  const text = 'Read ~/.claude/gsd-core/x.md and ~/.cursor/gsd-core/y.md.\n';
  const nodes = new Map([
    ['a.md', { path: 'a.md', text: 'one\n~/.claude/gsd-core/x.md\n' }],
    ['b.md', { path: 'b.md', text: '~/.claude/gsd-core/x.md\n' }],
  ]) as unknown as Map<string, IrNode>;
  // One list of allowed paths for every check, as a build passes its own: a new list is another check's, with nothing kept.
  const allowed: RegExp[] = [];
  const check = (roots: ReturnType<typeof foreignRoots>, files: [string, TreeFile][], own = allowed) => checkEmittedPaths('t/global', new Map(files), leakScan(roots, nodes, own)).map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`);
  const codexRoots = foreignRoots(codex, targets);
  const fresh = (file: TreeFile) => check(foreignRoots(codex, targets), [['f.md', file]], []);
  // The same text in the next bundle, from another node, then verbatim: each as a check with nothing kept finds it.
  const first = check(codexRoots, [['f.md', { contents: text, source: 'a.md' }]]);
  assert.ok(first.length === 2 && first[0]!.endsWith('from a.md:2:1') && first[1]!.endsWith('from a.md'), first.join('\n'));
  const expected = fresh({ contents: text, source: 'b.md' });
  assert.ok(expected.length === 2 && expected[0]!.endsWith('from b.md:1:1'), expected.join('\n'));
  check(codexRoots, [['f.md', { contents: text, source: 'a.md' }]]);
  assert.equal(check(codexRoots, [['f.md', { contents: text, source: 'b.md' }]]), expected);
  assert.equal(check(codexRoots, [['f.md', { contents: text, source: 'b.md', verbatim: true }]]), []);
  // The same text twice in one bundle, from two nodes: each its own origin.
  const twice = check(codexRoots, [['f.md', { contents: text, source: 'a.md' }], ['g.md', { contents: text, source: 'b.md' }]]);
  assert.equal(twice.filter((line) => line.startsWith('t/global/g.md')), expected.map((line) => line.replace('t/global/f.md', 't/global/g.md')));
  // Another target's roots: .cursor is its own, so only the .claude path is a leak.
  check(codexRoots, [['f.md', { contents: text, source: 'b.md' }]]);
  const cursorHits = check(foreignRoots(cursor, targets), [['f.md', { contents: text, source: 'b.md' }]]);
  assert.equal(cursorHits.length, 1, cursorHits.join('\n'));
  assert.match(cursorHits[0]!, /~\/\.claude\/gsd-core\/x\.md/);
});

leaks('should report each match of a forbidden-text limit at its line and column, the body after the frontmatter only', () => {
  const check = limitCheck([{ files: '\\.md$', forbidden: '\\$@|\\$\\d', reason: 'the runtime replaces them' }]);
  const text = '---\nname: $1\n---\nrun $@ and $2\n\nnone here\n$@\n  x $3 $@\n';
  const found = check('a.md', { contents: text }).map((hit) => `${hit.line}:${hit.column}:${hit.message.slice(hit.message.lastIndexOf('"', hit.message.length - 2))}`);
  assert.equal(found, ['4:5:"$@"', '4:12:"$2"', '7:1:"$@"', '8:5:"$3"', '8:8:"$@"']);
  assert.equal(check('a.txt', { contents: text }), []);
});

leaks('should report two paths that are one file where case or Unicode form is not told apart once each, a folder once for all its files', () => {
  const file = (source?: string): TreeFile => ({ contents: '', ...(source === undefined ? {} : { source }) });
  const tree = new Map<string, TreeFile>([
    ['r/Docs/a.md', file('docs/a.md')],
    ['r/Docs/b.md', file()],
    ['r/docs/c.md', file('docs/c.md')],
    ['r/docs/deep/d.md', file()],
    ['r/n/Notes', file()],
    ['r/n/notes/e.md', file('e.md')],
    ['r/u/caf\u00e9.md', file()],
    ['r/u/cafe\u0301.md', file('cafe.md')],
    ['r/u/CAFE\u0301.md', file()],
    ['r/x/same.md', file()],
    ['r/x/other.md', file()],
  ]);
  const found = checkPathCollisions('t/global', tree).map((d) => `${d.file}:${d.line}:${d.column}: ${d.code} ${d.message.replace(/^expected .*?, found /, '')}`);
  assert.equal(found, [
    't/global/r/docs/c.md:1:1: emit-path-collision folder "r/docs" and folder "r/Docs": one folder there, differing only in case from docs/c.md',
    't/global/r/n/notes/e.md:1:1: emit-path-collision folder "r/n/notes" and "r/n/Notes" (built code): one file there, differing only in case from e.md',
    't/global/r/u/cafe\u0301.md:1:1: emit-path-collision "r/u/cafe\u0301.md" from cafe.md and "r/u/caf\u00e9.md" (built code): one file there, differing only in Unicode form',
    't/global/r/u/CAFE\u0301.md:1:1: emit-path-collision "r/u/CAFE\u0301.md" (built code) and "r/u/caf\u00e9.md" (built code): one file there, differing only in case and Unicode form',
  ]);
  assert.equal(checkPathCollisions('t/global', new Map([['r/a.md', file()], ['r/b/a.md', file()], ['a.md', file()]])), []);
});

leaks.run();
