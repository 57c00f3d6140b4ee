// Research providers and the research cache. Providers (research/providers.json)
// are the documentation, search and fetch tools a researcher may use, in the
// order the project's config prefers them, ending with plain web search. The
// cache keeps what a lookup returned under .planning/research/.cache/, one JSON
// file per (source, key), named by the SHA-256 of both: a later researcher asks
// for the same lookup and gets the stored text while the source's time-to-live
// (from our data, never from the entry) has not run out. An entry is used only
// when every field checks out (its name, its hash, its body's digest, its
// time); anything else reads as a miss and prune removes it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bool, str } from '../cli/parse.ts';
import type { Handler } from '../cli/handler.ts';
import { loadConfig } from '../config/config.ts';
import type { Ctx } from '../core/context.ts';
import { refused, usage } from '../core/errors.ts';
import { safeUnlink, TEMP_PATTERN, writeAtomic } from '../core/fs.ts';
import { decodeJson } from '../core/json.ts';
import { withLock } from '../core/lock.ts';
import data from '../research/providers.json' with { type: 'json' };

export interface Provider {
  id: string;
  kind: 'docs' | 'search' | 'fetch';
  summary: string;
  tools: string[];
  ttl_hours: number;
}

export const PROVIDERS = data.providers as Provider[];
export const FALLBACK = data.fallback;
export const CACHE_LIMITS = data.cache;

const byId = new Map(PROVIDERS.map((p) => [p.id, p]));
const HOUR = 3_600_000;
/** An entry file's name: 64 lowercase hex digits and .json, nothing else is ever read. */
const ENTRY_NAME = /^[0-9a-f]{64}\.json$/;
/** JSON escaping can grow a body about sixfold; a larger file is not one of ours. */
const MAX_FILE_BYTES = CACHE_LIMITS.max_entry_bytes * 6 + 4096;

function sourceArg(text: string): Provider {
  const p = byId.get(text);
  if (!p) throw usage(`source "${text}" must be one of: ${PROVIDERS.map((x) => x.id).join(', ')}`);
  return p;
}

/** The lookup as the cache keys it: the query or URL with runs of white space made one space. */
function keyArg(text: string): string {
  const key = text.trim().replace(/\s+/g, ' ');
  if (!key) throw usage('the key is empty: give the query or URL that was looked up');
  if (key.length > CACHE_LIMITS.max_key_chars) throw usage(`the key is ${key.length} characters; at most ${CACHE_LIMITS.max_key_chars}`);
  return key;
}

export const entryHash = (source: string, key: string) => crypto.createHash('sha256').update(`gsd-research-cache/1\0${source}\0${key}`).digest('hex');
const digest = (body: string) => crypto.createHash('sha256').update(body).digest('hex');

/** The configured providers in order, the fallback last; unknown ids were refused by the config schema. */
function configuredProviders(ctx: Ctx): Provider[] {
  const integrations = loadConfig(ctx, { optionalProject: true }).resolved.integrations;
  const wanted = integrations && typeof integrations === 'object' && !Array.isArray(integrations) ? integrations.research_providers : undefined;
  const ids = Array.isArray(wanted) ? wanted.filter((x): x is string => typeof x === 'string' && byId.has(x)) : [];
  const order = [...new Set([...ids, FALLBACK])];
  return order.map((id) => byId.get(id)!);
}

function cacheDir(ctx: Ctx): string {
  const dir = ctx.planningPath('research', '.cache');
  // A cache folder that is a link could point anywhere: fail closed.
  for (const p of [path.dirname(dir), dir]) {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (!st.isDirectory()) throw refused(`${ctx.rel(p)} is not a plain directory; the research cache uses no other`);
  }
  return dir;
}

interface Entry {
  v: 1;
  hash: string;
  source: string;
  key: string;
  stored: string;
  sha256: string;
  body: string;
}

