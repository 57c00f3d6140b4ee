// Agent file formats: Markdown (source frontmatter kept, or rewritten by the
// target's rules), Codex custom-agent TOML, and Kimi's YAML agent spec with a
// separate prompt file.
import { Document } from 'yaml';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import type { IrNode } from '../ir/types.ts';
import type { AgentSurface } from '../targets/target-types.ts';
import { mapTools, renderFrontmatter } from './render-frontmatter.ts';
import { renderString, renderText, type RenderContext } from './render-text.ts';

export interface AgentFile {
  path: string;
  contents: string;
  source?: string;
}

type PathOf = (pattern: string, names?: Record<string, string>) => string;

export function renderAgents(agents: readonly IrNode[], surface: AgentSurface, context: RenderContext, at: PathOf): AgentFile[] {
  const files: AgentFile[] = [];
  for (const agent of agents) {
    const body = renderText(agent, context);
    const file = at(surface.path, { name: agent.name });
    switch (surface.format) {
      case 'markdown':
        files.push({ path: file, contents: `${markdownFrontmatter(agent, surface, context)}${body}`, source: agent.path });
        break;
      case 'codex-toml':
        files.push({ path: file, contents: codexAgentToml(agent, surface, body.replace(/^\n+/, ''), context), source: agent.path });
        break;
      case 'kimi-yaml':
        files.push(...kimiAgent(agent, surface, body.replace(/^\n+/, ''), context, file));
        break;
    }
  }
  if (surface.format === 'kimi-yaml' && surface.index) files.push(kimiIndex(agents, surface, context, at));
  return files;
}

function frontmatterInput(agent: IrNode, context: RenderContext) {
  return {
    data: agent.frontmatter?.data ?? {},
    name: agent.name,
    version: context.version,
    toolMaps: context.target.toolMaps ?? {},
    renderValue: (text: string) => renderString(text, context),
  };
}

function markdownFrontmatter(agent: IrNode, surface: AgentSurface, context: RenderContext): string {
  if (surface.frontmatter) {
    const yaml = renderFrontmatter(surface.frontmatter, frontmatterInput(agent, context));
    return yaml ? `---\n${yaml}---\n` : '';
  }
  // Kept as written, comments included; only the install root and line endings change.
  return renderText(agent, context, 0, agent.body.start);
}

function agentDescription(agent: IrNode, context: RenderContext): string {
  return renderString(String(agent.frontmatter?.data?.['description'] ?? ''), context);
}

/**
 * Codex reads custom agents from standalone TOML files: name, description,
 * sandbox_mode and developer_instructions. No model is written: the user's
 * Codex configuration chooses it, so the file never depends on the build machine.
 */
function codexAgentToml(agent: IrNode, surface: AgentSurface, body: string, context: RenderContext): string {
  const tools = toolList(agent.frontmatter?.data?.['tools']);
  const header: Record<string, string> = { name: agent.name, description: agentDescription(agent, context) };
  if (surface.sandbox) {
    header['sandbox_mode'] = tools.some((tool) => surface.sandbox!.writeTools.includes(tool)) ? surface.sandbox.write : surface.sandbox.readOnly;
  }
  const text = `${stringifyToml(header)}\ndeveloper_instructions = ${tomlMultilineLiteral(body) ?? stringifyToml({ x: body }).slice(4).trimEnd()}\n`;
  // The hand-laid multi-line string keeps the golden readable; the parser proves it exact.
  const parsed = parseToml(text) as Record<string, unknown>;
  if (parsed['developer_instructions'] !== body || parsed['name'] !== agent.name) {
    throw new Error(`internal: TOML for ${agent.path} does not round-trip`);
  }
  return text;
}

/** A TOML multi-line literal string for text that can be one, else null. */
function tomlMultilineLiteral(text: string): string | null {
  if (text.includes("'''") || /[\u0000-\u0008\u000B-\u001F\u007F]/.test(text) || text.endsWith("'")) return null;
  return `'''\n${text}'''`;
}

/** Kimi: `<name>.yaml` (agent spec) next to `<name>.md` (its system prompt). */
function kimiAgent(agent: IrNode, surface: AgentSurface, body: string, context: RenderContext, file: string): AgentFile[] {
  const prompt = file.replace(/\.ya?ml$/, '.md');
  const tools = mapTools(toolList(agent.frontmatter?.data?.['tools']), surface.toolMap ? context.target.toolMaps?.[surface.toolMap] : undefined);
  const spec = {
    version: 1,
    agent: {
      name: agent.name,
      description: agentDescription(agent, context),
      system_prompt_path: `./${prompt.split('/').pop()}`,
      tools,
    },
  };
  return [
    { path: file, contents: new Document(spec).toString({ lineWidth: 0 }), source: agent.path },
    { path: prompt, contents: body, source: agent.path },
  ];
}

/** Kimi's root agent: the default agent extended with every GSD subagent. */
function kimiIndex(agents: readonly IrNode[], surface: AgentSurface, context: RenderContext, at: PathOf): AgentFile {
  const index = at(surface.index!);
  const folder = index.split('/').slice(0, -1).join('/');
  const subagents: Record<string, { path: string; description: string }> = {};
  for (const agent of agents) {
    const file = at(surface.path, { name: agent.name });
    subagents[agent.name] = { path: `./${file.slice(folder.length + 1)}`, description: agentDescription(agent, context) };
  }
  const spec = { version: 1, agent: { extend: 'default', name: 'gsd', subagents } };
  return { path: index, contents: new Document(spec).toString({ lineWidth: 0 }) };
}

export function toolList(tools: unknown): string[] {
  if (Array.isArray(tools)) return tools.map(String);
  if (typeof tools === 'string') return tools.split(',').map((tool) => tool.trim()).filter(Boolean);
  return [];
}
