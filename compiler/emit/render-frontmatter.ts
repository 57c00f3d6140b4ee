// Frontmatter dialects as data: each target lists the keys it writes and
// where their values come from; `yaml` serialises them.
import { Document, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { FrontmatterRule } from '../targets/target-types.ts';

/** YAML text (ending in a newline) for the rules applied to `data`. */
export function renderFrontmatter(
  rules: readonly FrontmatterRule[],
  data: Record<string, unknown>,
  name: string,
  renderValue: (text: string) => string = (text) => text,
): string {
  const document = new Document(buildMap(rules, data, name, renderValue));
  return document.toString({ lineWidth: 0, minContentWidth: 0 });
}

type RenderValue = (text: string) => string;

function buildMap(rules: readonly FrontmatterRule[], data: Record<string, unknown>, name: string, renderValue: RenderValue): YAMLMap {
  const map = new YAMLMap();
  for (const rule of rules) {
    if (rule.object) {
      const inner = buildMap(rule.object, data, name, renderValue);
      if (inner.items.length > 0) map.add({ key: new Scalar(rule.key), value: inner });
      continue;
    }
    const node = valueNode(rule, data, name, renderValue);
    if (node) map.add({ key: new Scalar(rule.key), value: node });
  }
  return map;
}

function valueNode(rule: FrontmatterRule, data: Record<string, unknown>, name: string, renderValue: RenderValue): Scalar | YAMLSeq | null {
  let value: unknown = rule.value !== undefined ? rule.value.replaceAll('{name}', name) : data[rule.from!];
  if (value === undefined || value === null) return null;
  if (rule.omitEmpty && (value === '' || (Array.isArray(value) && value.length === 0))) return null;
  if (Array.isArray(value)) {
    if (rule.list === 'comma') return scalar(value.map(String).join(', '), rule);
    const sequence = new YAMLSeq();
    for (const item of value) sequence.add(new Scalar(item));
    sequence.flow = rule.list === 'flow';
    return sequence;
  }
  if (typeof value === 'string') {
    // Source values may mention commands or paths; literals are the target's own.
    if (rule.from !== undefined) value = renderValue(value as string);
    if (rule.map && (value as string) in rule.map) value = rule.map[value as string];
    if (rule.maxLength !== undefined) value = truncate(value as string, rule.maxLength);
  }
  return scalar(value, rule);
}

function scalar(value: unknown, rule: FrontmatterRule): Scalar {
  const node = new Scalar(value);
  if (rule.quote === 'double' && typeof value === 'string') node.type = Scalar.QUOTE_DOUBLE;
  return node;
}

/** Cuts to at most `max` code points, ending in "..." when cut. */
export function truncate(text: string, max: number): string {
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 3).join('').trimEnd()}...`;
}