const FIELDS = ['v', 'hash', 'source', 'key', 'stored', 'sha256', 'body'];

/** Why the parsed value is not an entry, or null. */
function entryShape(value: unknown): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'an object';
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length !== FIELDS.length || !FIELDS.every((f) => keys.includes(f))) return `exactly the fields ${FIELDS.join(', ')}`;
  if (o.v !== 1) return 'v 1';
  for (const f of FIELDS.slice(1)) if (typeof o[f] !== 'string') return `${f} as a string`;
  return null;
}

type Read = { ok: true; entry: Entry; storedMs: number; bytes: number } | { ok: false; reason: string; bytes: number };

/** One entry file, checked from our own facts: its name, the hash of its source and key, the body's digest, a time not in the future. */
function readEntry(file: string, nowMs: number): Read {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return { ok: false, reason: 'missing', bytes: 0 };
  }
  if (!st.isFile()) return { ok: false, reason: 'not a regular file', bytes: 0 };
  if (st.size > MAX_FILE_BYTES) return { ok: false, reason: 'too large', bytes: st.size };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { ok: false, reason: 'unreadable', bytes: st.size };
  }
  const decoded = decodeJson<Entry>(text, entryShape, MAX_FILE_BYTES);
  if (decoded.problem) return { ok: false, reason: `not an entry (${decoded.problem.kind})`, bytes: st.size };
  const e = decoded.value;
  if (!byId.has(e.source)) return { ok: false, reason: `unknown source "${e.source.slice(0, 40)}"`, bytes: st.size };
  if (e.hash !== path.basename(file, '.json') || entryHash(e.source, e.key) !== e.hash) return { ok: false, reason: 'hash does not match its source and key', bytes: st.size };
  if (Buffer.byteLength(e.body, 'utf8') > CACHE_LIMITS.max_entry_bytes) return { ok: false, reason: 'body too large', bytes: st.size };
  if (digest(e.body) !== e.sha256) return { ok: false, reason: 'body does not match its digest', bytes: st.size };
  const storedMs = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/.test(e.stored) ? Date.parse(e.stored) : NaN;
  if (!Number.isFinite(storedMs) || storedMs > nowMs + 60_000) return { ok: false, reason: 'stored time is not a past UTC time', bytes: st.size };
  return { ok: true, entry: e, storedMs, bytes: st.size };
}

const expiresMs = (e: Entry, storedMs: number) => storedMs + byId.get(e.source)!.ttl_hours * HOUR;

/** Entry files in the cache folder, by name. */
function entryNames(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => ENTRY_NAME.test(n)).sort();
}

const lockFile = (dir: string) => path.join(dir, '.lock');

/** Remove expired and broken entries, then the oldest until the rest fit the size cap. Call holding the cache lock. */
function sweep(dir: string, nowMs: number, keep: string | null) {
  const removed: { hash: string; why: string }[] = [];
  const live: { name: string; storedMs: number; bytes: number }[] = [];
  for (const name of entryNames(dir)) {
    const file = path.join(dir, name);
    const r = readEntry(file, nowMs);
    const why = !r.ok ? r.reason : nowMs >= expiresMs(r.entry, r.storedMs) ? 'expired' : null;
    if (why) {
      safeUnlink(file);
      removed.push({ hash: name.slice(0, 64), why });
    } else live.push({ name, storedMs: (r as { storedMs: number }).storedMs, bytes: r.bytes });
  }
  // Temp files of writers that died (a live writer's rename makes its temp vanish first).
  try {
    for (const n of fs.readdirSync(dir)) if (TEMP_PATTERN.test(n) && nowMs - fs.lstatSync(path.join(dir, n)).mtimeMs > HOUR) safeUnlink(path.join(dir, n));
  } catch {
    // no folder yet
  }
  live.sort((a, b) => a.storedMs - b.storedMs || a.name.localeCompare(b.name));
  let total = live.reduce((n, e) => n + e.bytes, 0);
  for (const e of live.slice()) {
    if (total <= CACHE_LIMITS.max_total_bytes) break;
    if (e.name === keep) continue;
    safeUnlink(path.join(dir, e.name));
    removed.push({ hash: e.name.slice(0, 64), why: 'over the size cap' });
    live.splice(live.indexOf(e), 1);
    total -= e.bytes;
  }
  return { removed, kept: live.length, bytes: total };
}

