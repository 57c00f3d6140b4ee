// Agent file formats: Markdown (source frontmatter kept, or rewritten by the
// target's rules) and Codex custom-agent TOML.
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import type { IrNode } from '../ir/types.ts';
import type { AgentSurface } from '../targets/target-types.ts';
import { renderFrontmatter } from './render-frontmatter.ts';
import { renderString, renderText, type RenderContext } from './render-text.ts';
import { listItems } from '../util/list-items.ts';

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
        files.push(...markdownAgent(agent, surface, markdownFrontmatter(agent, surface, context), body, context, at, file));
        break;
      case 'codex-toml':
        files.push({ path: file, contents: codexAgentToml(agent, surface, body.replace(/^\n+/, ''), context), source: agent.path });
        break;
    }
  }
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

/**
 * A Markdown agent file. With `spill`, an agent whose file would pass the
 * runtime's size cap keeps its frontmatter and a short pointer as the file,
 * and its full prompt moves to a payload file it is told to read.
 */
function markdownAgent(agent: IrNode, surface: AgentSurface, frontmatter: string, body: string, context: RenderContext, at: PathOf, file: string): AgentFile[] {
  const whole = `${frontmatter}${body}`;
  const spill = surface.spill;
  if (!spill || Buffer.byteLength(whole) <= spill.maxBytes) return [{ path: file, contents: whole, source: agent.path }];
  const prompt = at(spill.path, { name: agent.name });
  const address = context.scope.base === 'home' ? `~/${prompt}` : prompt;
  const pointer = spill.body.replaceAll('{file}', address).replaceAll('{name}', agent.name);
  return [
    { path: file, contents: `${frontmatter}\n${pointer.endsWith('\n') ? pointer : `${pointer}\n`}`, source: agent.path },
    { path: prompt, contents: body.replace(/^\n+/, ''), source: agent.path },
  ];
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
  const tools = listItems(agent.frontmatter?.data?.['tools']);
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
