// The leak check (check/check-emitted.ts leakHits) tries its pattern only at
// the starts a foreign root allows; it must find exactly what a scan of every
// line from its start finds. Compared here on generated text: every target's
// foreign roots with every prefix the pattern knows and characters that must
// not precede or follow a root, several to a line, adjacent and overlapping.
import { foreignRoots, leakHits } from '../check/check-emitted.ts';
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

/** Line and matched text of every match a scan of each whole line finds: the reference. */
function lineScan(text: string, pattern: RegExp): string[] {
  return text.split('\n').flatMap((line, index) => [...line.matchAll(pattern)].map((match) => `${index + 1}:${match[0]}`));
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
      const actual = leakHits({ contents: text }, roots, new Map(), []).map((hit) => `${hit.line}:${hit.matched}`);
      assert.equal(actual, expected, `${target.definition.id}, sample ${sample}`);
      compared += 1;
      found += expected.length;
    }
  }
  assert.ok(compared === targets.length * 60 && found > compared, `expected many leaks over ${compared} texts, found ${found}`);
});

leaks.run();
