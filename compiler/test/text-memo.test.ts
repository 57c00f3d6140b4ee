// The per-text memo the checks keep in a long-lived process (watch): a text
// asked for in the round before is not computed again, a text left out of a
// round is forgotten, and a value is always the one computed for that text.
import { textMemo } from '../util/text-memo.ts';
import { suite, assert } from './harness.ts';

const memo = suite('text memo');

memo('should compute each text once across consecutive rounds and forget texts a round left out', () => {
  const computed: string[] = [];
  const lengths = textMemo<number>();
  const ask = (texts: string[]) => {
    const get = lengths.round();
    return texts.map((text) => get(text, () => (computed.push(text), text.length)));
  };
  assert.equal(ask(['a', 'bb', 'a']), [1, 2, 1]);
  assert.equal(computed, ['a', 'bb']);
  // The next round: both found, one new text computed.
  assert.equal(ask(['bb', 'ccc']), [2, 3]);
  assert.equal(computed, ['a', 'bb', 'ccc']);
  // 'a' was left out of the last round: forgotten, computed again.
  assert.equal(ask(['a', 'ccc']), [1, 3]);
  assert.equal(computed, ['a', 'bb', 'ccc', 'a']);
  // A round that asks for nothing keeps what the last one had.
  ask([]);
  assert.equal(ask(['a', 'ccc']), [1, 3]);
  assert.equal(computed, ['a', 'bb', 'ccc', 'a']);
});

memo.run();
