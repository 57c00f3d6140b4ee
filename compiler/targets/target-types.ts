// The shape of a target definition (schemas/target.schema.json), as loaded.

export type ScopeId = 'global' | 'local';
export const SCOPE_IDS: readonly ScopeId[] = ['global', 'local'];

/** How one frontmatter key of an emitted file gets its value. */
export interface FrontmatterRule {
  key: string;
  /** A literal; in strings {name} is the command stem or agent name, {version} the release. */
  value?: string | number | boolean;
  /** A key of the source frontmatter to copy. */
  from?: string;
  /** A value per command or agent name; the key is left out for names not listed. */
  lookup?: Record<string, string | number | boolean>;
  quote?: 'plain' | 'double' | 'single';
  /** How a list is written: YAML block or flow list, one comma-separated string, or a map of item: true. */
  list?: 'block' | 'flow' | 'comma' | 'map';
  /** A tool map of the target applied to each list item. */
  toolMap?: string;
  omitEmpty?: boolean;
  /** Collapse runs of whitespace (newlines included) to one space. */
  singleLine?: boolean;
  /** Longer values are cut to maxLength - 3 code points plus '...'. */
  maxLength?: number;
  /** Value replacements, e.g. effort max → high. */
  map?: Record<string, string>;
  /** A nested map built from its own rules. */
  object?: FrontmatterRule[];
  /** A permission map: each key denied unless a source tool maps to it; granted keys get `allow`, or no entry when it is absent. */
  permissions?: { keys: string[]; toolMap: string; allow?: string; deny: string };
}

/** Claude tool names → a runtime's; `otherwise` decides for names the map does not list. */
export interface ToolMap {
  map: Record<string, string | null>;
  otherwise: 'keep' | 'lowercase' | 'drop';
}

export interface CommandSurface {
  /** Where each command lands; with `nested`, where routers and unrouted commands land. */
  path: string;
  /** Rules that write the frontmatter, `keep` for the source frontmatter, `none` for no frontmatter. */
  frontmatter: FrontmatterRule[] | 'keep' | 'none';
  /** A file in the target's folder put before every body. */
  preamble?: string;
  /** A Handlebars template in the target's folder that replaces the body (thin wrappers). */
  template?: string;
  /** Namespace layout: commands routed by an ns-* router land under it, and its table reads them. */
  nested?: {
    child: string;
    /** A router table's action column here (the source says Invoke). */
    header: string;
    /** The sentence after a router's table, for rows that name files to read. */
    instruction: string;
  };
}

export interface AgentSurface {
  format: 'markdown' | 'codex-toml' | 'kimi-agent-spec';
  path: string;
  frontmatter?: FrontmatterRule[];
  /** kimi-agent-spec: where each agent's prompt goes ({name}); its spec at `path` is `frontmatter` rendered as YAML. */
  prompt?: string;
  /** kimi-agent-spec: the root spec listing every agent under `agent.subagents`, with these `agent` keys first. */
  index?: { path: string; agent: Record<string, string> };
  sandbox?: { writeTools: string[]; write: string; readOnly: string };
  /** markdown: an agent file over `maxBytes` becomes frontmatter + `body` ({file}, {name}); its prompt moves to `path`. */
  spill?: { maxBytes: number; path: string; body: string };
}

export interface ConfigFile {
  path: string;
  /** json and toml files are merged into the user's by the installer; markdown goes between GSD markers; file is written whole (a file GSD owns, e.g. in its own folder). */
  format: 'json' | 'toml' | 'markdown' | 'file';
  entries?: Record<string, unknown>;
  /** markdown: a file in the target's folder. */
  file?: string;
}

export interface HookSurface {
  /** The adapter that writes the registration: a key of HOOK_FORMATS (compiler/emit/hook-formats.ts), checked on load. */
  format: string;
  /** The file the registration goes to; with {event}, one file per event. */
  path: string;
  /** Where the hook scripts go, with {file}. */
  scripts: string;
  /** Canonical (Claude Code) event → this runtime's event; null drops the hook. */
  events?: Record<string, string | null>;
  /** Tool map applied to matchers. */
  matcherToolMap?: string;
  /** The unit the runtime reads a hook timeout in; the registry gives seconds. */
  timeoutUnit?: 'seconds' | 'milliseconds';
  /** The command line that runs a hook; {file} is the script's file name. */
  command: string;
  /** windsurf-json: the tool actions a `{action}` event without a matcher is listed under. */
  actions?: string[];
  /** antigravity-json: events whose entries are matcher groups rather than bare handlers. */
  matcherEvents?: string[];
  /** hermes-yaml: events on which a hook whose crash policy is deny is marked fail-closed. */
  failClosedEvents?: string[];
}

export interface Limit {
  /** Regular expression over bundle paths. */
  files: string;
  maxBytes?: number;
  /** With maxChars: a frontmatter key whose value is capped; with pattern: one whose value must match. */
  frontmatterKey?: string;
  maxChars?: number;
  pattern?: string;
  /** A regular expression no text of the body (after the frontmatter) may match: text the runtime would rewrite. */
  forbidden?: string;
  reason: string;
}

export interface TargetScope {
  base: 'home' | 'project';
  root: string;
  env?: string[];
  commands: CommandSurface[];
  agents: AgentSurface[];
  config?: ConfigFile[];
  hooks?: HookSurface;
  limits?: Limit[];
}

export interface TargetDefinition {
  id: string;
  name: string;
  slash?: string;
  arguments?: string;
  replacements?: { find: string; replace: string; word?: boolean }[];
  toolMaps?: Record<string, ToolMap>;
  scopes: Partial<Record<ScopeId, TargetScope>>;
  /** What the runtime lists of every skill each turn before it shortens or drops them (report/listing-cost.ts). */
  listing?: { maxChars?: number; maxTokens?: number; reason: string };
  /** Why a scope the runtime lacks is absent, shown when someone asks for it. */
  unsupportedScopes?: Partial<Record<ScopeId, string>>;
}

/** One group of documented names in facts.json, with where and when it was read. */
export interface NameGroup {
  names: string[];
  source: Record<string, string>;
  checked: string;
  note?: string;
}

/** A documented limit (facts.json): one of maxChars, maxBytes, pattern or forbidden, with its source. */
export type FactLimit = Omit<Limit, 'files' | 'reason'> & { what: string; source: Record<string, string>; checked: string };

export interface TargetFacts {
  runtime: string;
  events?: NameGroup;
  settingsKeys?: NameGroup;
  tools?: NameGroup;
  agentTools?: NameGroup;
  skillKeys?: NameGroup;
  commandKeys?: NameGroup;
  agentKeys?: NameGroup;
  permissions?: NameGroup;
  promptVariables?: NameGroup;
  limits?: FactLimit[];
  /** The documented size past which the runtime shortens or drops its per-turn listing; target.json `listing` carries the same number. */
  listing?: { what: string; maxChars?: number; maxTokens?: number; source: Record<string, string>; checked: string; note?: string };
  gaps?: Partial<Record<string, string>>;
}

/** A definition plus the text files it names, keyed by their path in the target folder. */
export interface Target {
  definition: TargetDefinition;
  files: Record<string, string>;
  /** targets/<id>/hook-payload.json (schemas/hook-payload.schema.json): how the runtime calls a hook, for the hook scripts. */
  hookPayload?: Record<string, unknown>;
  /** targets/<id>/facts.json (schemas/facts.schema.json): the runtime's documented events, tools, keys and limits. */
  facts?: TargetFacts;
}
