// gsd-build budgets: bytes against ceilings, eager-load closures, per-turn listings.
import { readFile } from 'node:fs/promises';
import { formatDiagnostic, type Diagnostic } from '../diagnostics.ts';
import { allBundles, emitBundles } from '../pipeline.ts';
import { compareWithBaseline, loadBudgets } from '../check/check-budgets.ts';
import type { ScopeId } from '../targets/target-types.ts';
import { FULL_PROFILE, profileLabel } from '../compose/select-profile.ts';
import { BYTES_PER_TOKEN, checkListing, listingCost } from '../report/listing-cost.ts';
import { parse, UsageError, type Io } from './args.ts';
import { HELP } from './help.ts';
import { compileFrom, table } from './common.ts';
import { sourceOf } from './build-inputs.ts';

export async function runBudgets(args: string[], io: Io): Promise<number> {
  const values = parse(args, { baseline: { type: 'string' } });
  if (values.help) {
    io.out(HELP.budgets);
    return 0;
  }
  const compiled = await compileFrom(values, io);
  if (!compiled) return 1;
  const rows = compiled.budgetRows.map((row) => [
    row.path,
    row.tier ?? '-',
    String(row.bytes),
    row.ceiling === null ? '-' : String(row.ceiling),
    row.ceiling === null ? '-' : `${Math.round((row.bytes / row.ceiling) * 100)}%`,
    row.closureBytes === undefined ? '' : String(row.closureBytes),
    row.closureCeiling == null ? '' : String(row.closureCeiling),
  ]);
  io.out(table(['file', 'tier', 'bytes', 'ceiling', 'used', 'closure', 'closure ceiling'], rows));
  const total = compiled.budgetRows.reduce((sum, row) => sum + row.bytes, 0);
  const largest = compiled.budgetRows.filter((row) => row.closureBytes !== undefined).sort((a, b) => b.closureBytes! - a.closureBytes!)[0];
  io.out(`\n${compiled.budgetRows.length} files, ${total} bytes${largest ? `; largest eager-load closure ${largest.closureBytes} bytes (${largest.path})` : ''}`);
  // The per-turn listing, per target × scope × standalone profile, measured on the emitted bundles.
  const standalone = Object.entries(compiled.profiles?.profiles.profiles ?? { [FULL_PROFILE]: { description: '' } })
    .filter(([, definition]) => !(definition as { addon?: true }).addon)
    .map(([name]) => name);
  const listingRows: string[][] = [];
  const listingFindings: Diagnostic[] = [];
  const unbudgeted = new Set<string>();
  for (const profile of standalone) {
    const label = profileLabel([profile], compiled.profiles?.profiles ?? null);
    const { bundles } = emitBundles(compiled, allBundles(compiled.targets), [profile]);
    for (const [key, tree] of bundles) {
      const target = compiled.targets.find((candidate) => candidate.definition.id === key.split('/')[0])!;
      const cost = listingCost(tree, target.definition.scopes[key.split('/')[1] as ScopeId]!);
      const ceiling = compiled.budgets?.budgets.listing?.[label]?.[cost.shape];
      if (ceiling === undefined) unbudgeted.add(`${label} ${cost.shape}`);
      const limit = target.definition.listing;
      listingRows.push([key, label, cost.shape, String(cost.listings), String(cost.bytes), String(cost.tokens), ceiling === undefined ? '-' : String(ceiling), limit ? (limit.maxChars !== undefined ? `${cost.chars}/${limit.maxChars} chars` : `~${cost.tokens}/${limit.maxTokens} tokens`) : '-']);
      listingFindings.push(...checkListing(key, cost, label, target.definition, compiled.budgets?.budgets ?? null));
    }
  }
  io.out(`\nPer-turn listing (names and descriptions the runtime lists every turn; tokens ~ bytes / ${BYTES_PER_TOKEN}):`);
  io.out(table(['bundle', 'profile', 'shape', 'listings', 'bytes', '~tokens', 'budget', 'runtime limit'], listingRows));
  io.out(
    `\nChecked: every standalone profile (${standalone.join(', ')}) on every target × scope, against budgets.json listing.<profile>.<shape> and the target's own listing limit; addon profiles count inside the profiles that include them.${unbudgeted.size > 0 ? ` No ceiling (not checked against budgets.json): ${[...unbudgeted].sort().join(', ')}.` : ''}`,
  );
  // Bundle paths, as under dist/ after a build; the largest listing is where to shorten first.
  listingFindings.forEach((d) => io.err(formatDiagnostic(d)));
  if (listingFindings.length > 0) {
    io.err(`${listingFindings.length} error(s): a per-turn listing over its ceiling`);
    return 1;
  }
  if (values.baseline) {
    if (!compiled.budgets) throw new UsageError('--baseline needs a budgets.json in the source tree');
    const baseline = loadBudgets(values.baseline, await readFile(values.baseline, 'utf8'));
    baseline.diagnostics.forEach((d) => io.err(formatDiagnostic(d)));
    if (!baseline.loaded) return 1;
    const loosened = compareWithBaseline(baseline.loaded.budgets, compiled.budgets);
    loosened.forEach((d) => io.err(formatDiagnostic(d, sourceOf(values))));
    if (loosened.length > 0) return 1;
  }
  return 0;
}
