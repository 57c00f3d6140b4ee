// Text-to-text edits of ROADMAP.md. Each edit re-parses the text it gets, so
// edits compose without tracking shifting line numbers.
import { comparePhase, displayPhase, normalizePhase, parsePhaseId } from './phases.ts';
import { formatRow, parseRoadmap, phaseHeadingText, type Roadmap } from './roadmap.ts';

function join(rm: Roadmap, lines: string[]): string {
  return lines.join(rm.eol);
}

function trimEnd(lines: string[], from: number, to: number): number {
  let end = to;
  while (end > from && lines[end - 1]!.trim() === '') end--;
  return end;
}

export function setBulletChecked(text: string, file: string, phase: string, checked: boolean): string {
  const rm = parseRoadmap(text, file);
  const b = rm.bullets.find((x) => x.norm === normalizePhase(phase));
  if (!b) return text;
  const lines = [...rm.lines];
  lines[b.line] = lines[b.line]!.replace(/\[( |x|X)\]/, checked ? '[x]' : '[ ]');
  return join(rm, lines);
}

/**
 * Set the checkbox of every plan line (`- [ ] 03-02 …`) in a phase's section:
 * ticked when the plan is in `doneIds`, unticked otherwise, so the roadmap
 * follows the disk both ways (a reverted plan loses its tick).
 */
export function syncPlanBoxes(text: string, file: string, phase: string, doneIds: string[]): string {
  const rm = parseRoadmap(text, file);
  const p = rm.allPhases.find((x) => x.norm === normalizePhase(phase));
  if (!p) return text;
  const lines = [...rm.lines];
  for (let i = p.start; i < p.end; i++) {
    const m = /^(\s*[-*]\s+)\[([ xX])\](\s+)(\d[\dA-Z.]*-\d{2,3})\b/.exec(lines[i]!);
    if (!m) continue;
    const [ph, pl] = [m[4]!.replace(/-\d{2,3}$/, ''), m[4]!.slice(m[4]!.lastIndexOf('-') + 1)];
    const box = doneIds.includes(`${normalizePhase(ph)}-${pl}`) ? '[x]' : '[ ]';
    lines[i] = `${m[1]}${box}${lines[i]!.slice(m[1]!.length + 3)}`;
  }
  return join(rm, lines);
}

export interface RowValues {
  name: string;
  plans: string;
  status: string;
  completed: string;
}

/** Set a phase's Progress row, adding one in phase order when missing. */
export function upsertProgressRow(text: string, file: string, phase: string, v: RowValues): string {
  const rm = parseRoadmap(text, file);
  const t = rm.progress;
  if (!t) return text;
  const lines = [...rm.lines];
  const norm = normalizePhase(phase);
  const row = t.rows.find((r) => r.norm === norm);
  const width = t.columns.length;
  const set = (cells: string[]) => {
    while (cells.length < width) cells.push('');
    if (t.col.plans >= 0) cells[t.col.plans] = v.plans;
    if (t.col.status >= 0) cells[t.col.status] = v.status;
    if (t.col.completed >= 0) cells[t.col.completed] = v.completed;
    return cells;
  };
  if (row) {
    lines[row.line] = formatRow(set([...row.cells]));
    return join(rm, lines);
  }
  const cells = set(new Array(width).fill('-'));
  cells[t.col.phase] = `${displayPhase(phase)}. ${v.name}`;
  const after = [...t.rows].reverse().find((r) => r.norm !== null && comparePhase(r.norm, norm) < 0);
  const at = after ? after.line + 1 : t.rows.length ? t.rows[0]!.line : t.header + 2;
  lines.splice(at, 0, formatRow(cells));
  return join(rm, lines);
}

export function removeProgressRow(text: string, file: string, phase: string): string {
  const rm = parseRoadmap(text, file);
  const row = rm.progress?.rows.find((r) => r.norm === normalizePhase(phase));
  if (!row) return text;
  const lines = [...rm.lines];
  lines.splice(row.line, 1);
  return join(rm, lines);
}

export interface NewPhase {
  number: string;
  name: string;
  tag?: string;
  goal?: string;
  dependsOn?: string;
}

