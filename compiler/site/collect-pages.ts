// Stage 1: the IR → one page per node, plus the index, the runtime matrix
// and the budgets. Pure: the same input gives the same pages in the same order.
import type { IrNode } from '../ir/types.ts';
import type { Page, SiteContext } from './site-types.ts';
import { compare } from './site-context.ts';
import { agentPage } from './pages/agent-page.ts';
import { budgetsPage } from './pages/budgets-page.ts';
import { capabilityPages } from './pages/capability-pages.ts';
import { commandPage } from './pages/command-page.ts';
import { documentPage } from './pages/document-page.ts';
import { indexPage } from './pages/index-page.ts';
import { runtimesPage } from './pages/runtimes-page.ts';
import { workflowPage } from './pages/workflow-page.ts';

function nodePage(context: SiteContext, node: IrNode): Page {
  switch (node.kind) {
    case 'command':
      return commandPage(context, node);
    case 'workflow':
      return workflowPage(context, node);
    case 'agent':
      return agentPage(context, node);
    default:
      return documentPage(context, node);
  }
}

export function collectPages(context: SiteContext): Page[] {
  const nodePages = [...context.byId.values()].map((node) => nodePage(context, node));
  const pages = [indexPage(context, nodePages), runtimesPage(context), budgetsPage(context), ...capabilityPages(context), ...nodePages];
  return pages.sort((a, b) => compare(a.path, b.path));
}
