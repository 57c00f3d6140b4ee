// load: source files → IR nodes with resolved edges. Pure: bytes in, IR and
// diagnostics out.
import { deserialize, serialize } from 'node:v8';
import { isMap, isSeq, isScalar } from 'yaml';
import { hashParts } from '../cache/build-cache.ts';
import { compareText, diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { CorpusIr, Edge, IrNode, NodeKind } from '../ir/types.ts';
import { classifyPath, DEFAULT_PAYLOAD, type Layout } from './layout.ts';
import { routerSpans } from './router-routes.ts';
import { extractReferences } from './extract-references.ts';
import { frontmatterPosition, parseMarkdownDocument, type Frontmatter } from './parse-document.ts';
import { parseSections, type WhenVocabulary } from './parse-sections.ts';
import { parseOnlyBlocks } from './parse-only-blocks.ts';
import { parseLoopPoints } from './parse-loop-points.ts';
import { scanLines } from './scan-lines.ts';
import { sourceDigest, type SourceFile } from './read-source-tree.ts';
import { knownNodeDigest, nodeDigest } from '../ir/node-digest.ts';

/** Kinds whose frontmatter is metadata; a template's frontmatter is example text. */
const FRONTMATTER_KINDS: ReadonlySet<NodeKind> = new Set(['command', 'agent']);
/** Kinds whose gsd:section markers are parsed and stripped at emit. */
const SECTIONED_KINDS: ReadonlySet<NodeKind> = new Set(['workflow', 'step', 'mode', 'agent']);
/** Files the compiler generates into every bundle, which prose may point at. */
export function generatedPaths(payload: string): ReadonlySet<string> {
  return new Set([`${payload}/bin/gsd-tools.cjs`, `${payload}/workflows/section-manifest.json`, `${payload}/VERSION`]);
}

export interface BuildIrResult {
  ir: CorpusIr;
  /** Files the layout ships verbatim (e.g. upstream's runtime code). */
  assets: SourceFile[];
  diagnostics: Diagnostic[];
  /** This run's nodes by file, for a later run over the same corpus (BuildIrOptions.earlier). */
  parsed: EarlierParse;
}

export interface BuildIrOptions {
  /** Fill each Markdown node's outline (a full remark parse; only `gsd-build ir` shows it). */
  outline?: boolean;
  /** Nodes built by an earlier run, to reuse instead of parsing the file again. */
  memo?: NodeMemo;
  /**
   * The nodes of an earlier run in this process (compile's first pass, before
   * capabilities are composed in), taken for each file it saw with the same
   * bytes and place, when it ran with the same layout and outline and this
   * run's when vocabulary holds the earlier one.
   */
  earlier?: EarlierParse;
}

export interface EarlierParse {
  layout: Layout;
  vocabulary: WhenVocabulary;
  outline: boolean;
  files: ReadonlyMap<string, { file: SourceFile; place: string; entry: MemoEntry }>;
}

/** The only findings a node's parse takes from the when vocabulary (parse-sections.ts): a node without them parses the same under a larger one. */
const VOCABULARY_CODES: ReadonlySet<string> = new Set(['marker-when-unevaluable', 'marker-unknown-when']);

/** Whether nodes parsed under `earlier` are the nodes a run under `vocabulary` would build. */
function widens(earlier: EarlierParse, layout: Layout, vocabulary: WhenVocabulary, outline: boolean): boolean {
  return earlier.layout === layout && earlier.outline === outline && earlier.vocabulary.table === vocabulary.table && [...earlier.vocabulary.atoms].every((atom) => vocabulary.atoms.has(atom));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || (a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b));
}

/**
 * A node depends only on its file's bytes, where the layout places it and
 * the parse settings; `salt` hashes the settings (and the compiler's
 * fingerprint), each key adds the file. Entries are serialised nodes with
 * their diagnostics, digest included (read back once per bytes: readBack).
 */
export interface NodeMemo {
  salt: string;
  previous: ReadonlyMap<string, Uint8Array>;
  /** Filled with the entries this build used: the next run's `previous`. */
  next: Map<string, Uint8Array>;
}

/**
 * Memo entries as read back, by their stored bytes: a resident build (watch)
 * keeps the bytes of an unchanged file's entry from one rebuild to the next,
 * and takes its node as the last build left it instead of deserialising it
 * again. Linking sets what it adds (children, each edge's target) anew.
 */
