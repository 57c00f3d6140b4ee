// Text facts kept from one build to the next (util/text-facts.ts): a text's
// facts are computed once while it is unchanged, a stored value of the wrong
// shape is computed again, and a build with a cache reads the last build's
// facts from disk (a fresh process) and still reports what an edit changed.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compile } from '../pipeline.ts';
import { compilerFingerprint, readCacheEntry, writeCacheEntry } from '../cache/build-cache.ts';
import { formatDiagnostic } from '../diagnostics.ts';
import { isList, sameFacts, textFact, withTextFacts, type TextFactsMemo } from '../util/text-facts.ts';
import { FIXTURES, temporaryDir } from './fixture-support.ts';
import { suite, assert } from './harness.ts';

const facts = suite('text facts');

facts('should compute a text once while it stays, again when it changes, and again when the stored value has the wrong shape', () => {
  const computed: string[] = [];
  const lengths = (text: string) => textFact('lengths', text, () => (computed.push(text), [text.length]), isList<number>);
  let memo: TextFactsMemo = { previous: new Map(), next: new Map() };
  assert.equal(withTextFacts(memo, () => [lengths('a'), lengths('bb'), lengths('a')]), [[1], [2], [1]]);
  assert.equal(computed, ['a', 'bb']);
  // The next build: both found in what the last one stored, one new text computed; 'a' left out is not kept.
  memo = { previous: memo.next, next: new Map() };
  assert.equal(withTextFacts(memo, () => [lengths('bb'), lengths('ccc')]), [[2], [3]]);
  assert.equal(computed, ['a', 'bb', 'ccc']);
  assert.equal(memo.next.size, 2);
  assert.equal(sameFacts(memo), false);
  // A stored value that is not a list is not trusted.
  const forged = new Map([...memo.next].map(([key]) => [key, { not: 'a list' }]));
  memo = { previous: forged, next: new Map() };
  assert.equal(withTextFacts(memo, () => [lengths('bb')]), [[2]]);
  assert.equal(computed, ['a', 'bb', 'ccc', 'bb']);
  // Outside a build nothing is kept.
  assert.equal(lengths('bb'), [2]);
  assert.equal(computed.length, 5);
});

facts('should read the last build\'s facts from the cache in a new build, and report an edit\'s findings', async () => {
  const dir = temporaryDir('text-facts');
  const sourceDir = path.join(dir, 'source');
  const cacheDir = path.join(dir, 'cache');
  cpSync(path.join(FIXTURES, 'diagnostics/shell-literal-value/source'), sourceDir, { recursive: true });
  const findings = async () => (await compile({ sourceDir, cacheDir })).diagnostics.filter((d) => d.code === 'shell-literal-value').map((d) => formatDiagnostic(d));
  const uncached = (await compile({ sourceDir })).diagnostics.filter((d) => d.code === 'shell-literal-value').map((d) => formatDiagnostic(d));
  assert.equal(uncached.length, 12);
  assert.equal(await findings(), uncached);
  const entry = readdirSync(cacheDir).find((name) => name.startsWith('text-facts-'));
  assert.ok(entry, 'expected the text facts stored in the cache');
  const name = entry!.replace(/\.[^.]*$/, '');
  const stored = readCacheEntry<Map<string, unknown>>(cacheDir, name, compilerFingerprint());
  assert.ok(stored instanceof Map);
  const kinds = new Set([...stored!.keys()].map((key) => key.split('\u0000')[0]));
  assert.equal([...kinds].sort(), ['cli-calls', 'command-cells', 'shell-literals']);
  // A planted value shows that a new build answers from the stored facts (no module state: only the cache carries them).
  const planted = new Map([...stored!].map(([key, value]) => [key, key.startsWith('shell-literals\u0000') && Array.isArray(value) && value.length > 0 ? [{ what: 'a planted literal', text: 'PLANTED', column: 1, line: 1 }] : value]));
  writeCacheEntry(cacheDir, name, compilerFingerprint(), planted);
  const answered = await findings();
  assert.ok(answered.some((line) => line.includes('"PLANTED"')), 'expected the stored facts to be read');
  // An edit: the changed text's literals are read again, the others still come from the cache.
  const flow = path.join(sourceDir, 'gsd-core/workflows/flow.md');
  writeFileSync(flow, readFileSync(flow, 'utf8').replace('12A-billing', '<phase>-billing'));
  const edited = await findings();
  assert.equal(edited.filter((line) => line.startsWith('gsd-core/workflows/flow.md')), []);
  assert.ok(edited.some((line) => line.includes('"PLANTED"')), 'expected the unchanged text answered from the cache');
  // Without the planted entry (a clean cache), the edit's findings equal an uncached build's.
  const clean = path.join(dir, 'clean-cache');
  assert.equal((await compile({ sourceDir, cacheDir: clean })).diagnostics.map((d) => formatDiagnostic(d)), (await compile({ sourceDir })).diagnostics.map((d) => formatDiagnostic(d)));
});

facts('should keep the commands code names by text, and judge them against this build\'s commands', async () => {
  const dir = temporaryDir('code-facts');
  const sourceDir = path.join(dir, 'source');
  const cacheDir = path.join(dir, 'cache');
  cpSync(path.join(FIXTURES, 'diagnostics/ref-code-command-unknown/source'), sourceDir, { recursive: true });
  const findings = async (cache?: string) => (await compile({ sourceDir, ...(cache ? { cacheDir: cache } : {}) })).diagnostics.filter((d) => d.code === 'ref-code-command-unknown').map((d) => formatDiagnostic(d));
  const uncached = await findings();
  assert.equal(uncached.length, 3);
  assert.equal(await findings(cacheDir), uncached);
  const name = readdirSync(cacheDir).find((entry) => entry.startsWith('text-facts-'))!.replace(/\.[^.]*$/, '');
  const stored = readCacheEntry<Map<string, unknown>>(cacheDir, name, compilerFingerprint())!;
  const key = [...stored.keys()].find((entry) => entry.startsWith('code-commands\u0000'));
  assert.ok(key, 'the code file\'s mentions are kept');
  // A planted mention shows a new build answers from the store; the verdict is this build's: a command it ships passes.
  const planted = new Map(stored);
  planted.set(key!, [{ kind: 'slash', name: 'planted', found: '/gsd-planted', line: 9, column: 9 }, { kind: 'slash', name: 'verify-work', found: '/gsd-verify-work', line: 2, column: 3 }]);
  writeCacheEntry(cacheDir, name, compilerFingerprint(), planted);
  assert.equal(await findings(cacheDir), ['runtime/commands/next.ts:9:9: error ref-code-command-unknown expected a command in commands/gsd/, found "/gsd-planted"']);
  // The command the code names added to the corpus: its finding goes, with the mentions still taken from the store.
  cpSync(path.join(sourceDir, 'commands/gsd/verify-work.md'), path.join(sourceDir, 'commands/gsd/planted.md'));
  assert.equal(await findings(cacheDir), []);
});

facts.run();
