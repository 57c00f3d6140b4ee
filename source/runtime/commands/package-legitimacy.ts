// package-legitimacy check: a registry verdict (OK / SUS / SLOP) per package,
// with the signals behind it, for the researcher's audit table. The verdict is
// data: the command exits 0 whatever it finds and 2 only for a usage error.
// A failed lookup makes that package SUS with the reason; it never throws.
import path from 'node:path';
import { str } from '../cli/parse.ts';
import { usage } from '../core/errors.ts';
import type { Handler } from '../cli/handler.ts';
import { lookup } from '../supply/adapters.ts';
import { DEFAULT_TIMEOUT_MS, fixtureFetch, networkFetch, type FetchJson } from '../supply/fetch.ts';
import rulesJson from '../supply/legitimacy-rules.json' with { type: 'json' };
import { checkName, ECOSYSTEMS, type Ecosystem } from '../supply/names.ts';
import { auditTable, classify, type PackageVerdict, type PopularNames, type Rules, type Verdict } from '../supply/verdict.ts';

export const RULES = rulesJson as unknown as Rules;

/** The popular names of an ecosystem, keyed by the canonical form names are compared in. */
function popularNames(ecosystem: Ecosystem, rules: Rules): PopularNames {
  return new Map(
    rules.popular[ecosystem].map((n) => {
      const c = checkName(ecosystem, n);
      return [c.ok ? c.canonical : n, n];
    }),
  );
}

/** Where answers come from: recorded files under GSD_REGISTRY_FIXTURES, else the network. */
export function fetcherFor(env: Record<string, string | undefined>, cwd: string, rules: Rules): FetchJson {
  const fixtures = env.GSD_REGISTRY_FIXTURES;
  if (fixtures) return fixtureFetch(path.resolve(cwd, fixtures));
  const ms = Number(env.GSD_REGISTRY_TIMEOUT_MS);
  return networkFetch(Number.isInteger(ms) && ms > 0 ? ms : DEFAULT_TIMEOUT_MS, rules.maxAnswerBytes);
}

/** Check the packages of one ecosystem; names already validated. Never throws for a registry's sake. */
export async function checkPackages(
  ecosystem: Ecosystem,
  names: readonly { name: string; canonical: string }[],
  fetch: FetchJson,
  now: Date,
  rules: Rules = RULES,
): Promise<PackageVerdict[]> {
  const popular = popularNames(ecosystem, rules);
  const opts = { fetch, npmInstallScripts: rules.npmInstallScripts, pypiRepositoryKeys: rules.pypiRepositoryKeys };
  return Promise.all(names.map(async (n) => classify(ecosystem, n.name, n.canonical, await lookup(ecosystem, n.name, n.canonical, opts), rules, popular, now)));
}

/** Every name checked before any URL is built; all bad ones named in one usage error. Duplicates (same canonical form) kept once. */
export function validatedNames(ecosystem: Ecosystem, raw: readonly string[], rules: Rules = RULES): { name: string; canonical: string }[] {
  const bad: string[] = [];
  const seen = new Set<string>();
  const out: { name: string; canonical: string }[] = [];
  let expected = '';
  for (const r of raw) {
    const c = checkName(ecosystem, r);
    if (!c.ok) {
      bad.push(JSON.stringify(r));
      expected = c.expected;
    } else if (!seen.has(c.canonical)) {
      seen.add(c.canonical);
      out.push({ name: c.name, canonical: c.canonical });
    }
  }
  if (bad.length) throw usage(`package-legitimacy check: ${bad.join(', ')} ${bad.length > 1 ? 'are not valid names' : 'is not a valid name'}; expected ${expected}`);
  if (out.length > rules.maxPackages) throw usage(`package-legitimacy check: expected at most ${rules.maxPackages} packages per call, found ${out.length}`);
  return out;
}

const check: Handler = async (inv, ctx) => {
  const ecosystem = str(inv, '--ecosystem') as Ecosystem;
  if (!ECOSYSTEMS.includes(ecosystem)) throw usage(`package-legitimacy check: --ecosystem must be one of ${ECOSYSTEMS.join(', ')}`);
  const names = validatedNames(ecosystem, inv.words.packages ?? []);
  const packages = await checkPackages(ecosystem, names, fetcherFor(ctx.env, ctx.cwd, RULES), ctx.now());
  const counts: Record<Verdict, number> = { OK: 0, SUS: 0, SLOP: 0 };
  for (const p of packages) counts[p.verdict] += 1;
  return { data: { ecosystem, packages, counts }, raw: auditTable(ecosystem, packages) };
};

export const handlers: Record<string, Handler> = { 'package-legitimacy check': check };
