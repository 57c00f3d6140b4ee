// Census of upstream's runtime-CLI calls against ours, reproducible:
//   node --import ./compiler/bin/register.mjs scripts/upstream-census.ts [--json]
// Every gsd-tools call in upstream's prompts (the files the gsd-core layout
// reads as nodes, compact variants included) is read with the build's own
// shell parser (compiler/load/cli-calls.ts) and keyed `verb` or `verb sub`
// the way upstream's CLI reads it (a leading `query` dropped, `a.b` is `a b`,
// its global flags skipped). compiler/data/upstream-verb-map.json says, per
// key, which of our command-table keys covers it, or why none does.
import fs from 'node:fs';
import path from 'node:path';
import { cliCalls, loadShellParser, type CliProgram } from '../compiler/load/cli-calls.ts';
import { classifyPath, loadLayout } from '../compiler/load/layout.ts';
import { firstPartySources } from '../compiler/load/load-capabilities.ts';
import map from '../compiler/data/upstream-verb-map.json' with { type: 'json' };
import table from '../source/runtime/command-table.json' with { type: 'json' };

const root = path.resolve(import.meta.dirname, '..');
export const UPSTREAM = path.join(root, 'node_modules/@opengsd/gsd-core');

export interface VerbMap {
  launchers: string[];
  metaPrefix: string;
  globalFlags: Record<string, number>;
  keys: Record<string, VerbEntry>;
}
/** One upstream key: our counterparts, or why there are none (not-a-call: prose the parser read as a call; not-built: a capability we lack, by feature). */
export type VerbEntry =
  | { ours: string[] }
  | { ours: null; because: 'build-time' | 'design' | 'not-a-call'; why: string }
  | { ours: null; because: 'not-built'; feature: string; why: string };
export const VERB_MAP = map as unknown as VerbMap;

