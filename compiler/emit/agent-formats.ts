// Agent file formats: Markdown (source frontmatter kept, or rewritten by the
// target's rules), Codex custom-agent TOML, and Kimi CLI agent specs (a YAML
// + prompt pair per agent and one root spec that lists them all).
import path from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { IrNode } from '../ir/types.ts';
import type { AgentSurface } from '../targets/target-types.ts';
import { renderFrontmatter } from './render-frontmatter.ts';
import type { ComposeContext } from '../compose/compose-context.ts';
import { composeString, composeText } from '../compose/compose-text.ts';
import { listItems } from '../util/list-items.ts';

export interface AgentFile {
  path: string;
  contents: string;
  source?: string;
}

type PathOf = (pattern: string, names?: Record<string, string>) => string;

/** One agent's files on a surface (its prompt, or a spec and its prompt). */
export function renderAgent(agent: IrNode, surface: AgentSurface, context: ComposeContext, at: PathOf): AgentFile[] {
  const body = composeText(agent, context);
  const file = at(surface.path, { name: agent.name });
  switch (surface.format) {
    case 'markdown':
      return markdownAgent(agent, surface, markdownFrontmatter(agent, surface, context), body, context, at, file);
    case 'codex-toml':
      return [{ path: file, contents: codexAgentToml(agent, surface, body.replace(/^\n+/, ''), context), source: agent.path }];
    case 'kimi-agent-spec':
      return kimiAgentSpec(agent, surface, body.replace(/^\n+/, ''), context, at, file);
  }
}

/** The file a surface lists its agents in, when its format has one (Kimi's root spec). */
export function agentIndex(agents: readonly IrNode[], surface: AgentSurface, context: ComposeContext, at: PathOf): AgentFile | null {
  return surface.format === 'kimi-agent-spec' ? kimiRootSpec(agents, surface, context, at) : null;
}

function frontmatterInput(agent: IrNode, context: ComposeContext) {
  return {
    data: agent.frontmatter?.data ?? {},
    name: agent.name,
    version: context.version,
    toolMaps: context.target.toolMaps ?? {},
    renderValue: (text: string) => composeString(text, context),
  };
}

function markdownFrontmatter(agent: IrNode, surface: AgentSurface, context: ComposeContext): string {
  if (surface.frontmatter) {
    const yaml = renderFrontmatter(surface.frontmatter, frontmatterInput(agent, context));
    return yaml ? `---\n${yaml}---\n` : '';
  }
  // Kept as written, comments included; only the install root and line endings change.
  return composeText(agent, context, 0, agent.body.start);
}

/**
 * A Markdown agent file. With `spill`, an agent whose file would pass the
 * runtime's size cap keeps its frontmatter and a short pointer as the file,
 * and its full prompt moves to a payload file it is told to read.
 */
function markdownAgent(agent: IrNode, surface: AgentSurface, frontmatter: string, body: string, context: ComposeContext, at: PathOf, file: string): AgentFile[] {
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

function agentDescription(agent: IrNode, context: ComposeContext): string {
  return composeString(String(agent.frontmatter?.data?.['description'] ?? ''), context);
}

/**
 * Codex reads custom agents from standalone TOML files: name, description,
 * sandbox_mode and developer_instructions. No model is written: the user's
 * Codex configuration chooses it, so the file never depends on the build machine.
 */
function codexAgentToml(agent: IrNode, surface: AgentSurface, body: string, context: ComposeContext): string {
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

/**
 * Kimi CLI (the Python kimi-cli) loads agents only from spec files given to
 * `kimi --agent-file`: YAML `{version, agent: {name, system_prompt_path, tools}}`
 * with the prompt in its own file, paths relative to the spec. The spec is the
 * surface's frontmatter rules rendered as a whole YAML file; the prompt goes to
 * `prompt`, inside one Jinja raw block. The parse proves the spec names that
 * prompt file.
 */
function kimiAgentSpec(agent: IrNode, surface: AgentSurface, body: string, context: ComposeContext, at: PathOf, file: string): AgentFile[] {
  const prompt = at(kimiPromptPath(surface), { name: agent.name });
  const text = renderFrontmatter(surface.frontmatter ?? [], frontmatterInput(agent, context));
  const named = (parseYaml(text) as { agent?: { system_prompt_path?: unknown } } | null)?.agent?.system_prompt_path;
  const expected = relativeTo(file, prompt);
  if (named !== expected) {
    throw new Error(`internal: ${file} for ${agent.path}: expected agent.system_prompt_path "${expected}", found ${JSON.stringify(named)}`);
  }
  return [
    { path: file, contents: text, source: agent.path },
    // Kimi CLI renders the prompt as a Jinja template (${…} variables, {% %} tags, {# #} comments); a raw
    // block makes it render the text exactly as written, whatever the prompt says (checked with Jinja 3.1).
    { path: prompt, contents: `{% raw %}${body}{% endraw %}`, source: agent.path },
  ];
}

/** The root spec: the surface's `index.agent` keys plus `subagents`, one entry per agent (its spec's path and description). */
function kimiRootSpec(agents: readonly IrNode[], surface: AgentSurface, context: ComposeContext, at: PathOf): AgentFile {
  const index = surface.index;
  if (!index) throw new Error(`internal: a kimi-agent-spec surface needs "index" (the root spec listing every agent), found none for ${surface.path}`);
  const file = at(index.path);
  const subagents: Record<string, { path: string; description: string }> = {};
  for (const agent of agents) {
    subagents[agent.name] = { path: relativeTo(file, at(surface.path, { name: agent.name })), description: agentDescription(agent, context).replace(/\s+/g, ' ').trim() };
  }
  return { path: file, contents: stringifyYaml({ version: 1, agent: { ...index.agent, subagents } }, { lineWidth: 0 }) };
}

function kimiPromptPath(surface: AgentSurface): string {
  if (!surface.prompt) throw new Error(`internal: a kimi-agent-spec surface needs "prompt" (where each agent's prompt goes), found none for ${surface.path}`);
  return surface.prompt;
}

/** `to` as Kimi CLI resolves it from the folder of `from`: `./x.md`, `./sub/x.yaml`. */
function relativeTo(from: string, to: string): string {
  const relative = path.posix.relative(path.posix.dirname(from), to);
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** A TOML multi-line literal string for text that can be one, else null. */
function tomlMultilineLiteral(text: string): string | null {
  if (text.includes("'''") || /[\u0000-\u0008\u000B-\u001F\u007F]/.test(text) || text.endsWith("'")) return null;
  return `'''\n${text}'''`;
}
