// Byte budgets as data: tier caps per node kind, eager-load closure caps, and
// per-file entries that may only tighten. Measuring is pure; the report and
// the checks share the same rows.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode, NodeKind } from '../ir/types.ts';
import { eagerClosure } from '../compose/eager-closure.ts';
import { readJsonFile } from '../util/json-file.ts';
import type { Locate } from '../load/yaml-position.ts';

export interface Budgets {
  tiers: Partial<Record<NodeKind, Record<string, number>>>;
  closure?: Partial<Record<NodeKind, number>>;
  files?: Record<string, { tier?: string; ceiling?: number; grace?: number; reason?: string }>;
  /** Per skill profile, the bytes of names and descriptions a runtime lists every turn (report/listing-cost.ts). */
  listing?: Record<string, Partial<Record<'flat' | 'nested', number>>>;
}

export interface LoadedBudgets {
  /** Path of budgets.json relative to the corpus root, for diagnostics. */
  file: string;
  budgets: Budgets;
  /** File position of a key path inside budgets.json. */
  locate: Locate;
}

export interface BudgetRow {
  path: string;
  kind: NodeKind;
  bytes: number;
  tier: string | null;
  /** The binding ceiling: the file's own entry, else its tier cap; null when unbudgeted. */
  ceiling: number | null;
  closureBytes?: number;
  closureCeiling?: number | null;
}

export function loadBudgets(file: string, text: string): { loaded: LoadedBudgets | null; diagnostics: Diagnostic[] } {
  const { value, locate, diagnostics } = readJsonFile<Budgets>(file, text, 'budgets-schema', 'budgets.schema.json');
  return { loaded: value ? { file, budgets: value, locate } : null, diagnostics };
}

export function measureBudgets(nodes: readonly IrNode[], budgets: Budgets | null): BudgetRow[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  return nodes
    .filter((node) => node.kind !== 'hook')
    .map((node) => {
      const entry = budgets?.files?.[node.path];
      const tiers = budgets?.tiers[node.kind];
      const tier = tiers ? entry?.tier ?? 'DEFAULT' : null;
      const tierCap = tier && tiers ? tiers[tier] ?? null : null;
      const ceiling = entry?.ceiling !== undefined ? Math.min(entry.ceiling, tierCap ?? entry.ceiling) : tierCap;
      const row: BudgetRow = { path: node.path, kind: node.kind, bytes: node.bytes, tier, ceiling };
      const closureCap = budgets?.closure?.[node.kind];
      if (node.kind === 'command' || closureCap !== undefined) {
        row.closureBytes = eagerClosure(node, byId).bytes;
        row.closureCeiling = closureCap ?? null;
      }
      return row;
    });
}