/** Upstream's launchers: a word whose last path part, closing quote dropped, is one of them. */
export function upstreamProgram(m: VerbMap): CliProgram {
  const names = new Set(m.launchers);
  return { mentions: m.launchers, runs: (word) => names.has(word.replace(/["']$/, '').split('/').pop() ?? '') };
}

/** The census key of a call's words, or null when the verb is not a literal name. */
export function keyOf(words: readonly string[], m: VerbMap, subcommandVerbs: ReadonlySet<string>): string | null {
  const rest: string[] = [];
  for (let i = 0; i < words.length && rest.length < 2; i++) {
    const w = words[i]!;
    const eq = w.indexOf('=');
    const flag = eq === -1 ? w : w.slice(0, eq);
    if (flag in m.globalFlags) {
      if (eq === -1) i += m.globalFlags[flag]!;
      continue;
    }
    rest.push(w);
  }
  if (rest[0] === m.metaPrefix) {
    rest.shift();
    const i = words.indexOf(m.metaPrefix);
    const after = words.slice(i + 1).filter((w) => !(w in m.globalFlags));
    rest.splice(0, rest.length, ...after.slice(0, 2));
  }
  let [verb, sub] = rest;
  if (verb === undefined) return null;
  const dot = verb.indexOf('.');
  if (dot > 0 && dot < verb.length - 1) [verb, sub] = [verb.slice(0, dot), verb.slice(dot + 1)];
  if (!/^[a-z][a-z0-9-]*$/.test(verb)) return null;
  return subcommandVerbs.has(verb) && sub !== undefined && /^[a-z][a-z0-9-]*$/.test(sub) ? `${verb} ${sub}` : verb;
}

/** Upstream's prompt files (POSIX paths under `dir`), sorted. */
export function promptFiles(dir: string): string[] {
  const layout = loadLayout('gsd-core');
  const out: string[] = [];
  const walk = (at: string, rel: string) => {
    for (const e of fs.readdirSync(at, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) { if (e.name !== 'node_modules') walk(path.join(at, e.name), r); }
      else if (r.endsWith('.md')) {
        const c = classifyPath(layout, r);
        if (typeof c === 'object' && c.kind !== 'hook') out.push(r);
      }
    }
  };
  walk(dir, '');
  return out.sort();
}

/** Call counts per key over upstream's prompts. */
export async function census(dir = UPSTREAM, m: VerbMap = VERB_MAP): Promise<Map<string, number>> {
  await loadShellParser();
  const subVerbs = new Set(Object.keys(m.keys).filter((k) => k.includes(' ')).map((k) => k.split(' ')[0]!));
  const program = upstreamProgram(m);
  const counts = new Map<string, number>();
  for (const file of promptFiles(dir)) {
    for (const call of cliCalls(fs.readFileSync(path.join(dir, file), 'utf8'), program)) {
      const key = keyOf(call.words.map((w) => w.text), m, subVerbs);
      if (key !== null) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return new Map([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every key of our command table: `verb`, or `verb sub` for a verb with subcommands. */
export function ourKeys(t: { commands: Record<string, { subcommands?: Record<string, unknown> }> } = table as never): Set<string> {
  const keys = new Set<string>();
  for (const [verb, spec] of Object.entries(t.commands)) {
    if (spec.subcommands) for (const sub of Object.keys(spec.subcommands)) keys.add(`${verb} ${sub}`);
    else keys.add(verb);
  }
  return keys;
}

/** The placeholder a key carried before its capability was judged; no entry may keep it. */
export const UNJUDGED = /not yet judged/i;

/** What is wrong between the census, the map and our table (empty lists: nothing). */
export function audit(counts: ReadonlyMap<string, number>, m: VerbMap, ours: ReadonlySet<string>) {
  const unclassified = [...counts.keys()].filter((k) => !(k in m.keys));
  const stale = Object.keys(m.keys).filter((k) => !counts.has(k));
  const unknownCounterparts = Object.entries(m.keys).flatMap(([k, v]) => (v.ours ?? []).filter((o) => !ours.has(o)).map((o) => `${k} -> ${o}`));
  const unjudged = Object.entries(m.keys).filter(([, v]) => v.ours === null && (UNJUDGED.test(v.why) || (v.because === 'not-built' && !v.feature?.trim()))).map(([k]) => k);
  return { unclassified, stale, unknownCounterparts, unjudged };
}

/** The class of one key: covered (every counterpart in our table), not applicable (build time or design), not a call, or missing. */
export function classOf(v: VerbEntry | undefined, ours: ReadonlySet<string>): 'covered' | 'notApplicable' | 'notACall' | 'missing' {
  if (v === undefined) return 'missing';
  if (v.ours) return v.ours.every((o) => ours.has(o)) ? 'covered' : 'missing';
  return v.because === 'not-built' ? 'missing' : v.because === 'not-a-call' ? 'notACall' : 'notApplicable';
}

/** Keys and call sites per class: covered, not applicable (build-time or design), missing; total counts real calls only (prose read as a call is apart). */
export function tally(counts: ReadonlyMap<string, number>, m: VerbMap, ours: ReadonlySet<string>) {
  const out = { covered: { keys: 0, calls: 0 }, notApplicable: { keys: 0, calls: 0 }, missing: { keys: 0, calls: 0 }, total: { keys: 0, calls: 0 }, notACall: { keys: 0, calls: 0 } };
  for (const [k, n] of counts) {
    const cls = classOf(m.keys[k], ours);
    out[cls].keys += 1;
    out[cls].calls += n;
    if (cls === 'notACall') continue;
    out.total.keys += 1;
    out.total.calls += n;
  }
  return out;
}

/** Missing keys grouped by the feature they belong to, most call sites first (a key with no entry, or a counterpart not in our table, is under "unclassified"). */
export function missingByFeature(counts: ReadonlyMap<string, number>, m: VerbMap, ours: ReadonlySet<string>) {
  const groups = new Map<string, { keys: string[]; calls: number }>();
  for (const [k, n] of counts) {
    const v = m.keys[k];
    if (classOf(v, ours) !== 'missing') continue;
    const feature = v && v.ours === null && v.because === 'not-built' ? v.feature : 'unclassified';
    const g = groups.get(feature) ?? { keys: [], calls: 0 };
    g.keys.push(k);
    g.calls += n;
    groups.set(feature, g);
  }
  return [...groups].map(([feature, g]) => ({ feature, ...g })).sort((a, b) => b.calls - a.calls || (a.feature < b.feature ? -1 : a.feature > b.feature ? 1 : 0));
}

/** Commands and agents our capabilities own (the `commands` and `agents` lists of each <source>/<folder>/<id>/capability.json), by name. */
export function capabilityOwned(sourceDir: string, folder: string) {
  const out = { commands: [] as string[], agents: [] as string[] };
  for (const src of firstPartySources(sourceDir, folder)) {
    const file = path.join(src.dir, 'capability.json');
    if (!fs.existsSync(file)) continue;
    const cap = JSON.parse(fs.readFileSync(file, 'utf8')) as { commands?: string[]; agents?: string[] };
    for (const family of ['commands', 'agents'] as const) for (const f of cap[family] ?? []) out[family].push(path.posix.basename(f).replace(/\.md$/, ''));
  }
  return { commands: out.commands.sort(), agents: out.agents.sort() };
}

/** Upstream commands and agents beside ours by name: the corpus's own files and those its capabilities own (`viaCapability`). */
export function surface(dir = UPSTREAM, ourSource = path.join(root, 'source')) {
  const names = (d: string, re: RegExp) => (fs.existsSync(d) ? fs.readdirSync(d).filter((f) => re.test(f)).map((f) => f.replace(/\.md$/, '')).sort() : []);
  const owned = capabilityOwned(ourSource, loadLayout('gsd-build').capabilities ?? 'capabilities');
  const side = (up: string[], corpus: string[], viaCap: string[]) => {
    const ours = new Set([...corpus, ...viaCap]);
    return { upstream: up.length, same: up.filter((c) => ours.has(c)).length, missing: up.filter((c) => !ours.has(c)), viaCapability: up.filter((c) => viaCap.includes(c) && !corpus.includes(c)) };
  };
  return {
    commands: side(names(path.join(dir, 'commands/gsd'), /^[^.]+\.md$/), names(path.join(ourSource, 'commands/gsd'), /^[^.]+\.md$/), owned.commands),
    agents: side(names(path.join(dir, 'agents'), /^[^.]+\.md$/), names(path.join(ourSource, 'agents'), /^[^.]+\.md$/), owned.agents),
  };
}

async function main() {
  const counts = await census();
  const ours = ourKeys();
  const t = tally(counts, VERB_MAP, ours);
  const a = audit(counts, VERB_MAP, ours);
  const s = surface();
  const gaps = missingByFeature(counts, VERB_MAP, ours);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ tally: t, audit: a, surface: s, missingByFeature: gaps, counts: Object.fromEntries(counts) }, null, 2));
    return;
  }
  const line = (name: string, x: { keys: number; calls: number }) => console.log(`${name.padEnd(16)} ${String(x.keys).padStart(4)} keys ${String(x.calls).padStart(5)} call sites`);
  console.log('upstream runtime-CLI calls (upstream prompts, our shell parser) against our command table');
  line('covered', t.covered);
  line('not applicable', t.notApplicable);
  line('missing', t.missing);
  line('total', t.total);
  line('not a call', t.notACall);
  const via = (x: { viaCapability: string[] }) => (x.viaCapability.length ? ` (${x.viaCapability.join(', ')} from a capability)` : '');
  console.log(`commands: ${s.commands.same}/${s.commands.upstream} upstream commands have a same-name command here${via(s.commands)}; missing: ${s.commands.missing.join(', ')}`);
  console.log(`agents: ${s.agents.same}/${s.agents.upstream} upstream agents have a same-name agent here${via(s.agents)}; missing: ${s.agents.missing.join(', ')}`);
  console.log('missing, by feature:');
  for (const g of gaps) console.log(`  ${g.feature}: ${g.keys.length} keys, ${g.calls} call sites (${g.keys.join(', ')})`);
  for (const [what, list] of Object.entries(a)) if (list.length) console.log(`${what}: ${list.join(', ')}`);
  if (Object.values(a).some((l) => l.length)) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
