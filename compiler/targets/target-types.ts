// The shape of a target definition (schemas/target.schema.json), as loaded.

export type ScopeId = 'global' | 'local';
export const SCOPE_IDS: readonly ScopeId[] = ['global', 'local'];

export interface FrontmatterRule {
  key: string;
  value?: string;
  from?: string;
  quote?: 'plain' | 'double';
  list?: 'block' | 'flow' | 'comma';
  omitEmpty?: boolean;
  maxLength?: number;
  map?: Record<string, string>;
  object?: FrontmatterRule[];
}

export interface CommandSurface {
  path: string;
  frontmatter: FrontmatterRule[];
  preamble?: string;
}

export interface AgentSurface {
  format: 'markdown' | 'codex-toml';
  path: string;
  frontmatter?: FrontmatterRule[];
  sandbox?: { writeTools: string[]; write: string; readOnly: string };
}

export interface ConfigFile {
  path: string;
  format: 'json' | 'toml';
  entries: Record<string, unknown>;
}

export interface TargetScope {
  base: 'home' | 'project';
  root: string;
  env?: string[];
  commands: CommandSurface;
  agents: AgentSurface[];
  config?: ConfigFile[];
}

export interface TargetDefinition {
  id: string;
  name: string;
  slash?: string;
  arguments?: string;
  replacements?: { find: string; replace: string }[];
  scopes: Partial<Record<ScopeId, TargetScope>>;
}

/** A definition plus the text files it names (preambles), keyed by their path in the target folder. */
export interface Target {
  definition: TargetDefinition;
  files: Record<string, string>;
}
