// What the site is built from (all of it already computed by compile()) and
// what a page is before it is rendered.
import type { RootContent } from 'mdast';
import type { BudgetRow } from '../check/check-budgets.ts';
import type { CorpusIr, Edge, IrNode } from '../ir/types.ts';
import type { HookEntry } from '../load/load-hooks.ts';
import type { Target } from '../targets/target-types.ts';

export interface SiteInput {
  ir: CorpusIr;
  targets: readonly Target[];
  budgetRows: readonly BudgetRow[];
  hooks: readonly HookEntry[];
  version: string;
  /** The corpus's runtime/model-profiles.json as parsed, or null when it has none. */
  modelProfiles: unknown;
  /** Target id → the real program that loads its bundles (scripts/runtimes/validated.json); absent ids are checked by goldens only. */
  validatedBy: Readonly<Record<string, string>>;
}

export interface Page {
  /** Site-relative POSIX path, e.g. `commands/plan-phase.html`. */
  path: string;
  title: string;
  /** What the page is about, shown next to the title and in search results. */
  kind: string;
  /** The IR node the page documents. */
  nodeId?: string;
  /** Plain-text description for the search index. */
  summary: string;
  content: RootContent[];
}

export interface IncomingEdge {
  from: IrNode;
  edge: Edge;
}

/** The IR indexed for page building: nodes by id, each node's page, edges reversed. */
export interface SiteContext {
  input: SiteInput;
  byId: ReadonlyMap<string, IrNode>;
  byPath: ReadonlyMap<string, IrNode>;
  pageOf: ReadonlyMap<string, string>;
  incoming: ReadonlyMap<string, readonly IncomingEdge[]>;
}