const researchProviders: Handler = (inv, ctx) => {
  const providers = configuredProviders(ctx);
  const listed = bool(inv, '--all') ? [...providers, ...PROVIDERS.filter((p) => !providers.includes(p))] : providers;
  return {
    data: { providers: listed.map((p) => ({ ...p, configured: providers.includes(p) })), fallback: FALLBACK },
    raw: listed.map((p) => p.id).join('\n'),
  };
};

const cacheGet: Handler = (inv, ctx) => {
  const source = sourceArg(inv.args.source!);
  const key = keyArg(inv.args.key!);
  const hash = entryHash(source.id, key);
  const nowMs = ctx.now().getTime();
  const miss = (reason: string) => ({ data: { hit: false, reason, source: source.id, key, hash }, raw: '' });
  const r = readEntry(path.join(cacheDir(ctx), `${hash}.json`), nowMs);
  if (!r.ok) return miss(r.reason === 'missing' ? 'miss' : `ignored: ${r.reason}`);
  // The hash covers source and key, but a colliding or planted entry must still say what was asked.
  if (r.entry.source !== source.id || r.entry.key !== key) return miss('ignored: entry is for another lookup');
  const expires = expiresMs(r.entry, r.storedMs);
  if (nowMs >= expires) return miss('expired');
  return {
    data: { hit: true, source: source.id, key, hash, stored: r.entry.stored, expires: new Date(expires).toISOString(), body: r.entry.body },
    raw: r.entry.body,
  };
};

const cachePut: Handler = (inv, ctx) => {
  const source = sourceArg(inv.args.source!);
  const key = keyArg(inv.args.key!);
  const body = str(inv, '--body')!;
  if (!body.trim()) throw usage('--body is empty: store what the lookup returned');
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > CACHE_LIMITS.max_entry_bytes) throw refused(`--body is ${bytes} bytes; a cache entry holds at most ${CACHE_LIMITS.max_entry_bytes}: store the extract that matters`);
  const dir = cacheDir(ctx);
  const hash = entryHash(source.id, key);
  const now = ctx.now();
  const entry: Entry = { v: 1, hash, source: source.id, key, stored: now.toISOString(), sha256: digest(body), body };
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${hash}.json`);
  // The lock orders puts with the sweep; each file still lands by rename, whole or not at all.
  const swept = withLock(lockFile(dir), () => {
    writeAtomic(file, `${JSON.stringify(entry)}\n`);
    return sweep(dir, now.getTime(), `${hash}.json`);
  });
  return {
    data: { stored: true, source: source.id, key, hash, expires: new Date(now.getTime() + source.ttl_hours * HOUR).toISOString(), file: ctx.rel(file), evicted: swept.removed.length },
    raw: hash,
  };
};

const cachePrune: Handler = (_inv, ctx) => {
  const dir = cacheDir(ctx);
  const nowMs = ctx.now().getTime();
  const result = fs.existsSync(dir) ? withLock(lockFile(dir), () => sweep(dir, nowMs, null)) : { removed: [], kept: 0, bytes: 0 };
  return { data: { pruned: result.removed.length, removed: result.removed, kept: result.kept, bytes: result.bytes, max_bytes: CACHE_LIMITS.max_total_bytes }, raw: String(result.removed.length) };
};

export const handlers: Record<string, Handler> = {
  'research-cache providers': researchProviders,
  'research-cache get': cacheGet,
  'research-cache put': cachePut,
  'research-cache prune': cachePrune,
};
