// Which tools an agent gets in each runtime, worked out the way emit writes
// them: the target's agent surface, its frontmatter rules and its tool maps
// (mapTools is the function emit uses).
import type { IrNode } from '../ir/types.ts';
import type { AgentSurface, ScopeId, Target, TargetDefinition } from '../targets/target-types.ts';
import { SCOPE_IDS } from '../targets/target-types.ts';
import { mapTools } from '../emit/render-frontmatter.ts';
import { listItems } from '../util/list-items.ts';

export interface RuntimeTools {
  runtime: string;
  /** The scopes this row holds for (scopes that agree share a row). */
  scopes: ScopeId[];
  /** The tool names the agent file lists; null when the file lists none. */
  tools: string[] | null;
  /** How the runtime gets them. */
  how: string;
}

/** The agent's tools as its source lists them (`tools:` as a list or a comma-separated string). */
export function sourceTools(agent: IrNode): string[] {
  return listItems(agent.frontmatter?.data?.['tools'] ?? agent.frontmatter?.data?.['allowed-tools']);
}

export function toolsPerRuntime(agent: IrNode, targets: readonly Target[]): RuntimeTools[] {
  const rows: RuntimeTools[] = [];
  for (const { definition } of targets) {
    const perScope: RuntimeTools[] = [];
    for (const scope of SCOPE_IDS) {
      const surface = definition.scopes[scope]?.agents[0];
      if (!definition.scopes[scope]) continue;
      const found = surface ? toolsFor(agent, surface, definition) : { tools: null, how: 'no agent files in this runtime' };
      const same = perScope.find((row) => JSON.stringify([row.tools, row.how]) === JSON.stringify([found.tools, found.how]));
      if (same) same.scopes.push(scope);
      else perScope.push({ runtime: definition.name, scopes: [scope], ...found });
    }
    // Scopes that disagree get a row each, named by scope.
    rows.push(...(perScope.length > 1 ? perScope.map((row) => ({ ...row, runtime: `${row.runtime} (${row.scopes.join(', ')})` })) : perScope));
  }
  return rows;
}

function toolsFor(agent: IrNode, surface: AgentSurface, definition: TargetDefinition): { tools: string[] | null; how: string } {
  const source = sourceTools(agent);
  const maps = definition.toolMaps ?? {};
  switch (surface.format) {
    case 'codex-toml': {
      const writes = surface.sandbox && source.some((tool) => surface.sandbox!.writeTools.includes(tool));
      return { tools: null, how: surface.sandbox ? `no tool list; sandbox_mode = ${writes ? surface.sandbox.write : surface.sandbox.readOnly}` : 'no tool list' };
    }
    case 'markdown':
    case 'kimi-agent-spec': {
      if (!surface.frontmatter) return { tools: source, how: 'frontmatter kept as written' };
      const rules = surface.frontmatter.flatMap((rule) => [rule, ...(rule.object ?? [])]);
      const listed = rules.find((rule) => rule.from === 'tools' || rule.from === 'allowed-tools');
      if (listed) return { tools: mapTools(source, listed.toolMap ? maps[listed.toolMap] : undefined), how: `${listed.key} list${listed.toolMap ? `, through tool map ${listed.toolMap}` : ', as written'}` };
      const permission = surface.frontmatter.find((rule) => rule.permissions);
      if (permission?.permissions) {
        const granted = new Set(mapTools(source, maps[permission.permissions.toolMap]));
        return { tools: permission.permissions.keys.filter((key) => granted.has(key)), how: `${permission.key} map: these granted, every other key ${permission.permissions.deny}` };
      }
      return { tools: null, how: "no tool list: the runtime's defaults apply" };
    }
  }
}
