// The upstream runtime-CLI census: every key upstream's prompts call is in
// compiler/data/upstream-verb-map.json (valid against its schema), every
// counterpart it names is a key of our command table, it names no key
// upstream no longer calls, and none keeps the unjudged placeholder; each of
// those checks catches its fault. Commands and agents a capability owns count
// as ours.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite, assert } from '../compiler/test/harness.ts';
import { schemaValidator } from '../compiler/schemas.ts';
import { audit, census, keyOf, missingByFeature, ourKeys, surface, tally, VERB_MAP, type VerbMap } from './upstream-census.ts';

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
  bad.keys['x'] = { ours: null, because: 'not-built', why: 'would list the open items' };
  assert.not.ok(validate(bad), 'a missing capability names its feature');
  bad.keys['x'] = { ours: null, because: 'design', feature: 'todos', why: 'done as a workflow step' };
  assert.not.ok(validate(bad), 'only a missing capability has a feature');
});

s('should catch an unclassified key, an unknown counterpart and a stale key', () => {
  const counts = new Map([['a', 2], ['b', 1]]);
  const m: VerbMap = { ...VERB_MAP, keys: { a: { ours: ['nope'] }, gone: { ours: null, because: 'design', why: 'not in this design' } } };
  assert.equal(audit(counts, m, new Set(['yes'])), { unclassified: ['b'], stale: ['gone'], unknownCounterparts: ['a -> nope'], unjudged: [] });
  assert.equal(tally(counts, m, new Set(['nope'])).covered, { keys: 1, calls: 2 });
});

s('should catch a key that keeps the unjudged placeholder', () => {
  const counts = new Map([['a', 1]]);
  const m: VerbMap = { ...VERB_MAP, keys: { a: { ours: null, because: 'not-built', feature: 'x', why: 'no counterpart of this name; capability not yet judged' } } };
  assert.equal(audit(counts, m, new Set()).unjudged, ['a']);
});

s('should tally prose apart from calls and group missing keys by feature', () => {
  const counts = new Map([['a', 3], ['b', 2], ['c', 1], ['d', 4], ['e', 5]]);
  const m: VerbMap = {
    ...VERB_MAP,
    keys: {
      a: { ours: null, because: 'not-built', feature: 'f1', why: 'would do a' },
      b: { ours: null, because: 'not-built', feature: 'f2', why: 'would do b' },
      c: { ours: null, because: 'not-built', feature: 'f1', why: 'would do c' },
      d: { ours: null, because: 'not-a-call', why: 'prose naming the launcher' },
      e: { ours: ['yes'] },
    },
  };
  const t = tally(counts, m, new Set(['yes']));
  assert.equal([t.covered, t.missing, t.notACall, t.total], [{ keys: 1, calls: 5 }, { keys: 3, calls: 6 }, { keys: 1, calls: 4 }, { keys: 4, calls: 11 }]);
  assert.equal(missingByFeature(counts, m, new Set(['yes'])), [{ feature: 'f1', keys: ['a', 'c'], calls: 4 }, { feature: 'f2', keys: ['b'], calls: 2 }]);
});

s('should count commands and agents a capability owns as ours', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'census-'));
  try {
    const put = (rel: string, text = '# x\n') => { fs.mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true }); fs.writeFileSync(path.join(tmp, rel), text); };
    for (const f of ['up/commands/gsd/a.md', 'up/commands/gsd/b.md', 'up/commands/gsd/c.md', 'up/agents/gsd-x.md', 'up/agents/gsd-y.md', 'ours/commands/gsd/a.md', 'ours/agents/gsd-x.md']) put(f);
    put('ours/capabilities/cap/capability.json', JSON.stringify({ id: 'cap', commands: ['commands/gsd/b.md'], agents: ['agents/gsd-y.md'] }));
    const s2 = surface(path.join(tmp, 'up'), path.join(tmp, 'ours'));
    assert.equal(s2.commands, { upstream: 3, same: 2, missing: ['c'], viaCapability: ['b'] });
    assert.equal(s2.agents, { upstream: 2, same: 2, missing: [], viaCapability: ['gsd-y'] });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const real = surface();
  assert.ok(real.agents.viaCapability.includes('gsd-pattern-mapper') && !real.agents.missing.includes('gsd-pattern-mapper'), JSON.stringify(real.agents));
});

s('should classify every upstream key against our command table', async () => {
  const counts = await census();
  assert.ok(counts.size > 100, `found ${counts.size} keys`);
  assert.equal(audit(counts, VERB_MAP, ourKeys()), { unclassified: [], stale: [], unknownCounterparts: [], unjudged: [] });
});

s.run();
