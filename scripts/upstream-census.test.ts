// The upstream runtime-CLI census: every key upstream's prompts call is in
// compiler/data/upstream-verb-map.json (valid against its schema), every
// counterpart it names is a key of our command table, and it names no key
// upstream no longer calls; each of those checks catches its fault.
import { suite, assert } from '../compiler/test/harness.ts';
import { schemaValidator } from '../compiler/schemas.ts';
import { audit, census, keyOf, ourKeys, tally, VERB_MAP, type VerbMap } from './upstream-census.ts';

const s = suite('upstream census');

s('should key calls the way upstream reads them', () => {
  const subs = new Set(['state', 'init']);
  assert.is(keyOf(['query', 'state.load', '--raw'], VERB_MAP, subs), 'state load');
  assert.is(keyOf(['--cwd', '/x', 'init', 'plan-phase', '3'], VERB_MAP, subs), 'init plan-phase');
  assert.is(keyOf(['config-get', 'a.b'], VERB_MAP, subs), 'config-get');
  assert.is(keyOf(['$@'], VERB_MAP, subs), null);
  assert.is(keyOf([], VERB_MAP, subs), null);
});

s('should hold a map that matches its schema', () => {
  const validate = schemaValidator('upstream-verb-map.schema.json');
  assert.ok(validate(VERB_MAP), JSON.stringify(validate.errors));
  const bad = structuredClone(VERB_MAP) as unknown as { keys: Record<string, unknown> };
  bad.keys['x'] = { ours: null, because: 'later' };
  assert.not.ok(validate(bad), 'a null counterpart needs a known reason and a why');
});

s('should catch an unclassified key, an unknown counterpart and a stale key', () => {
  const counts = new Map([['a', 2], ['b', 1]]);
  const m: VerbMap = { ...VERB_MAP, keys: { a: { ours: ['nope'] }, gone: { ours: null, because: 'design', why: 'not in this design' } } };
  assert.equal(audit(counts, m, new Set(['yes'])), { unclassified: ['b'], stale: ['gone'], unknownCounterparts: ['a -> nope'] });
  assert.equal(tally(counts, m, new Set(['nope'])).covered, { keys: 1, calls: 2 });
});

s('should classify every upstream key against our command table', async () => {
  const counts = await census();
  assert.ok(counts.size > 100, `found ${counts.size} keys`);
  assert.equal(audit(counts, VERB_MAP, ourKeys()), { unclassified: [], stale: [], unknownCounterparts: [] });
});

s.run();
