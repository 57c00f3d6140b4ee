// load: source files → IR nodes with resolved edges. Pure: bytes in, IR and
// diagnostics out.
import { isMap, isSeq, isScalar } from 'yaml';
import { compareText, diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { CorpusIr, Edge, IrNode, NodeKind } from '../ir/types.ts';
import { classifyPath } from './classify-path.ts';
import { extractReferences } from './extract-references.ts';
import { frontmatterPosition, parseMarkdownDocument, type Frontmatter } from './parse-document.ts';
import { parseSections } from './parse-sections.ts';
import { parseOnlyBlocks } from './parse-only-blocks.ts';
import { scanLines } from './scan-lines.ts';
import type { SourceFile } from './read-source-tree.ts';

/** Kinds whose frontmatter is metadata; a template's frontmatter is example text. */
const FRONTMATTER_KINDS: ReadonlySet<NodeKind> = new Set(['command', 'agent']);
/** Kinds whose gsd:section markers are parsed and stripped at emit. */
const SECTIONED_KINDS: ReadonlySet<NodeKind> = new Set(['workflow', 'step', 'mode', 'agent']);
/** Files the compiler generates into every bundle, which prose may point at. */
export const GENERATED_PATHS: ReadonlySet<string> = new Set([
  'gsd-core/bin/gsd-tools.cjs',
  'gsd-core/workflows/section-manifest.json',
  'gsd-core/VERSION',
]);

export interface BuildIrResult {
  ir: CorpusIr;
  diagnostics: Diagnostic[];
}

export function buildIr(files: readonly SourceFile[], vocabulary: ReadonlySet<string>): BuildIrResult {
  const diagnostics: Diagnostic[] = [];
  const nodes: IrNode[] = [];
  for (const file of files) {
    const classified = classifyPath(file.path);
    if (classified === 'ignored') continue;
    if (classified === 'unknown') {
      diagnostics.push(diagnostic(file.path, 1, 1, 'layout-unknown', 'expected a path of a corpus family (see compiler/data/layout.json), found none matching'));
      continue;
    }
    const decoded = decodeUtf8(file);
    if ('error' in decoded) {
      diagnostics.push(decoded.error);
      continue;
    }
    nodes.push(buildNode(file.path, classified.kind, classified.name, classified.parent, decoded.text, vocabulary, diagnostics));
  }
  nodes.sort((a, b) => compareText(a.id, b.id));
  linkChildren(nodes);
  resolveEdges(nodes);
  return { ir: { version: 1, nodes }, diagnostics };
}

function decodeUtf8(file: SourceFile): { text: string } | { error: Diagnostic } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(file.bytes) };
  } catch {
    const lossy = new TextDecoder('utf-8').decode(file.bytes);
    const bad = lossy.indexOf('\uFFFD');
    const before = lossy.slice(0, Math.max(bad, 0));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return { error: diagnostic(file.path, line, column, 'source-encoding', 'expected UTF-8 text, found an invalid byte sequence') };
  }
}

