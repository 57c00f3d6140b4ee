// The compiler's shared text helpers.
import { literalFinder } from '../util/text.ts';
import { suite, assert } from './harness.ts';

const test = suite('text');

// A small deterministic generator, so a failure names a seed that reproduces it.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The obvious answer: the smallest indexOf of any literal. */
function naive(literals: string[], text: string, from: number): number {
  const hits = literals.map((literal) => text.indexOf(literal, from)).filter((at) => at !== -1);
  return hits.length > 0 ? Math.min(...hits) : -1;
}

test('literalFinder agrees with the smallest indexOf on random texts, literals and starting points', () => {
  const alphabet = ['.', 'c', 'l', 'a', '/', 'x', '\n', 'é', '😀'];
  for (let seed = 1; seed <= 600; seed += 1) {
    const next = random(seed);
    const word = (max: number) => Array.from({ length: Math.floor(next() * max) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    const literals = Array.from({ length: 1 + Math.floor(next() * 5) }, () => word(4) || '.c');
    const text = word(40);
    const from = Math.floor(next() * 10);
    assert.is(literalFinder(literals)(text, from), naive(literals, text, from), `seed ${seed}: ${JSON.stringify({ literals, text, from })}`);
  }
});

test('literalFinder: roots at the very start and end, one-character literals, none, and the empty literal', () => {
  const roots = literalFinder(['.claude', '.codex', '.gemini/config']);
  assert.is(roots('.claude/x'), 0);
  assert.is(roots('see ~/.codex'), 6);
  assert.is(roots('.codex .claude', 1), 7);
  assert.is(roots('a .gemini/conf'), -1);
  assert.is(roots('.'), -1);
  assert.is(roots(''), -1);
  assert.is(literalFinder(['x', 'ab'])('zabx'), 1);
  assert.is(literalFinder([])('anything'), -1);
  assert.is(literalFinder([''])('abc', 2), 2);
});

test.run();
