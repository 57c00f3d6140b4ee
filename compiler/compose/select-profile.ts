// Skill profiles: a profile names the commands it ships (profiles.json at the
// corpus root, schemas/profiles.schema.json); everything those commands need
// at run time is computed from the IR's edges. The result is an IR of its own:
// the shipped nodes, with the list items and table rows that name a command the
// profile leaves out marked as dropped lines. `full` is the IR unchanged.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { CorpusIr, EdgeKind, IrNode } from '../ir/types.ts';
import { parseJsonWithPositions } from '../load/yaml-position.ts';
import { splitLines } from '../load/scan-lines.ts';
import { describeSchemaErrors, schemaValidator } from '../schemas.ts';

export const FULL_PROFILE = 'full';

export interface ProfileDefinition {
  description: string;
  commands?: string[];
  profiles?: string[];
  all?: true;
  addon?: true;
}

export interface Profiles {
  default?: string;
  /** Profiles released beside full. */
  release?: string[];
  profiles: Record<string, ProfileDefinition>;
}

export interface LoadedProfiles {
  file: string;
  profiles: Profiles;
}

/** What a shipped file needs at run time: loaded with it, read by it, spawned or invoked by it. */
const FOLLOWED: ReadonlySet<EdgeKind> = new Set(['include', 'read', 'spawn', 'skill']);
/** Read by the runtime CLI by name (`template fill <name>`), never through an edge: every profile ships them. */
const ALWAYS_SHIPPED: ReadonlySet<string> = new Set(['template', 'hook']);
/** A list item's first line (`- `, `* `, `+ `, `1. `, `1) `) and its indent. */
const BULLET = /^( *)(?:[-*+]|\d{1,9}[.)])[ \t]/;

export function loadProfiles(file: string, text: string, commandStems: ReadonlySet<string>): { loaded: LoadedProfiles | null; diagnostics: Diagnostic[] } {
  const parsed = parseJsonWithPositions(text);
  if (parsed.error) return { loaded: null, diagnostics: [diagnostic(file, parsed.error.line, parsed.error.column, 'profiles-schema', `expected JSON, found ${parsed.error.message}`)] };
  const { locate } = parsed;
  const validate = schemaValidator('profiles.schema.json');
  if (!validate(parsed.data)) {
    const diagnostics = describeSchemaErrors(validate.errors, parsed.data).map((finding) => {
      const { line, column } = locate(finding.path, finding.atKey);
      return diagnostic(file, line, column, 'profiles-schema', finding.message);
    });
    return { loaded: null, diagnostics };
  }
  const profiles = parsed.data as Profiles;
  const diagnostics: Diagnostic[] = [];
  const report = (keyPath: (string | number)[], message: string) => {
    const { line, column } = locate(keyPath);
    diagnostics.push(diagnostic(file, line, column, 'profiles-schema', message));
  };
  const names = Object.keys(profiles.profiles);
  if (profiles.profiles[FULL_PROFILE]?.all !== true) report(['profiles'], `expected a "${FULL_PROFILE}" profile with "all": true (what a build ships by default), found ${profiles.profiles[FULL_PROFILE] ? 'one without it' : 'none'}`);
  if (profiles.default !== undefined && !names.includes(profiles.default)) report(['default'], `expected a profile name (${names.join(', ')}), found "${profiles.default}"`);
  (profiles.release ?? []).forEach((name, index) => {
    if (!names.includes(name) || profiles.profiles[name]!.addon) report(['release', index], `expected a standalone profile name (${names.filter((n) => !profiles.profiles[n]!.addon).join(', ')}), found "${name}"`);
  });
  for (const [name, definition] of Object.entries(profiles.profiles)) {
    (definition.commands ?? []).forEach((stem, index) => {
      if (!commandStems.has(stem)) report(['profiles', name, 'commands', index], `expected the stem of a command in commands/gsd/, found "${stem}"`);
    });
    (definition.profiles ?? []).forEach((other, index) => {
      if (!names.includes(other)) report(['profiles', name, 'profiles', index], `expected a profile name (${names.join(', ')}), found "${other}"`);
      else if (includes(profiles, other, name, new Set())) report(['profiles', name, 'profiles', index], `expected profiles that do not include each other, found "${other}" including "${name}"`);
    });
  }
  return { loaded: diagnostics.length > 0 ? null : { file, profiles }, diagnostics };
}

function includes(profiles: Profiles, from: string, wanted: string, seen: Set<string>): boolean {
  if (from === wanted) return true;
  if (seen.has(from)) return false;
  seen.add(from);
  return (profiles.profiles[from]?.profiles ?? []).some((next) => includes(profiles, next, wanted, seen));
}

/** The profile names a user gave (`core,review`), checked; an error message names the known ones. */
export function parseProfileNames(value: string, profiles: Profiles | null): { names: string[] } | { error: string } {
  const known = profiles ? Object.keys(profiles.profiles) : [FULL_PROFILE];
  const names = [...new Set(value.split(',').map((name) => name.trim()).filter(Boolean))];
  const unknown = names.find((name) => !known.includes(name));
  if (names.length === 0 || unknown !== undefined) return { error: `expected --profile with one or more of ${known.join(', ')} (comma-separated), found "${value}"` };
  return { names };
}

