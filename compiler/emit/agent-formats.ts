// Agent file formats that need code: a Markdown agent (source frontmatter kept
// or rewritten by rules) and a Codex custom-agent TOML file.
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import type { IrNode } from '../ir/types.ts';
import type { AgentSurface } from '../targets/target-types.ts';
import { renderFrontmatter } from './render-frontmatter.ts';
import { renderString, renderText, type RenderContext } from './render-text.ts';

export function renderAgent(agent: IrNode, surface: AgentSurface, context: RenderContext): string {
  const body = renderText(agent, context);
  switch (surface.format) {
    case 'markdown':
      return `${markdownFrontmatter(agent, surface, context)}${body}`;
    case 'codex-toml':
      return codexAgentToml(agent, surface, body.replace(/^\n+/, ''), context);
  }
}

function markdownFrontmatter(agent: IrNode, surface: AgentSurface, context: RenderContext): string {
  if (surface.frontmatter && agent.frontmatter?.data) {
    return `---\n${renderFrontmatter(surface.frontmatter, agent.frontmatter.data, agent.name, (text) => renderString(text, context))}---\n`;
  }
  // Kept as written, comments included; only the install root and line endings change.
  return renderText(agent, context, 0, agent.body.start);
}

/**
 * Codex reads custom agents from standalone TOML files: name, description,
 * sandbox_mode and developer_instructions. No model is written: the user's
 * Codex configuration chooses it, so the file never depends on the build machine.
 */
function codexAgentToml(agent: IrNode, surface: AgentSurface, body: string, context: RenderContext): string {
  const data = agent.frontmatter?.data ?? {};
  const tools = toolList(data['tools']);
  const header: Record<string, string> = {
    name: agent.name,
    description: renderString(String(data['description'] ?? ''), context),
  };
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

export function toolList(tools: unknown): string[] {
  if (Array.isArray(tools)) return tools.map(String);
  if (typeof tools === 'string') return tools.split(',').map((tool) => tool.trim()).filter(Boolean);
  return [];
}