function buildNode(
  path: string,
  kind: NodeKind,
  name: string,
  parent: string | undefined,
  decoded: string,
  vocabulary: ReadonlySet<string>,
  diagnostics: Diagnostic[],
): IrNode {
  const bom = decoded.startsWith('\uFEFF');
  const text = bom ? decoded.slice(1) : decoded;
  const base: IrNode = {
    id: `${kind}:${name}`,
    kind,
    path,
    name,
    ...(parent ? { parent } : {}),
    bom,
    text,
    frontmatter: null,
    body: { start: 0, line: 1 },
    outline: [],
    sections: [],
    markerLines: [],
    onlyBlocks: [],
    edges: [],
    spans: [],
    bytes: Buffer.byteLength(text.replace(/\r\n/g, '\n'), 'utf8'),
    ...(kind === 'hook' ? { executable: true } : {}),
  };
  if (kind === 'hook' || !/\.md$/.test(path)) return base;

  const wantsFrontmatter = FRONTMATTER_KINDS.has(kind);
  const parsed = parseMarkdownDocument(text, wantsFrontmatter);
  base.outline = parsed.outline;
  base.body = { start: parsed.bodyStart, line: parsed.bodyLine };
  if (parsed.frontmatter) {
    base.frontmatter = frontmatterView(path, parsed.frontmatter, diagnostics);
  } else if (wantsFrontmatter) {
    diagnostics.push(diagnostic(path, 1, 1, 'frontmatter-missing', 'expected a YAML frontmatter block opening with "---" on line 1, found none'));
  }

  const lines = scanLines(text.slice(parsed.bodyStart), parsed.bodyLine).map((line) => ({ ...line, start: line.start + parsed.bodyStart }));
  if (SECTIONED_KINDS.has(kind)) {
    const sections = parseSections(path, lines, vocabulary);
    diagnostics.push(...sections.diagnostics);
    base.sections = sections.sections;
    base.markerLines = sections.markerLines.map((line) => line.line);
  }
  const only = parseOnlyBlocks(path, lines);
  diagnostics.push(...only.diagnostics);
  base.onlyBlocks = only.blocks;
  const scanned = SECTIONED_KINDS.has(kind) ? lines : lines.map((line) => (line.kind === 'marker' ? { ...line, kind: 'comment' as const } : line));
  const references = extractReferences(scanned);
  base.edges = [...requiresEdges(parsed.frontmatter, base.frontmatter?.data), ...references.edges].map((edge) => ({ ...edge, resolved: null }));
  // Frontmatter kept as written (agents) may name the install root too, e.g. in a commented hook.
  const frontmatterSpans = parsed.frontmatter ? extractReferences(scanLines(text.slice(0, parsed.bodyStart))).spans.filter((span) => span.kind === 'root') : [];
  base.spans = [...frontmatterSpans, ...references.spans];
  return base;
}

function frontmatterView(path: string, frontmatter: Frontmatter, diagnostics: Diagnostic[]): IrNode['frontmatter'] {
  const { document } = frontmatter;
  const error = document.errors[0];
  if (error) {
    const { line, column } = frontmatterPosition(frontmatter, error.pos[0]);
    diagnostics.push(diagnostic(path, line, column, 'frontmatter-yaml', `expected valid YAML, found ${error.message.split('\n')[0]}`));
    return { raw: frontmatter.raw, data: null, line: frontmatter.line };
  }
  const data = document.toJS() as unknown;
  const isObject = data !== null && typeof data === 'object' && !Array.isArray(data);
  return { raw: frontmatter.raw, data: isObject ? (data as Record<string, unknown>) : null, line: frontmatter.line };
}

function requiresEdges(frontmatter: Frontmatter | null, data: Record<string, unknown> | null | undefined): Omit<Edge, 'resolved'>[] {
  if (!frontmatter || !data || !isMap(frontmatter.document.contents)) return [];
  const list = frontmatter.document.get('requires', true);
  if (!isSeq(list)) return [];
  return list.items.flatMap((item) => {
    if (!isScalar(item) || typeof item.value !== 'string' || !item.range) return [];
    return [{ kind: 'requires' as const, target: item.value, ...frontmatterPosition(frontmatter, item.range[0]) }];
  });
}

function linkChildren(nodes: IrNode[]): void {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  for (const node of nodes) {
    if (!node.parent) continue;
    const parent = byId.get(node.parent);
    if (parent) (parent.children ??= []).push(node.id);
  }
}

/** Fills `resolved` on every edge: the id of the node it names, or null. */
function resolveEdges(nodes: IrNode[]): void {
  const byPath = new Map(nodes.map((node) => [node.path, node.id]));
  const ids = new Set(nodes.map((node) => node.id));
  for (const node of nodes) {
    for (const edge of node.edges) {
      edge.resolved = resolveEdge(edge, byPath, ids);
    }
  }
}

function resolveEdge(edge: Edge, byPath: ReadonlyMap<string, string>, ids: ReadonlySet<string>): string | null {
  switch (edge.kind) {
    case 'include':
    case 'read':
      if (edge.external) return null;
      return byPath.get(edge.target) ?? (GENERATED_PATHS.has(edge.target) ? `generated:${edge.target}` : null);
    case 'spawn':
      return ids.has(`agent:${edge.target}`) ? `agent:${edge.target}` : edge.target === 'general-purpose' ? 'builtin:general-purpose' : null;
    case 'slash':
    case 'skill':
    case 'requires':
      return ids.has(`command:${edge.target}`) ? `command:${edge.target}` : null;
  }
}
