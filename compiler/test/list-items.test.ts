// util/list-items.ts: the one reader of frontmatter lists such as `tools:`.
import { assert, suite } from './harness.ts';
import { listItems } from '../util/list-items.ts';

const test = suite('listItems');

test('a YAML list gives its items as strings, in order', () => {
  assert.equal(listItems(['Read', 'Bash', 3]), ['Read', 'Bash', '3']);
});

test('a comma-separated string is split, trimmed, and empty items dropped', () => {
  assert.equal(listItems(' Read, Write ,,Bash, '), ['Read', 'Write', 'Bash']);
  assert.equal(listItems(''), []);
});

test('a missing or null value is an empty list', () => {
  assert.equal(listItems(undefined), []);
  assert.equal(listItems(null), []);
});

test.run();
