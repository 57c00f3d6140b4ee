// The corpus IR: typed, JSON-serialisable, validated by schemas/ir.schema.json.
// Each node keeps its exact source text; everything else is derived from it.
import type { OutlineEntry } from '../load/parse-document.ts';
import type { Section } from '../load/parse-sections.ts';
import type { OnlyBlock } from '../load/parse-only-blocks.ts';
import type { LoopPoint } from '../load/parse-loop-points.ts';

export const NODE_KINDS = [
  'command',
  'workflow',
  'step',
  'mode',
  'agent',
  'reference',
  'template',
  'hook',
] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

export type EdgeKind =
  /** A whole `@path` line: the runtime loads the file with the prompt. */
  | 'include'
  /** A path the agent reads when it needs it. */
  | 'read'
  /** `subagent_type="gsd-x"`: an agent spawn. */
  | 'spawn'
  /** `/gsd-x` or `/gsd:x`: a command mention. */
  | 'slash'
  /** `Skill(skill="gsd-x")`: a command invoked as a skill. */
  | 'skill'
  /** A `requires:` entry of a command. */
  | 'requires';

export interface Edge {
  kind: EdgeKind;
  /** What the source says, e.g. `gsd-core/workflows/plan-phase.md` or `gsd-planner`. */
  target: string;
  /** Id of the node it resolves to; null when it names nothing (checks report it). */
  resolved: string | null;
  /** True for targets outside the bundle by design, e.g. `@.planning/STATE.md`. */
  external?: boolean;
  line: number;
  column: number;
}

/** A span of the source text that emit rewrites for each runtime. */
export interface RewriteSpan {
  /** route, route-header, route-instruction: a router's table (load/router-routes.ts). */
  kind: 'root' | 'slash' | 'arguments' | 'route' | 'route-header' | 'route-instruction';
  /** Offsets into `text`. */
  start: number;
  end: number;
  /** root: the anchor (`~`, `$HOME`, `.` or ``); slash: the command stem; route: the stem and its flags; route-header, route-instruction: the text as written. */
  value: string;
}

export interface FrontmatterView {
  /** The YAML between the fences, exactly as written. */
  raw: string;
  /** The parsed values (null when the YAML did not parse). */
  data: Record<string, unknown> | null;
  line: number;
}

export interface IrNode {
  /** `<kind>:<name>`, e.g. `workflow:plan-phase`, `step:plan-phase/partial-wave`. */
  id: string;
  kind: NodeKind;
  /** POSIX path relative to the corpus root. */
  path: string;
  /** Short name: command stem, agent name, workflow stem, ... */
  name: string;
  /** For step and mode nodes, the workflow they belong to. */
  parent?: string;
  /** For workflows, their step and mode nodes. */
  children?: string[];
  /** Whether the file began with a byte-order mark (kept for round trips). */
  bom: boolean;
  /** The file text without the BOM, byte for byte otherwise. */
  text: string;
  frontmatter: FrontmatterView | null;
  /** Offset and file line where the body starts. */
  body: { start: number; line: number };
  outline: OutlineEntry[];
  sections: Section[];
  /** File lines of gsd:section markers (stripped at emit). */
  markerLines: number[];
  /** Runtime-specific passages (gsd:only blocks). */
  onlyBlocks: OnlyBlock[];
  /** Loop points (gsd:loop markers, stripped at emit): where capabilities are composed in. Absent when none. */
  loopPoints?: LoopPoint[];
  edges: Edge[];
  spans: RewriteSpan[];
  /** UTF-8 bytes with CRLF counted as LF: the unit of every budget. */
  bytes: number;
  /** Whether the file is executable (hooks, scripts). */
  executable?: boolean;
  /** A router command (its name has the layout's router prefix): its table routes to other commands. */
  router?: true;
  /** Lines a skill profile leaves out: list items and table rows naming a command it does not ship (compose/select-profile.ts). */
  droppedLines?: number[];
  /** An alternative version of a node (a `.compact.md` sibling): id `<canonical id>.<variant>`, checked against its canonical node (check-variants.ts) and shipped next to it. */
  variant?: string;
}

/** A capability composed into this build (the bundle manifest and gsd-core/capabilities.json carry the same facts). */
export interface CapabilityView {
  id: string;
  version: string;
  origin: 'first-party' | 'third-party';
  /** The folder as the build was given it: `capabilities/<id>` in the corpus, or the path or package named. */
  source: string;
  /** sha256 over the folder's files. */
  digest: string;
  description: string;
  engines: string;
  config: Record<string, { type: 'boolean' | 'string' | 'number'; default: boolean | string | number; description: string; enum?: (string | number)[] }>;
  /** Its own commands, agents, templates and hooks (folder-relative). */
  own: { commands: string[]; agents: string[]; templates: string[]; hooks: string[] };
}

/** One contribution spliced into a loop point. */
export interface ComposedEntry {
  capability: string;
  kind: 'step' | 'contribution' | 'gate';
  point: string;
  workflow: string;
  /** The gsd:section id in the host, also the step file's name. */
  section: string;
  /** The section's when atom: `config:<key>`. */
  when: string;
  /** Spliced into the host (inline), or moved to a step file behind a stub because inline it would pass the host's byte ceiling. */
  placement: 'inline' | 'step';
  /** Corpus path of the step file (placement step only). */
  step?: string;
  into?: string;
  run?: { agent?: string; command?: string };
  blocking?: boolean;
  produces: string[];
  consumes: string[];
  onError: 'skip' | 'halt';
  /** Folder-relative fragment path. */
  fragment: string;
  /** Bytes added to the host (the inline text or the stub, with the blank line before it). */
  hostBytes: number;
  /** Bytes the entry adds to the host inline (equal to hostBytes when inline). */
  inlineBytes: number;
  /** Bytes of the step file (0 when inline). */
  stepBytes: number;
}

export interface CorpusIr {
  /** Format version of this IR. */
  version: 1;
  /** The payload folder (workflows, references, templates, bin/) when the layout names one other than gsd-core; bundles ship it under the root by this name. */
  payload?: string;
  nodes: IrNode[];
  /** Capabilities composed in, by id. Absent when none. */
  capabilities?: CapabilityView[];
  /** Loop point → its contributions in composition order. Absent when none. */
  composition?: Record<string, ComposedEntry[]>;
}