/** Insert a phase section, its checklist bullet and its Progress row, keeping phase order. */
export function insertPhase(text: string, file: string, np: NewPhase): string {
  let rm = parseRoadmap(text, file);
  const norm = normalizePhase(np.number);
  const lines = [...rm.lines];
  const level = rm.phases[0]?.level ?? rm.allPhases[0]?.level ?? 3;
  const section = [
    phaseHeadingText(level, np.number, np.name, np.tag),
    '',
    `**Goal**: ${np.goal ?? '[To be planned]'}`,
    `**Depends on**: ${np.dependsOn ?? 'Nothing'}`,
    '**Requirements**: TBD',
    '**Plans**: TBD',
  ];
  const before = [...rm.phases].filter((p) => comparePhase(p.norm, norm) < 0).pop();
  let at: number;
  if (before) at = trimEnd(lines, before.start, before.end);
  else if (rm.phases[0]) at = rm.phases[0].line;
  else {
    const details = rm.headings.find((h) => /^phase details/i.test(h.text));
    const progress = rm.headings.find((h) => /^progress\b/i.test(h.text));
    at = details ? trimEnd(lines, details.index, lines.length) : progress ? progress.index : trimEnd(lines, 0, lines.length);
    if (progress && at > progress.index) at = progress.index;
  }
  const block = before ? ['', ...section] : [...section, ''];
  if (!before && at > 0 && lines[at - 1]!.trim() !== '') block.unshift('');
  lines.splice(at, 0, ...block);
  let out = join(rm, lines);
  // Checklist bullet.
  rm = parseRoadmap(out, file);
  if (rm.bullets.length) {
    const lines2 = [...rm.lines];
    const prev = [...rm.bullets].filter((b) => comparePhase(b.norm, norm) < 0).pop();
    const bulletAt = prev ? prev.line + 1 : rm.bullets[0]!.line;
    const indent = /^(\s*)/.exec(lines2[rm.bullets[0]!.line]!)![1];
    lines2.splice(bulletAt, 0, `${indent}- [ ] **Phase ${displayPhase(np.number)}: ${np.name}**${np.tag ? ` (${np.tag})` : ''}`);
    out = join(rm, lines2);
  }
  return upsertProgressRow(out, file, np.number, { name: np.name, plans: '0/0', status: 'Not started', completed: '-' });
}

/** Remove a phase's section, bullet and Progress row. */
export function deletePhase(text: string, file: string, phase: string): string {
  let rm = parseRoadmap(text, file);
  const norm = normalizePhase(phase);
  const p = rm.allPhases.find((x) => x.norm === norm);
  let lines = [...rm.lines];
  if (p) {
    let end = p.end;
    // Take the blank lines after the section with it, leaving one separator.
    lines.splice(p.line, end - p.line);
    while (p.line < lines.length && lines[p.line]!.trim() === '' && p.line > 0 && lines[p.line - 1]!.trim() === '') lines.splice(p.line, 1);
    void end;
  }
  let out = join(rm, lines);
  rm = parseRoadmap(out, file);
  const b = rm.bullets.find((x) => x.norm === norm);
  if (b) {
    lines = [...rm.lines];
    lines.splice(b.line, 1);
    out = join(rm, lines);
  }
  return removeProgressRow(out, file, phase);
}

/**
 * Renumber phases: every `Phase X` reference in headings, bullets, Progress
 * rows and Depends-on lines whose number is a key of `mapping` (normalised).
 */
