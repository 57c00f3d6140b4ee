// core/equal.ts: the one deepEqual, with its documented rules.
import { assert, suite } from '../../../compiler/test/harness.ts';
import { deepEqual } from '../core/equal.ts';
import { escapeRegExp } from '../core/text.ts';

const test = suite('deepEqual');

test('maps are equal with their keys in any order, unless orderedKeys asks for the same order', () => {
  assert.ok(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
  assert.not.ok(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 }, { orderedKeys: true }));
  assert.not.ok(deepEqual({ x: { a: 1, b: 2 } }, { x: { b: 2, a: 1 } }, { orderedKeys: true }));
  assert.ok(deepEqual({ a: 1, b: 2 }, { a: 1, b: 2 }, { orderedKeys: true }));
});

test('lists compare item by item in order; a list never equals a map', () => {
  assert.ok(deepEqual([1, 'a', null], [1, 'a', null]));
  assert.not.ok(deepEqual([1, 2], [2, 1]));
  assert.not.ok(deepEqual([1], [1, 1]));
  assert.not.ok(deepEqual([], {}));
  assert.not.ok(deepEqual({ 0: 'a' }, ['a']));
});

test('dates are equal when they name the same instant, and differ otherwise', () => {
  assert.ok(deepEqual(new Date('2024-01-01T00:00:00Z'), new Date('2024-01-01T00:00:00Z')));
  assert.not.ok(deepEqual(new Date('2024-01-01T00:00:00Z'), new Date('2024-01-02T00:00:00Z')));
  assert.not.ok(deepEqual({ at: new Date(0) }, { at: new Date(1) }, { orderedKeys: true }));
});

test('a missing key is not a key holding undefined, and scalars compare by ===', () => {
  assert.not.ok(deepEqual({ a: undefined }, { b: undefined }));
  assert.not.ok(deepEqual(1, '1'));
  assert.not.ok(deepEqual(null, {}));
  assert.ok(deepEqual('x', 'x'));
});

test('escapeRegExp makes every special character literal', () => {
  const text = 'a.b*c+?^${}()|[]\\/';
  assert.ok(new RegExp(`^${escapeRegExp(text)}$`).test(text));
  assert.not.ok(new RegExp(`^${escapeRegExp('a.b')}$`).test('axb'));
});

test.run();
