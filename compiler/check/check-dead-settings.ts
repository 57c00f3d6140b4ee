// Settings nothing acts on: a config-schema key that no corpus document and
// no runtime-CLI source names, a when= atom of the runtime's predicate table
// that no gsd:section marker uses, and a reference no other file loads.
// Warnings, each at the position of the definition that could go.
import { lineOfPointer } from '../../source/runtime/core/json.ts';
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';

export interface SettingsSources {
  /** The config schema as text, with its path as diagnostics print it (relative to the source dir). */
  schema: { file: string; text: string } | null;
  /** Documents and code that count as readers: path → text. */
  readers: ReadonlyMap<string, string>;
  /** The runtime's when= predicate table, when the corpus has one. */
  predicates: { file: string; text: string } | null;
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  oneOf?: SchemaNode[];
  deprecated?: boolean;
}

export interface SchemaKey {
  key: string;
  pointer: string;
  /** The schema marks it, or a key it sits under, `deprecated`. */
  deprecated: boolean;
  /** Only a section of other keys (every form of it has properties): its keys are the settings, not it. */
  container: boolean;
}

/** Every dotted key of a schema with its JSON pointer into the schema text. */
export function schemaKeys(node: SchemaNode, prefix = '', pointer = '', inDeprecated = false): SchemaKey[] {
  const out: SchemaKey[] = [];
  const branches = node.oneOf ? node.oneOf.map((n, i) => ({ n, p: `${pointer}/oneOf/${i}` })) : [{ n: node, p: pointer }];
  for (const { n, p } of branches) {
    for (const [name, sub] of Object.entries(n.properties ?? {})) {
      if (name === '$schema') continue;
      const key = prefix ? `${prefix}.${name}` : name;
      const at = `${p}/properties/${name}`;
      const deprecated = inDeprecated || sub.deprecated === true;
      const container = (sub.oneOf ?? [sub]).every((b) => Object.keys(b.properties ?? {}).length > 0);
      if (!out.some((k) => k.key === key)) out.push({ key, pointer: at, deprecated, container });
      out.push(...schemaKeys(sub, key, at, deprecated).filter((k) => !out.some((o) => o.key === k.key)));
    }
  }
  return out;
}

const isWordChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** Whether the dotted `key` occurs whole: no identifier character, and no `.` that goes on into one, on either side
 * (`workflow.code_review` is not in `workflow.code_review_depth`; a sentence's closing `.` does not continue it). */
export function hasKey(text: string, key: string): boolean {
  const continues = (c: string | undefined, beyond: string | undefined) => isWordChar(c) || (c === '.' && isWordChar(beyond));
  for (let i = text.indexOf(key); i >= 0; i = text.indexOf(key, i + 1)) {
    const end = i + key.length;
    if (!continues(text[i - 1], text[i - 2]) && !continues(text[end], text[end + 1])) return true;
  }
  return false;
}

const QUOTES = new Set(["'", '"', '`']);

/** Whether `leaf` occurs as code names a key — quoted ('leaf', "leaf", `leaf`, or opening a quoted path into its
 * entries: `leaf.${name}`), a property access (`.leaf`) or a key (`leaf:`) — and not only as a word of prose
 * ("best effort", "quality gates"). */
export function hasCodeName(text: string, leaf: string): boolean {
  for (let i = text.indexOf(leaf); i >= 0; i = text.indexOf(leaf, i + 1)) {
    const before = text[i - 1];
    const after = text[i + leaf.length];
    if (isWordChar(before) || isWordChar(after)) continue;
    if (before !== undefined && QUOTES.has(before) && (after === before || after === '.')) return true;
    if (before === '.' || after === ':') return true;
  }
  return false;
}

/** Whether a reader names config key `key`: the dotted key whole, or its leaf in a code-like form. */
export function namesKey(text: string, key: string): boolean {
  const leaf = key.slice(key.lastIndexOf('.') + 1);
  return (key !== leaf && hasKey(text, key)) || hasCodeName(text, leaf);
}

function columnOf(text: string, line: number, needle: string): number {
  const lineText = text.split('\n')[line - 1] ?? '';
  const at = lineText.indexOf(needle);
  return at < 0 ? 1 : at + 1;
}

/** config-key-unread: a schema key whose dotted name and leaf no reader names. Not reported: a section of keys
 * (its keys are), and a key the schema marks `deprecated` (accepted from upstream configs, and it says it does nothing). */
export function checkUnreadConfigKeys(sources: SettingsSources): Diagnostic[] {
  if (!sources.schema) return [];
  const { file, text } = sources.schema;
  let schema: SchemaNode;
  try {
    schema = JSON.parse(text) as SchemaNode;
  } catch {
    return []; // the runtime's own schema load reports a broken schema
  }
  const readers = [...sources.readers.values()];
  const diagnostics: Diagnostic[] = [];
  for (const { key, pointer, deprecated, container } of schemaKeys(schema)) {
    if (deprecated || container || readers.some((t) => namesKey(t, key))) continue;
    const leaf = key.slice(key.lastIndexOf('.') + 1);
    const line = lineOfPointer(text, pointer) ?? 1;
    diagnostics.push({
      ...diagnostic(file, line, columnOf(text, line, `"${leaf}"`), 'config-key-unread', `expected a workflow, agent or runtime-CLI source to read config key "${key}" (by "${key}" or "${leaf}"), found none: wire it or remove it from the schema`),
      severity: 'warning',
    });
  }
  return diagnostics;
}

/** The atoms a predicate table defines: lines of the form `'atom': (…`. */
export function predicateAtoms(text: string): { atom: string; line: number; column: number }[] {
  const out: { atom: string; line: number; column: number }[] = [];
  text.split('\n').forEach((line, i) => {
    const m = /^(\s*)'((?:flag|state):[a-z0-9-]+)':\s*\(/.exec(line);
    if (m) out.push({ atom: m[2]!, line: i + 1, column: m[1]!.length + 1 });
  });
  return out;
}

/** when-atom-unused: a predicate no gsd:section marker of the corpus uses (`always` is a constant, not a fact). */
export function checkUnusedWhenAtoms(sources: SettingsSources, nodes: readonly IrNode[]): Diagnostic[] {
  if (!sources.predicates) return [];
  const used = new Set(nodes.flatMap((node) => node.sections.filter((s) => s.explicit).map((s) => s.when)));
  return predicateAtoms(sources.predicates.text)
    .filter((a) => !used.has(a.atom))
    .map((a) => ({
      ...diagnostic(sources.predicates!.file, a.line, a.column, 'when-atom-unused', `expected a gsd:section marker with when="${a.atom}", found none: the runtime computes a fact nothing reads`),
      severity: 'warning' as const,
    }));
}

/** ref-orphan: a reference that no include or read of any other file reaches (`maintainerDocs`: pages for people editing the corpus). */
export function checkOrphanReferences(nodes: readonly IrNode[], maintainerDocs: readonly string[] = []): Diagnostic[] {
  const reached = new Set(nodes.flatMap((node) => node.edges.filter((e) => (e.kind === 'include' || e.kind === 'read') && e.resolved && e.resolved !== node.id).map((e) => e.resolved!)));
  return nodes
    .filter((node, i, all) => node.kind === 'reference' && !reached.has(node.id) && !maintainerDocs.includes(node.path) && all.findIndex((n) => n.path === node.path) === i)
    .map((node) => ({
      ...diagnostic(node.path, 1, 1, 'ref-orphan', `expected a command, workflow, agent or other reference to load ${node.path}, found none: reference it where it applies or remove it`),
      severity: 'warning' as const,
    }));
}
