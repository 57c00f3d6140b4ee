// The build cache's map of byte entries (cache/build-cache.ts readBytesMap,
// writeBytesMap): a few changed entries are written as a delta beside the
// base, many as a new base; a delta read with another base, or one that does
// not read, is ignored; what is read back is always what was last written.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readBytesMap, writeBytesMap } from '../cache/build-cache.ts';
import { temporaryDir } from './fixture-support.ts';
import { suite, assert } from './harness.ts';

const bytes = suite('cache bytes map');
const entry = (text: string) => new TextEncoder().encode(text.repeat(100));
const KEY = 'salt';

function entries(count: number, tag: string): Map<string, Uint8Array> {
  return new Map(Array.from({ length: count }, (_, index) => [`k${index}`, entry(`${tag}${index}`)]));
}
const asText = (map: ReadonlyMap<string, Uint8Array>) => [...map].map(([key, value]) => [key, new TextDecoder().decode(value)]).sort(([a], [b]) => (a! < b! ? -1 : 1));

bytes('should write a few changes as a delta, many as a new base, and read back what was written', () => {
  const dir = temporaryDir('bytes-map');
  const files = () => readdirSync(dir).sort();
  const baseFile = path.join(dir, 'nodes-x.v8');
  // Nothing stored: an empty map, then a base.
  const empty = readBytesMap(dir, 'nodes-x', KEY);
  assert.equal(empty.size, 0);
  const first = entries(40, 'a');
  writeBytesMap(dir, 'nodes-x', KEY, empty, first);
  assert.equal(files(), ['nodes-x.v8']);
  const read1 = readBytesMap(dir, 'nodes-x', KEY);
  assert.equal(asText(read1), asText(first));
  // The same map again: nothing written.
  const stamp = statSync(baseFile).mtimeMs;
  writeBytesMap(dir, 'nodes-x', KEY, read1, new Map(read1));
  assert.equal(files(), ['nodes-x.v8']);
  // Two entries changed, one dropped: a delta; the base stays as it was.
  const second = new Map(read1);
  second.set('k1', entry('b1'));
  second.set('new', entry('b-new'));
  second.delete('k2');
  writeBytesMap(dir, 'nodes-x', KEY, read1, second);
  assert.equal(files(), ['nodes-x-delta.v8', 'nodes-x.v8']);
  assert.equal(statSync(baseFile).mtimeMs, stamp);
  const read2 = readBytesMap(dir, 'nodes-x', KEY);
  // The dropped entry may still be found (any value under a key is one for it); every written one is.
  for (const [key, value] of second) assert.equal(new TextDecoder().decode(read2.get(key)!), new TextDecoder().decode(value));
  // One more change: the delta holds both builds' changes.
  const third = new Map([...second].filter(([key]) => read2.has(key)));
  third.set('k3', entry('c3'));
  writeBytesMap(dir, 'nodes-x', KEY, read2, third);
  const read3 = readBytesMap(dir, 'nodes-x', KEY);
  for (const [key, value] of third) assert.equal(new TextDecoder().decode(read3.get(key)!), new TextDecoder().decode(value));
  // Most entries changed: a new base, the delta removed, only the new entries read.
  const fourth = entries(40, 'd');
  writeBytesMap(dir, 'nodes-x', KEY, read3, fourth);
  assert.equal(files(), ['nodes-x.v8']);
  assert.equal(asText(readBytesMap(dir, 'nodes-x', KEY)), asText(fourth));
  // Another key reads nothing.
  assert.equal(readBytesMap(dir, 'nodes-x', 'other').size, 0);
});

bytes('should ignore a delta written against another base, and one that does not read', () => {
  const dir = temporaryDir('bytes-map-stale');
  const empty = readBytesMap(dir, 'nodes-y', KEY);
  writeBytesMap(dir, 'nodes-y', KEY, empty, entries(40, 'a'));
  const read1 = readBytesMap(dir, 'nodes-y', KEY);
  const changed = new Map(read1).set('extra', entry('x'));
  writeBytesMap(dir, 'nodes-y', KEY, read1, changed);
  const deltaFile = path.join(dir, 'nodes-y-delta.v8');
  assert.ok(readdirSync(dir).includes('nodes-y-delta.v8'));
  const saved = readFileSync(deltaFile);
  // A new base (most entries changed), then the old delta put back: it names the old base and is not read.
  writeBytesMap(dir, 'nodes-y', KEY, readBytesMap(dir, 'nodes-y', KEY), entries(40, 'b'));
  writeFileSync(deltaFile, saved);
  assert.equal(readBytesMap(dir, 'nodes-y', KEY).has('extra'), false);
  // A delta that does not read: the base alone.
  writeFileSync(deltaFile, 'not a cache entry');
  assert.equal(asText(readBytesMap(dir, 'nodes-y', KEY)), asText(entries(40, 'b')));
});

bytes.run();