export function checkBudgets(rows: readonly BudgetRow[], loaded: LoadedBudgets | null): Diagnostic[] {
  if (!loaded) return [];
  const { budgets, file, locate } = loaded;
  const diagnostics: Diagnostic[] = [];
  const rowsByPath = new Map(rows.map((row) => [row.path, row]));
  for (const row of rows) {
    if (row.ceiling !== null && row.bytes > row.ceiling) {
      diagnostics.push(diagnostic(row.path, 1, 1, 'budget-exceeded', `expected at most ${row.ceiling} bytes (${row.kind} tier ${row.tier}${budgets.files?.[row.path]?.ceiling !== undefined ? ', file ceiling' : ''}), found ${row.bytes}`));
    }
    if (row.closureCeiling != null && row.closureBytes !== undefined && row.closureBytes > row.closureCeiling) {
      diagnostics.push(diagnostic(row.path, 1, 1, 'budget-exceeded', `expected an eager-load closure of at most ${row.closureCeiling} bytes, found ${row.closureBytes}`));
    }
  }
  for (const [path, entry] of Object.entries(budgets.files ?? {})) {
    const row = rowsByPath.get(path);
    const at = (key: string) => locate(['files', path, key]);
    if (!row) {
      const { line, column } = locate(['files', path], true);
      diagnostics.push(diagnostic(file, line, column, 'budgets-schema', `expected "files" keys to name corpus files, found "${path}"`));
      continue;
    }
    const tiers = budgets.tiers[row.kind];
    if (entry.tier !== undefined && tiers?.[entry.tier] === undefined) {
      const { line, column } = at('tier');
      diagnostics.push(diagnostic(file, line, column, 'budgets-schema', `expected a ${row.kind} tier (${Object.keys(tiers ?? {}).join(', ') || 'none defined'}), found "${entry.tier}"`));
      continue;
    }
    const tierCap = tiers?.[entry.tier ?? 'DEFAULT'];
    if (entry.ceiling !== undefined && tierCap !== undefined && entry.ceiling > tierCap) {
      const { line, column } = at('ceiling');
      diagnostics.push(diagnostic(file, line, column, 'budget-loosened', `expected a file ceiling at or below its tier cap ${tierCap}, found ${entry.ceiling}`));
    }
    if (entry.grace !== undefined && entry.ceiling !== undefined && entry.ceiling - row.bytes > entry.grace) {
      const { line, column } = at('ceiling');
      diagnostics.push(diagnostic(file, line, column, 'budget-slack', `expected a ceiling within ${entry.grace} bytes of the file's ${row.bytes} bytes, found ${entry.ceiling}: lower it`));
    }
  }
  return diagnostics;
}

/** Tighten-only: every cap and ceiling of `current` is at or below the same one in `baseline`. */
export function compareWithBaseline(baseline: Budgets, current: LoadedBudgets): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report = (path: (string | number)[], was: number, now: number | string, what: string) => {
    const { line, column } = current.locate(path);
    diagnostics.push(diagnostic(current.file, line, column, 'budget-loosened', `expected ${what} at or below the baseline ${was}, found ${now}`));
  };
  for (const [kind, tiers] of Object.entries(current.budgets.tiers)) {
    for (const [tier, cap] of Object.entries(tiers ?? {})) {
      const was = baseline.tiers[kind as NodeKind]?.[tier];
      if (was !== undefined && cap > was) report(['tiers', kind, tier], was, cap, `the ${kind} ${tier} cap`);
    }
  }
  for (const [kind, cap] of Object.entries(current.budgets.closure ?? {})) {
    const was = baseline.closure?.[kind as NodeKind];
    if (was !== undefined && cap !== undefined && cap > was) report(['closure', kind], was, cap, `the ${kind} closure cap`);
  }
  for (const [path, entry] of Object.entries(current.budgets.files ?? {})) {
    const was = baseline.files?.[path]?.ceiling;
    if (was !== undefined && entry.ceiling !== undefined && entry.ceiling > was) report(['files', path, 'ceiling'], was, entry.ceiling, `the ceiling of ${path}`);
    if (was !== undefined && entry.ceiling === undefined) report(['files', path], was, 'none', `a ceiling for ${path}`);
    // Moving a file to a bigger tier loosens it as much as raising its ceiling.
    const kind = Object.entries(current.budgets.tiers).find(([, tiers]) => entry.tier !== undefined && tiers?.[entry.tier] !== undefined)?.[0] as NodeKind | undefined;
    const oldTier = baseline.files?.[path]?.tier ?? 'DEFAULT';
    const newCap = kind ? current.budgets.tiers[kind]?.[entry.tier ?? 'DEFAULT'] : undefined;
    const oldCap = kind ? baseline.tiers[kind]?.[oldTier] : undefined;
    if (newCap !== undefined && oldCap !== undefined && newCap > oldCap) report(['files', path, 'tier'], oldCap, newCap, `the tier cap of ${path} (${oldTier} → ${entry.tier})`);
  }
  for (const [path, entry] of Object.entries(baseline.files ?? {})) {
    if (entry.ceiling !== undefined && current.budgets.files?.[path] === undefined) report(['files'], entry.ceiling, 'none', `a ceiling for ${path}`);
  }
  return diagnostics;
}