/** The label a bundle records: the names as given, or `full` when any of them ships everything. */
export function profileLabel(names: readonly string[], profiles: Profiles | null): string {
  return commandsOf(names, profiles) === 'all' ? FULL_PROFILE : names.join(',');
}

/** The commands the named profiles ship, transitively through the profiles they include; 'all' for full. */
export function commandsOf(names: readonly string[], profiles: Profiles | null): ReadonlySet<string> | 'all' {
  const commands = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string): boolean => {
    if (seen.has(name)) return false;
    seen.add(name);
    const definition = profiles?.profiles[name];
    if (!definition || definition.all) return true;
    definition.commands?.forEach((stem) => commands.add(stem));
    return (definition.profiles ?? []).some(visit);
  };
  return names.some(visit) ? 'all' : commands;
}

export interface ProfileSelection {
  ir: CorpusIr;
  /** Mentions of commands the profile leaves out that no dropped line carries: the profile is not closed. */
  diagnostics: Diagnostic[];
}

/** The IR a profile ships. Pure; the full profile gets the IR itself, so its bundles are today's bytes. */
export function selectProfile(ir: CorpusIr, commands: ReadonlySet<string> | 'all', label: string): ProfileSelection {
  if (commands === 'all') return { ir, diagnostics: [] };
  const byId = new Map(ir.nodes.map((node) => [node.id, node]));
  const shipped = new Set<string>();
  const queue: IrNode[] = [];
  const ship = (node: IrNode | undefined) => {
    if (!node || shipped.has(node.id) || node.variant !== undefined) return;
    shipped.add(node.id);
    queue.push(node);
  };
  for (const node of ir.nodes) if ((node.kind === 'command' && commands.has(node.name)) || ALWAYS_SHIPPED.has(node.kind)) ship(node);
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const edge of node.edges) if (FOLLOWED.has(edge.kind) && edge.resolved) ship(byId.get(edge.resolved));
    // A workflow's steps and modes go with it, and a step needs its workflow.
    for (const child of node.children ?? []) ship(byId.get(child));
    if (node.parent) ship(byId.get(node.parent));
  }
  // A variant (a `.compact.md` sibling) goes wherever its canonical node goes.
  const canonicalOf = (node: IrNode) => node.id.slice(0, -`.${node.variant}`.length);
  for (const node of ir.nodes) if (node.variant !== undefined && shipped.has(canonicalOf(node))) shipped.add(node.id);
  const diagnostics: Diagnostic[] = [];
  const nodes = ir.nodes
    .filter((node) => shipped.has(node.id))
    .map((node) => {
      const dropped = droppedLines(node, (id) => shipped.has(id), label, diagnostics);
      return dropped.length > 0 ? { ...node, droppedLines: dropped } : node;
    });
  return { ir: { ...ir, nodes }, diagnostics };
}

/** The lines of `node` that name a command the profile leaves out, each inside a list item or table row; a diagnostic for every other such mention. */
function droppedLines(node: IrNode, isShipped: (id: string) => boolean, label: string, diagnostics: Diagnostic[]): number[] {
  const mentions: { line: number; column: number; name: string }[] = [];
  for (const edge of node.edges) {
    if ((edge.kind === 'slash' || edge.kind === 'skill') && edge.resolved?.startsWith('command:') && !isShipped(edge.resolved)) mentions.push({ line: edge.line, column: edge.column, name: edge.target });
  }
  const lines = splitLines(node.text);
  for (const span of node.spans) {
    if (span.kind !== 'route') continue;
    const stem = span.value.split(' ')[0]!;
    if (isShipped(`command:${stem}`)) continue;
    const line = lineAt(lines, span.start);
    mentions.push({ line, column: span.start - lines[line - 1]!.start + 1, name: stem });
  }
  const dropped = new Set<number>();
  for (const mention of mentions) {
    const unit = mention.line >= node.body.line ? droppableUnit(lines, mention.line) : null;
    if (unit) unit.forEach((line) => dropped.add(line));
    else {
      diagnostics.push(
        diagnostic(
          node.path,
          mention.line,
          mention.column,
          'profile-outside',
          `expected only commands the ${label} profile ships, or the mention inside a list item or table row (which the profile drops), found "${mention.name}", which it does not ship; add it to the profile's commands or move the mention into a list item`,
        ),
      );
    }
  }
  return [...dropped].sort((a, b) => a - b);
}

function lineAt(lines: readonly { start: number }[], offset: number): number {
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lines[middle]!.start <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/**
 * The file lines of the list item or table row holding `line`, or null in
 * running prose. An item is its bullet line and the lines below it indented
 * deeper, up to a blank line; a row is its one line.
 */
export function droppableUnit(lines: readonly { content: string }[], line: number): number[] | null {
  const index = line - 1;
  if (lines[index]!.content.trimStart().startsWith('|')) return [line];
  let start = index;
  for (; start >= 0; start -= 1) {
    const content = lines[start]!.content;
    if (BULLET.test(content)) break;
    if (content.trim() === '' || !/^\s/.test(content)) return null;
  }
  if (start < 0) return null;
  const indent = BULLET.exec(lines[start]!.content)![1]!.length;
  let end = start + 1;
  while (end < lines.length) {
    const content = lines[end]!.content;
    if (content.trim() === '' || content.length - content.trimStart().length <= indent) break;
    end += 1;
  }
  return Array.from({ length: end - start }, (_, offset) => start + offset + 1);
}