const readBack = new WeakMap<Uint8Array, MemoEntry>();

interface MemoEntry {
  /** The node as linking finds it: its variant already in its id. */
  node: IrNode;
  diagnostics: Diagnostic[];
  /** nodeDigest(node), taken when it was built. */
  digest: string;
}

export function buildIr(files: readonly SourceFile[], vocabulary: WhenVocabulary, layout: Layout, options: BuildIrOptions = {}): BuildIrResult {
  const diagnostics: Diagnostic[] = [];
  const nodes: IrNode[] = [];
  const assets: SourceFile[] = [];
  const outline = options.outline ?? false;
  const earlier = options.earlier && widens(options.earlier, layout, vocabulary, outline) ? options.earlier.files : undefined;
  const parsed = new Map<string, { file: SourceFile; place: string; entry: MemoEntry }>();
  for (const file of files) {
    const classified = classifyPath(layout, file.path);
    if (classified === 'ignored') continue;
    if (classified === 'asset') {
      assets.push(file);
      continue;
    }
    if (classified === 'unknown') {
      diagnostics.push(diagnostic(file.path, 1, 1, 'layout-unknown', 'expected a path of a corpus family (see compiler/data/layout.json), found none matching'));
      continue;
    }
    const memo = options.memo;
    const place = `${classified.kind}\0${classified.name}\0${classified.parent ?? ''}\0${classified.variant ?? ''}`;
    // The file by its digest: taken once per bytes (a resident build's unchanged file is the same bytes: read-source-tree.ts).
    const key = memo ? hashParts([memo.salt, layout.payload, file.path, classified.kind, classified.name, classified.parent ?? '', sourceDigest(file)]) : '';
    const stored = memo?.previous.get(key);
    let entry: MemoEntry | null = stored ? (readBack.get(stored) ?? null) : null;
    if (stored && !entry) {
      try {
        entry = deserialize(stored) as MemoEntry;
      } catch {
        entry = null;
      }
      // A stored entry is input like any other: one of another shape is built again.
      if (entry !== null && (typeof entry !== 'object' || typeof entry.digest !== 'string' || typeof entry.node !== 'object' || entry.node === null || !Array.isArray(entry.diagnostics))) entry = null;
      if (entry) readBack.set(stored, entry);
    }
    let fresh = false;
    if (!entry && earlier) {
      const seen = earlier.get(file.path);
      if (seen && seen.place === place && (seen.file === file || sameBytes(seen.file.bytes, file.bytes)) && !seen.entry.diagnostics.some((found) => VOCABULARY_CODES.has(found.code))) {
        entry = seen.entry;
        fresh = true;
      }
    }
    if (!entry) {
      const decoded = decodeUtf8(file);
      if ('error' in decoded) {
        diagnostics.push(decoded.error);
        continue;
      }
      const found: Diagnostic[] = [];
      const built = buildNode(file.path, classified.kind, classified.name, classified.parent, decoded.text, vocabulary, found, layout.routerPrefix, layout.payload, outline);
      if (classified.variant) {
        built.id = `${built.id}.${classified.variant}`;
        built.variant = classified.variant;
      }
      entry = { node: built, diagnostics: found, digest: nodeDigest(built) };
      fresh = true;
    }
    if (fresh) {
      if (memo) {
        const bytes = serialize(entry);
        memo.next.set(key, bytes);
        readBack.set(bytes, entry);
      }
    } else {
      memo!.next.set(key, stored!);
    }
    knownNodeDigest(entry!.node, entry!.digest);
    // The file, not its bytes: one whose digest the stamp index gave is not read for this (read-source-tree.ts).
    parsed.set(file.path, { file, place, entry: entry! });
    const node = entry!.node;
    diagnostics.push(...entry.diagnostics);
    nodes.push(node);
  }
  nodes.sort((a, b) => compareText(a.id, b.id));
  linkChildren(nodes);
  resolveEdges(nodes, new Set(assets.map((asset) => asset.path)), layout.external, generatedPaths(layout.payload));
  return { ir: { version: 1, ...(layout.payload === DEFAULT_PAYLOAD ? {} : { payload: layout.payload }), nodes }, assets, diagnostics, parsed: { layout, vocabulary, outline, files: parsed } };
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
  vocabulary: WhenVocabulary,
  diagnostics: Diagnostic[],
  routerPrefix: string | undefined,
  payload: string,
  withOutline: boolean,
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
  if (kind === 'hook') return base;
  if (!/\.md$/.test(path)) {
    // Other text (a JSON template, say) still names the install root.
    base.spans = extractReferences(scanLines(text), payload).spans.filter((span) => span.kind === 'root');
    return base;
  }

  const wantsFrontmatter = FRONTMATTER_KINDS.has(kind);
  const parsed = parseMarkdownDocument(text, wantsFrontmatter, withOutline);
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
  const loop = parseLoopPoints(path, lines);
  diagnostics.push(...loop.diagnostics);
  if (loop.points.length > 0) {
    base.loopPoints = loop.points;
    // Loop markers never reach a bundle: emit strips them with the section markers.
    base.markerLines = [...base.markerLines, ...loop.points.map((point) => point.line)].sort((a, b) => a - b);
  }
  const scanned = SECTIONED_KINDS.has(kind) ? lines : lines.map((line) => (line.kind === 'marker' ? { ...line, kind: 'comment' as const } : line));
  const references = extractReferences(scanned, payload);
  base.edges = [...requiresEdges(parsed.frontmatter, base.frontmatter?.data), ...references.edges].map((edge) => ({ ...edge, resolved: null }));
  // Frontmatter kept as written (agents) may name the install root too, e.g. in a commented hook.
  const frontmatterSpans = parsed.frontmatter ? extractReferences(scanLines(text.slice(0, parsed.bodyStart)), payload).spans.filter((span) => span.kind === 'root') : [];
  base.spans = [...frontmatterSpans, ...references.spans];
  if (kind === 'command' && routerPrefix && name.startsWith(routerPrefix)) {
    base.router = true;
    base.spans.push(...routerSpans(text, parsed.bodyStart));
  }
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
  // A node read back from the memo may carry the children the last build linked.
  for (const node of nodes) delete node.children;
  for (const node of nodes) {
    if (!node.parent) continue;
    const parent = byId.get(node.parent);
    if (parent) (parent.children ??= []).push(node.id);
  }
}

