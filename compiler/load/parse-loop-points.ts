// Loop points: `<!-- gsd:loop point="plan:pre" roles="planner" consumes="CONTEXT.md" -->`,
// a whole line outside fences and comments (scan-lines classifies it), where
// capabilities splice their contributions at build time. The attributes use
// the gsd:section attribute syntax; which points exist, where they live and
// which roles there are is data (compiler/data/loop-points.json).
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.ts';
import { commentInner, type ScannedLine } from './scan-lines.ts';
import { parseAttributes } from './parse-sections.ts';
import loopData from '../data/loop-points.json' with { type: 'json' };

export interface LoopPoint {
  point: string;
  /** Who acts at the point: role names of loop-points.json. */
  roles: string[];
  /** Artifacts that exist once the point is reached (produced before it). */
  produces: string[];
  /** Artifacts the work after the point reads. */
  consumes: string[];
  /** File line and column of the marker. */
  line: number;
  column: number;
}

export interface LoopPointSpec {
  point: string;
  workflow: string;
}

export const LOOP_POINTS: readonly LoopPointSpec[] = loopData.points;
/** Role → the agent that plays it (null: the orchestrator itself). */
export const LOOP_ROLES: Readonly<Record<string, string | null>> = loopData.roles;

const KEYS = new Set(['point', 'roles', 'produces', 'consumes']);
const LIST_ITEM = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function parseLoopPoints(file: string, lines: readonly ScannedLine[]): { points: LoopPoint[]; diagnostics: Diagnostic[] } {
  const points: LoopPoint[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Map<string, number>();
  const known = new Set(LOOP_POINTS.map((spec) => spec.point));
  for (const scanned of lines) {
    if (scanned.kind !== 'loop') continue;
    const column = scanned.content.indexOf('<!--') + 1;
    const report = (at: number, code: DiagnosticCode, message: string) => diagnostics.push(diagnostic(file, scanned.line, at, code, message));
    const inner = commentInner(scanned.content.trim());
    if (inner.startsWith('/')) {
      report(column, 'loop-malformed', `expected a single <!-- gsd:loop point="..." roles="..." --> line (loop points have no close marker), found "${scanned.content.trim()}"`);
      continue;
    }
    const attributeText = inner.slice('gsd:loop'.length);
    const attributes = parseAttributes(attributeText, scanned.content.indexOf(inner) + 'gsd:loop'.length);
    if (typeof attributes === 'string') {
      report(column, 'loop-malformed', `expected key="value" attributes, found ${attributes}`);
      continue;
    }
    const unknown = [...attributes.keys()].find((key) => !KEYS.has(key));
    if (unknown !== undefined) {
      report(attributes.get(unknown)!.column, 'loop-malformed', `expected only point, roles, produces and consumes, found "${unknown}"`);
      continue;
    }
    const pointAttribute = attributes.get('point');
    const rolesAttribute = attributes.get('roles');
    if (!pointAttribute || !rolesAttribute) {
      report(column, 'loop-malformed', `expected point="..." and roles="..." attributes, found no ${pointAttribute ? 'roles' : 'point'}`);
      continue;
    }
    if (!known.has(pointAttribute.value)) {
      report(pointAttribute.column, 'loop-unknown-point', `expected one of ${[...known].join(', ')}, found "${pointAttribute.value}"`);
      continue;
    }
    // A bad list is reported and left empty; the point itself still counts, so no loop-missing-point follows.
    const lists: Record<'roles' | 'produces' | 'consumes', string[]> = { roles: [], produces: [], consumes: [] };
    for (const key of ['roles', 'produces', 'consumes'] as const) {
      const attribute = attributes.get(key);
      if (!attribute) continue;
      const items = attribute.value.split(',').map((item) => item.trim());
      const wrong = items.find((item) => !LIST_ITEM.test(item));
      if (wrong !== undefined) {
        report(attribute.column, 'loop-malformed', `expected ${key} as a comma list of names like "PLAN.md", found "${attribute.value}"`);
        continue;
      }
      if (key === 'roles') {
        const role = items.find((item) => !Object.prototype.hasOwnProperty.call(LOOP_ROLES, item));
        if (role !== undefined) {
          report(attribute.column, 'loop-unknown-role', `expected roles from ${Object.keys(LOOP_ROLES).join(', ')}, found "${role}"`);
          continue;
        }
      }
      lists[key] = items;
    }
    const previous = seen.get(pointAttribute.value);
    if (previous !== undefined) {
      report(pointAttribute.column, 'loop-duplicate-point', `expected loop point "${pointAttribute.value}" once per file, found it again (first at line ${previous})`);
      continue;
    }
    seen.set(pointAttribute.value, scanned.line);
    points.push({ point: pointAttribute.value, ...lists, line: scanned.line, column });
  }
  return { points, diagnostics };
}
