// Frontmatter dialects as data: each target lists the keys it writes and
// where their values come from; `yaml` serialises them.
import { Document, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { FrontmatterRule, ToolMap } from '../targets/target-types.ts';
import { listItems } from '../util/list-items.ts';

export interface FrontmatterInput {
  /** The source frontmatter values. */
  data: Record<string, unknown>;
  /** Command stem or agent name. */
  name: string;
  version: string;
  toolMaps: Record<string, ToolMap>;
  /** Rewrites source strings for the target (command mentions, install root). */
  renderValue: (text: string) => string;
}

/**
 * Serialised frontmatters by the shape of their node tree: most of an --all
 * build's frontmatters are the same nodes in several bundles (a target's two
 * scopes, targets with the same dialect), and serialising is the costly part.
 * Emptied when full, so a long watch session stays bounded.
 */
const serialised = new Map<string, string>();
const SERIALISED_KEPT = 20_000;

/** YAML text (ending in a newline) for the rules applied to the input; '' when no key applies. */
export function renderFrontmatter(rules: readonly FrontmatterRule[], input: FrontmatterInput): string {
  const map = buildMap(rules, input);
  if (map.items.length === 0) return '';
  const shape = shapeOf(map);
  const key = shape === null ? null : JSON.stringify(shape);
  let text = key === null ? undefined : serialised.get(key);
  if (text === undefined) {
    text = new Document(map).toString({ lineWidth: 0, minContentWidth: 0 });
    if (key !== null) {
      if (serialised.size >= SERIALISED_KEPT) serialised.clear();
      serialised.set(key, text);
    }
  }
  return text;
}

/**
 * Everything of a node tree built here that its YAML text depends on: node
 * kinds, values and their types, quoting, flow. Null when a value is not a
 * plain string, finite-or-not number, boolean or null (a nested object from
 * the source, say): such a frontmatter is serialised every time.
 */
function shapeOf(node: unknown): unknown[] | null {
  if (node instanceof Scalar) {
    const { value } = node;
    // Numbers as their text (JSON writes NaN, Infinity and -0 as null and 0).
    if (typeof value === 'number') return ['n', Object.is(value, -0) ? '-0' : String(value), node.type ?? null];
    if (typeof value === 'string' || typeof value === 'boolean' || value === null) return ['s', typeof value, value, node.type ?? null];
    return null;
  }
  const parts: unknown[] = [];
  if (node instanceof YAMLSeq) {
    for (const item of node.items) parts.push(shapeOf(item));
  } else if (node instanceof YAMLMap) {
    for (const pair of node.items) parts.push(shapeOf(pair.key), shapeOf(pair.value));
  } else return null;
  if (parts.includes(null)) return null;
  return [node instanceof YAMLSeq ? 'q' : 'm', node.flow ?? false, parts];
}

function buildMap(rules: readonly FrontmatterRule[], input: FrontmatterInput): YAMLMap {
  const map = new YAMLMap();
  for (const rule of rules) {
    const node = rule.object ? nonEmpty(buildMap(rule.object, input)) : rule.permissions ? nonEmpty(permissionsNode(rule.permissions, input)) : valueNode(rule, input);
    if (node) map.add({ key: new Scalar(rule.key), value: node });
  }
  return map;
}

function nonEmpty(map: YAMLMap): YAMLMap | null {
  return map.items.length > 0 ? map : null;
}

function valueNode(rule: FrontmatterRule, input: FrontmatterInput): Scalar | YAMLSeq | YAMLMap | null {
  let value = sourceValue(rule, input);
  if (value === undefined || value === null) return null;
  if (rule.omitEmpty && (value === '' || (Array.isArray(value) && value.length === 0))) return null;
  if (Array.isArray(value) || (rule.toolMap && typeof value === 'string')) {
    const items = mapTools(listItems(value), rule.toolMap ? input.toolMaps[rule.toolMap] : undefined);
    if (rule.omitEmpty && items.length === 0) return null;
    return listNode(items, rule);
  }
  if (typeof value !== 'string') return scalar(value, rule.quote);
  let text = value;
  if (rule.singleLine) text = text.replace(/\s+/g, ' ').trim();
  if (rule.map && Object.hasOwn(rule.map, text)) text = rule.map[text]!;
  if (rule.maxLength !== undefined) text = truncate(text, rule.maxLength);
  return scalar(text, rule.quote);
}

function sourceValue(rule: FrontmatterRule, input: FrontmatterInput): unknown {
  if (rule.value !== undefined) {
    return typeof rule.value === 'string' ? rule.value.replaceAll('{name}', input.name).replaceAll('{version}', input.version) : rule.value;
  }
  if (rule.lookup) return rule.lookup[input.name];
  const value = input.data[rule.from!];
  // Source strings may mention commands or paths; literals are the target's own.
  return typeof value === 'string' ? input.renderValue(value) : value;
}

/** Maps tool names, dropping unmapped ones as the map says and repeats after mapping. */
export function mapTools(tools: readonly string[], toolMap: ToolMap | undefined): string[] {
  if (!toolMap) return [...tools];
  const mapped: string[] = [];
  for (const tool of tools) {
    const listed = Object.hasOwn(toolMap.map, tool) ? toolMap.map[tool] : undefined;
    const result = listed !== undefined ? listed : toolMap.otherwise === 'keep' ? tool : toolMap.otherwise === 'lowercase' ? tool.toLowerCase() : null;
    if (result !== null && !mapped.includes(result)) mapped.push(result);
  }
  return mapped;
}

function listNode(items: string[], rule: FrontmatterRule): Scalar | YAMLSeq | YAMLMap {
  if (rule.list === 'comma') return scalar(items.join(', '), rule.quote);
  if (rule.list === 'map') {
    const map = new YAMLMap();
    for (const item of items) map.add({ key: scalar(item, rule.quote), value: new Scalar(true) });
    return map;
  }
  const sequence = new YAMLSeq();
  for (const item of items) sequence.add(scalar(item, rule.quote));
  sequence.flow = rule.list === 'flow';
  return sequence;
}

/**
 * Each key the source tools grant gets `allow`, or no entry when `allow` is
 * absent (the runtime's own policy then applies); every other key gets `deny`.
 */
function permissionsNode(permissions: NonNullable<FrontmatterRule['permissions']>, input: FrontmatterInput): YAMLMap {
  const granted = new Set(mapTools(listItems(input.data['tools'] ?? input.data['allowed-tools']), input.toolMaps[permissions.toolMap]));
  const map = new YAMLMap();
  for (const key of permissions.keys) {
    if (!granted.has(key)) map.add({ key: new Scalar(key), value: new Scalar(permissions.deny) });
    else if (permissions.allow !== undefined) map.add({ key: new Scalar(key), value: new Scalar(permissions.allow) });
  }
  return map;
}

function scalar(value: unknown, quote: FrontmatterRule['quote']): Scalar {
  const node = new Scalar(value);
  if (typeof value === 'string') {
    if (quote === 'double') node.type = Scalar.QUOTE_DOUBLE;
    if (quote === 'single') node.type = Scalar.QUOTE_SINGLE;
  }
  return node;
}

/** Cuts to at most `max` code points, ending in "..." when cut. */
export function truncate(text: string, max: number): string {
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 3).join('').trimEnd()}...`;
}
