// Research providers and the research cache, through the bundled CLI: hits
// and per-source time-to-live, hostile and corrupt entries read as misses and
// pruned, the size caps, concurrent puts, the provider order from config.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import AjvModule from 'ajv';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { cliPath, codeCacheHome, FIXED_NOW, project, run } from './helpers.ts';
import { CACHE_LIMITS, entryHash, PROVIDERS } from '../commands/research.ts';
import data from '../research/providers.json' with { type: 'json' };
import providersSchema from '../research/providers.schema.json' with { type: 'json' };
import configSchema from '../../../schemas/config.schema.json' with { type: 'json' };

type AjvCtor = new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;

const s = suite('runtime research cache');
const CACHE = '.planning/research/.cache';
const hoursAfter = (h: number) => new Date(Date.parse(FIXED_NOW) + h * 3_600_000).toISOString();
const sha = (t: string) => crypto.createHash('sha256').update(t).digest('hex');

/** A well-formed entry file, as put writes it, for planting. */
function plant(root: string, source: string, key: string, body: string, stored = FIXED_NOW, tweak: Record<string, unknown> = {}): string {
  const hash = entryHash(source, key);
  const file = path.join(root, CACHE, `${hash}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ v: 1, hash, source, key, stored, sha256: sha(body), body, ...tweak })}\n`);
  return file;
}

s('should validate providers.json against its schema, and the config enum lists exactly its ids', () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(providersSchema);
  assert.ok(validate(data), JSON.stringify(validate.errors));
  const ids = PROVIDERS.map((p) => p.id);
  assert.is(new Set(ids).size, ids.length, 'no id twice');
  assert.ok(ids.includes(data.fallback), 'the fallback is a provider');
  const prop = (configSchema as any).properties.integrations.properties.research_providers;
  assert.equal(prop.items.enum, ids);
  assert.ok(prop.default.every((id: string) => ids.includes(id)));
});

