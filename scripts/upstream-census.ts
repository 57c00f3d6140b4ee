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
import map from '../compiler/data/upstream-verb-map.json' with { type: 'json' };
import table from '../source/runtime/command-table.json' with { type: 'json' };

const root = path.resolve(import.meta.dirname, '..');
export const UPSTREAM = path.join(root, 'node_modules/@opengsd/gsd-core');

export interface VerbMap {
  launchers: string[];
  metaPrefix: string;
  globalFlags: Record<string, number>;
  keys: Record<string, { ours: string[] } | { ours: null; because: 'build-time' | 'design' | 'not-built'; why: string }>;
}
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

/** What is wrong between the census, the map and our table (empty lists: nothing). */
export function audit(counts: ReadonlyMap<string, number>, m: VerbMap, ours: ReadonlySet<string>) {
  const unclassified = [...counts.keys()].filter((k) => !(k in m.keys));
  const stale = Object.keys(m.keys).filter((k) => !counts.has(k));
  const unknownCounterparts = Object.entries(m.keys).flatMap(([k, v]) => (v.ours ?? []).filter((o) => !ours.has(o)).map((o) => `${k} -> ${o}`));
  return { unclassified, stale, unknownCounterparts };
}

/** Keys and call sites per class: covered, not applicable (build-time or design), missing. */
export function tally(counts: ReadonlyMap<string, number>, m: VerbMap, ours: ReadonlySet<string>) {
  const out = { covered: { keys: 0, calls: 0 }, notApplicable: { keys: 0, calls: 0 }, missing: { keys: 0, calls: 0 }, total: { keys: 0, calls: 0 } };
  for (const [k, n] of counts) {
    const v = m.keys[k];
    const cls = v === undefined ? 'missing' : v.ours ? (v.ours.every((o) => ours.has(o)) ? 'covered' : 'missing') : v.because === 'not-built' ? 'missing' : 'notApplicable';
    out[cls].keys += 1;
    out[cls].calls += n;
    out.total.keys += 1;
    out.total.calls += n;
  }
  return out;
}

/** Upstream commands and agents beside ours, by name. */
export function surface(dir = UPSTREAM) {
  const names = (d: string, re: RegExp) => (fs.existsSync(d) ? fs.readdirSync(d).filter((f) => re.test(f)).map((f) => f.replace(/\.md$/, '')).sort() : []);
  const upC = names(path.join(dir, 'commands/gsd'), /^[^.]+\.md$/);
  const ourC = new Set(names(path.join(root, 'source/commands/gsd'), /^[^.]+\.md$/));
  const upA = names(path.join(dir, 'agents'), /^[^.]+\.md$/);
  const ourA = new Set(names(path.join(root, 'source/agents'), /^[^.]+\.md$/));
  return {
    commands: { upstream: upC.length, same: upC.filter((c) => ourC.has(c)).length, missing: upC.filter((c) => !ourC.has(c)) },
    agents: { upstream: upA.length, same: upA.filter((a) => ourA.has(a)).length, missing: upA.filter((a) => !ourA.has(a)) },
  };
}

async function main() {
  const counts = await census();
  const ours = ourKeys();
  const t = tally(counts, VERB_MAP, ours);
  const a = audit(counts, VERB_MAP, ours);
  const s = surface();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ tally: t, audit: a, surface: s, counts: Object.fromEntries(counts) }, null, 2));
    return;
  }
  const line = (name: string, x: { keys: number; calls: number }) => console.log(`${name.padEnd(16)} ${String(x.keys).padStart(4)} keys ${String(x.calls).padStart(5)} call sites`);
  console.log('upstream runtime-CLI calls (upstream prompts, our shell parser) against our command table');
  line('covered', t.covered);
  line('not applicable', t.notApplicable);
  line('missing', t.missing);
  line('total', t.total);
  console.log(`commands: ${s.commands.same}/${s.commands.upstream} upstream commands have a same-name command here; missing: ${s.commands.missing.join(', ')}`);
  console.log(`agents: ${s.agents.same}/${s.agents.upstream} upstream agents have a same-name agent here; missing: ${s.agents.missing.join(', ')}`);
  for (const [what, list] of Object.entries(a)) if (list.length) console.log(`${what}: ${list.join(', ')}`);
  if (Object.values(a).some((l) => l.length)) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