export function renumberPhases(text: string, file: string, mapping: Map<string, string>): string {
  if (mapping.size === 0) return text;
  const rm = parseRoadmap(text, file);
  const lines = [...rm.lines];
  const swap = (num: string) => {
    const to = mapping.get(normalizePhase(num));
    return to === undefined ? num : /^0\d/.test(num) ? normalizePhase(to) : displayPhase(to);
  };
  const PHASE_REF = /\b(Phase\s+)(\d{1,4}[A-Z]?(?:\.\d{1,3})*)\b/g;
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    line = line.replace(PHASE_REF, (_m, pre: string, num: string) => `${pre}${swap(num)}`);
    const row = rm.progress?.rows.find((r) => r.line === i);
    if (row) line = line.replace(/^(\|\s*)(\d{1,4}[A-Z]?(?:\.\d{1,3})*)\b/, (_m, pre: string, num: string) => `${pre}${swap(num)}`);
    // Plan checklist lines `- [ ] 04-01: …`.
    line = line.replace(/^(\s*[-*]\s+\[[ xX]\]\s+)(\d{1,4}[A-Z]?(?:\.\d{1,3})*)(-\d{2,3}\b)/, (_m, pre: string, num: string, rest: string) =>
      parsePhaseId(num) ? `${pre}${mapping.has(normalizePhase(num)) ? normalizePhase(mapping.get(normalizePhase(num))!) : num}${rest}` : _m,
    );
    lines[i] = line;
  }
  return join(rm, lines);
}

/** Fields of a phase section that `phase edit` may set, as they are spelled in ROADMAP.md. */
export const EDITABLE_FIELDS = ['Goal', 'Mode', 'Depends on', 'Requirements'] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];

/**
 * Set `**Field**: value` lines of one phase's section; a field the section
 * lacks is added after the last field line that precedes it in EDITABLE_FIELDS
 * order (else right under the heading). Returns the text and what changed.
 */
export function editPhaseFields(text: string, file: string, phase: string, values: Partial<Record<EditableField, string>>): { text: string; changed: EditableField[] } {
  const rm = parseRoadmap(text, file);
  const p = rm.allPhases.find((x) => x.norm === normalizePhase(phase));
  if (!p) throw new Error(`${file}: phase ${displayPhase(phase)} has no section; expected a "Phase ${displayPhase(phase)}: <name>" heading`);
  const lines = [...rm.lines];
  const changed: EditableField[] = [];
  let end = p.end;
  for (const name of EDITABLE_FIELDS) {
    const value = values[name];
    if (value === undefined) continue;
    const re = new RegExp(`^(\\s*(?:[-*]\\s+)?\\*\\*${name}(?::\\*\\*|\\*\\*\\s*:?)\\s*)(.*)$`, 'i');
    const at = lines.slice(p.start, end).findIndex((l) => re.test(l));
    const line = value.replace(/\r?\n/g, ' ').trim();
    if (at >= 0) {
      const i = p.start + at;
      const next = lines[i]!.replace(re, (_m, head: string) => `${head}${line}`);
      if (next !== lines[i]) changed.push(name);
      lines[i] = next;
    } else {
      const earlier = EDITABLE_FIELDS.slice(0, EDITABLE_FIELDS.indexOf(name));
      let insertAt = p.line + 1;
      while (insertAt < end && lines[insertAt]!.trim() === '') insertAt++;
      for (let i = p.start; i < end; i++) if (earlier.some((e) => new RegExp(`^\\s*\\*\\*${e}`, 'i').test(lines[i]!))) insertAt = i + 1;
      lines.splice(insertAt, 0, `**${name}**: ${line}`);
      end += 1;
      changed.push(name);
    }
  }
  return { text: join(rm, lines), changed };
}

/**
 * The parts of a user story, "As a <role>, I want to <capability>, so that
 * <outcome>." (also "As an"), or null when the text is not one. Plain index
 * search, no pattern over the user's text.
 */
export function parseUserStory(text: string): { role: string; capability: string; outcome: string } | null {
  const t = text.replace(/\s+/g, ' ').trim();
  const low = t.toLowerCase();
  const head = low.startsWith('as an ') ? 6 : low.startsWith('as a ') ? 5 : -1;
  if (head < 0 || !t.endsWith('.')) return null;
  const want = low.indexOf(', i want to ', head);
  if (want < 0) return null;
  const so = low.indexOf(', so that ', want + 12);
  if (so < 0) return null;
  const role = t.slice(head, want).trim();
  const capability = t.slice(want + 12, so).trim();
  const outcome = t.slice(so + 10, -1).trim();
  return role && capability && outcome ? { role, capability, outcome } : null;
}