/** Fills `resolved` on every edge: the id of the node it names, or null. */
function resolveEdges(nodes: IrNode[], assets: ReadonlySet<string>, external: readonly RegExp[], generated: ReadonlySet<string>): void {
  const context: Resolution = {
    byPath: new Map(nodes.map((node) => [node.path, node.id])),
    ids: new Set(nodes.map((node) => node.id)),
    commandAliases: commandAliases(nodes),
    assets,
    assetFolders: new Set(
      [...assets].flatMap((asset) => {
        const parts = asset.split('/');
        return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('/'));
      }),
    ),
    external,
    generated,
  };
  for (const node of nodes) {
    for (const edge of node.edges) {
      // A node read back from the memo was linked with the same patterns (the layout is in its key).
      if (external.some((pattern) => pattern.test(edge.target))) edge.external = true;
      edge.resolved = resolveEdge(edge, context);
    }
  }
}

interface Resolution {
  byPath: ReadonlyMap<string, string>;
  ids: ReadonlySet<string>;
  commandAliases: ReadonlyMap<string, string>;
  assets: ReadonlySet<string>;
  assetFolders: ReadonlySet<string>;
  external: readonly RegExp[];
  generated: ReadonlySet<string>;
}

/** A command is also known by its frontmatter name (e.g. router ns-workflow as gsd-workflow). */
function commandAliases(nodes: readonly IrNode[]): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const node of nodes) {
    if (node.kind !== 'command') continue;
    aliases.set(node.name, node.id);
    const declared = node.frontmatter?.data?.['name'];
    if (typeof declared === 'string') aliases.set(declared.replace(/^gsd[:-]/, ''), node.id);
  }
  return aliases;
}

function resolveEdge(edge: Edge, context: Resolution): string | null {
  switch (edge.kind) {
    case 'include':
    case 'read':
      if (edge.external) return null;
      if (context.byPath.has(edge.target)) return context.byPath.get(edge.target)!;
      if (context.generated.has(edge.target)) return `generated:${edge.target}`;
      if (context.assets.has(edge.target) || context.assetFolders.has(edge.target)) return `asset:${edge.target}`;
      return null;
    case 'spawn':
      return context.ids.has(`agent:${edge.target}`) ? `agent:${edge.target}` : edge.target === 'general-purpose' ? 'builtin:general-purpose' : null;
    case 'slash':
    case 'skill':
    case 'requires':
      return context.commandAliases.get(edge.target) ?? null;
  }
}