s('should store a lookup and give it back while its source lives, then miss once it expired', async () => {
  const root = project({});
  let r = await run(['research-cache', 'put', 'context7', 'react', '  useEffect\tcleanup', '--body', 'Return a function from the effect.'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  const hash = entryHash('context7', 'react useEffect cleanup');
  assert.is(r.json.hash, hash, 'the key is the query with white space made single spaces');
  assert.is(r.json.file, `${CACHE}/${hash}.json`);
  assert.is(r.json.expires, hoursAfter(168));
  r = await run(['research-cache', 'get', 'context7', 'react useEffect cleanup', '--raw'], { cwd: root });
  assert.is(r.stdout, 'Return a function from the effect.');
  r = await run(['research-cache', 'get', 'context7', 'react useEffect cleanup'], { cwd: root, env: { GSD_NOW: hoursAfter(167) } });
  assert.is(r.json.hit, true);
  r = await run(['research-cache', 'get', 'context7', 'react useEffect cleanup'], { cwd: root, env: { GSD_NOW: hoursAfter(168) } });
  assert.equal([r.code, r.json.hit, r.json.reason], [0, false, 'expired']);
  r = await run(['research-cache', 'get', 'web-search', 'react useEffect cleanup'], { cwd: root });
  assert.equal([r.json.hit, r.json.reason], [false, 'miss'], 'another source is another entry');

  // Per-source time-to-live comes from providers.json: a web search answer lasts 24 hours.
  await run(['research-cache', 'put', 'web-search', 'vite 6 release notes', '--body', 'notes'], { cwd: root });
  r = await run(['research-cache', 'get', 'web-search', 'vite 6 release notes'], { cwd: root, env: { GSD_NOW: hoursAfter(25) } });
  assert.is(r.json.reason, 'expired');
  r = await run(['research-cache', 'prune'], { cwd: root, env: { GSD_NOW: hoursAfter(25) } });
  assert.equal([r.json.pruned, r.json.kept], [1, 1], 'prune removes only the expired entry');
  assert.equal(r.json.removed.map((x: { why: string }) => x.why), ['expired']);
});

s('should ignore tampered, planted, linked and future entries, and prune them but nothing else', async () => {
  const root = project({});
  const tampered = plant(root, 'context7', 'zod v4', 'real text');
  fs.writeFileSync(tampered, fs.readFileSync(tampered, 'utf8').replace('real text', 'injected'));
  // A valid entry for one lookup, renamed to answer another.
  const other = plant(root, 'context7', 'express 5', 'express text');
  fs.renameSync(other, path.join(root, CACHE, `${entryHash('context7', 'fastify 5')}.json`));
  plant(root, 'web-fetch', 'https://example.test/a', 'from the future', hoursAfter(100));
  plant(root, 'exa', 'extra field', 'x', FIXED_NOW, { trust: true });
  fs.writeFileSync(path.join(root, CACHE, `${entryHash('brave', 'not json')}.json`), '{"v":1,');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'outside the cache');
  fs.symlinkSync(path.join(root, 'secret.txt'), path.join(root, CACHE, `${entryHash('jina', 'linked')}.json`));
  fs.writeFileSync(path.join(root, CACHE, 'README.md'), 'not an entry name');

  const get = async (source: string, key: string) => (await run(['research-cache', 'get', source, key], { cwd: root })).json;
  assert.equal(await get('context7', 'zod v4'), { hit: false, reason: 'ignored: body does not match its digest', source: 'context7', key: 'zod v4', hash: entryHash('context7', 'zod v4') });
  assert.is((await get('context7', 'fastify 5')).reason, 'ignored: hash does not match its source and key');
  assert.is((await get('web-fetch', 'https://example.test/a')).reason, 'ignored: stored time is not a past UTC time');
  assert.match((await get('exa', 'extra field')).reason, /^ignored: not an entry \(shape\)$/);
  assert.match((await get('brave', 'not json')).reason, /^ignored: not an entry \(syntax\)$/);
  assert.is((await get('jina', 'linked')).reason, 'ignored: not a regular file');

  const r = await run(['research-cache', 'prune'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.pruned, 6);
  assert.equal(fs.readdirSync(path.join(root, CACHE)).filter((n) => n !== '.lock').sort(), ['README.md'], 'only files with an entry name are touched');
  assert.is(fs.readFileSync(path.join(root, 'secret.txt'), 'utf8'), 'outside the cache', 'a linked entry is unlinked, its target kept');
});

s('should refuse an oversized body, an unknown source, an empty key and a linked cache folder, writing nothing', async () => {
  const root = project({});
  let r = await run(['research-cache', 'put', 'context7', 'big', '--body', 'x'.repeat(CACHE_LIMITS.max_entry_bytes + 1)], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, new RegExp(`a cache entry holds at most ${CACHE_LIMITS.max_entry_bytes}`));
  r = await run(['research-cache', 'put', 'google', 'q', '--body', 'b'], { cwd: root });
  assert.is(r.code, 2);
  assert.match(r.stderr, /source "google" must be one of: context7, /);
  r = await run(['research-cache', 'get', 'context7', '   '], { cwd: root });
  assert.is(r.code, 2);
  assert.not.ok(fs.existsSync(path.join(root, CACHE)), 'nothing written');
  const elsewhere = project({});
  fs.mkdirSync(path.join(root, '.planning/research'), { recursive: true });
  fs.symlinkSync(path.join(elsewhere, '.planning'), path.join(root, CACHE));
  r = await run(['research-cache', 'put', 'context7', 'q', '--body', 'b'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /\.planning\/research\/\.cache is not a plain directory/);
  assert.equal(fs.readdirSync(path.join(elsewhere, '.planning')), []);
});

s('should evict the oldest entries when a put passes the total size cap', async () => {
  const root = project({});
  const body = 'y'.repeat(CACHE_LIMITS.max_entry_bytes - 1024);
  const count = Math.ceil(CACHE_LIMITS.max_total_bytes / body.length);
  for (let i = 0; i < count; i++) plant(root, 'context7', `lib ${i}`, body, new Date(Date.parse(FIXED_NOW) - (count - i) * 60_000).toISOString());
  const r = await run(['research-cache', 'put', 'context7', 'newest', '--body', body], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.ok(r.json.evicted >= 1, `evicted ${r.json.evicted}`);
  const left = fs.readdirSync(path.join(root, CACHE)).filter((n) => n.endsWith('.json'));
  const total = left.reduce((n, f) => n + fs.statSync(path.join(root, CACHE, f)).size, 0);
  assert.ok(total <= CACHE_LIMITS.max_total_bytes, `${total} bytes left`);
  assert.ok(left.includes(`${entryHash('context7', 'newest')}.json`), 'the new entry stays');
  assert.not.ok(left.includes(`${entryHash('context7', 'lib 0')}.json`), 'the oldest went first');
  assert.ok(left.includes(`${entryHash('context7', `lib ${count - 1}`)}.json`), 'the youngest old one stays');
});

s('should keep every one of many concurrent puts, whole', async () => {
  const root = project({});
  const cli = await cliPath();
  const env = { PATH: process.env.PATH ?? '', HOME: root, XDG_CACHE_HOME: codeCacheHome(), GSD_NOW: FIXED_NOW };
  const put = (key: string, body: string) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [cli, 'research-cache', 'put', 'web-search', key, '--body', body], { cwd: root, env, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', (code) => resolve(code ?? -1));
    });
  const jobs = Array.from({ length: 8 }, (_, i) => put(`query ${i}`, `answer ${i} `.repeat(2000)));
  jobs.push(put('same', 'first writer'), put('same', 'second writer'));
  assert.equal(await Promise.all(jobs), Array(10).fill(0));
  for (let i = 0; i < 8; i++) {
    const r = await run(['research-cache', 'get', 'web-search', `query ${i}`, '--raw'], { cwd: root });
    assert.is(r.stdout, `answer ${i} `.repeat(2000));
  }
  const same = await run(['research-cache', 'get', 'web-search', 'same', '--raw'], { cwd: root });
  assert.ok(['first writer', 'second writer'].includes(same.stdout), same.stdout);
  assert.equal(fs.readdirSync(path.join(root, CACHE)).filter((n) => !/^[0-9a-f]{64}\.json$/.test(n)), [], 'no temp file or lock left');
});

s('should list providers in the configured order with web search last, and refuse unknown ones in config', async () => {
  const root = project({});
  let r = await run(['research-cache', 'providers', '--raw'], { cwd: root });
  assert.is(r.stdout, 'context7\nweb-search\nweb-fetch', 'the default');
  r = await run(['config-set', 'integrations.research_providers', '["exa","firecrawl"]'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  r = await run(['research-cache', 'providers'], { cwd: root });
  assert.equal(r.json.providers.map((p: { id: string }) => p.id), ['exa', 'firecrawl', 'web-search']);
  assert.equal(r.json.providers[0].tools, ['mcp__exa__*']);
  r = await run(['research-cache', 'providers', '--all'], { cwd: root });
  assert.equal(r.json.providers.length, PROVIDERS.length, 'every provider once');
  assert.equal(r.json.providers.filter((p: { configured: boolean }) => p.configured).map((p: { id: string }) => p.id), ['exa', 'firecrawl', 'web-search']);
  r = await run(['config-set', 'integrations.research_providers', '["exa","made-up"]'], { cwd: root });
  assert.not.equal(r.code, 0, 'an id outside providers.json is refused');
  r = await run(['research-cache', 'providers', '--raw'], { cwd: root });
  assert.is(r.stdout, 'exa\nfirecrawl\nweb-search', 'and the old list stays');
});

s('should give every researcher the tools of every provider (Claude names; targets map them)', () => {
  const claudeTools = PROVIDERS.flatMap((p) => p.tools).filter((t) => t.startsWith('mcp__') || /^Web[A-Z]/.test(t));
  for (const agent of ['gsd-phase-researcher', 'gsd-project-researcher', 'gsd-ui-researcher', 'gsd-advisor-researcher']) {
    const text = fs.readFileSync(path.join(import.meta.dirname, '../../agents', `${agent}.md`), 'utf8');
    const tools = /^tools:\s*(.*)$/m.exec(text)![1]!.split(',').map((x) => x.trim());
    assert.equal(claudeTools.filter((t) => !tools.includes(t)), [], agent);
    assert.match(text, /references\/research-providers\.md/, `${agent} follows the providers reference`);
  }
});

s.run();
