// PROJECT.md evolves as each phase closes (the per-phase transition): the
// requirements the phase proved move under `### Validated`, the decisions
// STATE.md logged for it join the Key Decisions table, and the footer says
// when. Pure text-to-text; re-running it adds nothing twice.
import { fenceMask, fromDoc, headings, sectionRange, toDoc } from '../md/body.ts';
import { appendBullet } from '../md/sections.ts';

export interface Evolution {
  phase: string;
  date: string;
  /** Requirement ids with their text from REQUIREMENTS.md. */
  requirements: { id: string; text: string }[];
  /** `summary — rationale` texts STATE.md holds under `[Phase N]:`. */
  decisions: string[];
}

const PLACEHOLDER = /^\s*\[[^\]]*\]\s*$/;

/** `- [x] **ID**: text` lines of REQUIREMENTS.md for `ids`, in that order (an id without a line keeps an empty text). */
export function requirementTexts(requirements: string, ids: readonly string[]): { id: string; text: string }[] {
  const lines = requirements.split(/\r?\n/);
  return ids.map((id) => {
    const line = lines.find((l) => l.includes(`**${id}**`) && /^\s*[-*]\s+\[/.test(l));
    const text = line ? line.slice(line.indexOf(`**${id}**`) + id.length + 4).replace(/^\s*:\s*/, '').trim() : '';
    return { id, text };
  });
}

/** Decisions of STATE.md tagged for `phase` (`- [Phase 3]: summary — rationale`), tags removed. */
export function phaseDecisions(state: string, phase: string): string[] {
  const tag = `[Phase ${phase}]:`;
  return state
    .split(/\r?\n/)
    .map((l) => /^\s*[-*]\s+(.*)$/.exec(l)?.[1] ?? '')
    .filter((t) => t.startsWith(tag))
    .map((t) => t.slice(tag.length).trim());
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').trim();
}

/** PROJECT.md after the phase's transition, and what was added. */
export function evolveProject(text: string, e: Evolution): { text: string; validated: string[]; decisions: string[] } {
  const doc = toDoc(text);
  const validated: string[] = [];
  const added: string[] = [];
  const hs = () => headings(doc.lines, fenceMask(doc.lines));
  const v = hs().find((h) => h.level === 3 && /^validated\b/i.test(h.text));
  if (v) {
    let [start, end] = sectionRange(doc.lines, v, hs());
    for (let i = end - 1; i >= start; i--) {
      if (PLACEHOLDER.test(doc.lines[i]!)) {
        doc.lines.splice(i, 1);
        end -= 1;
      }
    }
    for (const r of e.requirements) {
      if (doc.lines.slice(start, end).some((l) => l.includes(`**${r.id}**`))) continue;
      appendBullet(doc, [start, end], `✓ **${r.id}**${r.text ? `: ${r.text}` : ''} — Phase ${e.phase}`);
      [start, end] = sectionRange(doc.lines, hs().find((h) => h.index === v.index)!, hs());
      validated.push(r.id);
    }
  }
  const k = hs().find((h) => h.level === 2 && /^key decisions\b/i.test(h.text));
  if (k) {
    const [start, end] = sectionRange(doc.lines, k, hs());
    const rows = doc.lines.slice(start, end);
    let last = -1;
    rows.forEach((l, i) => {
      if (/^\s*\|/.test(l)) last = start + i;
    });
    if (last >= 0) {
      const fresh = e.decisions.filter((d) => {
        const [summary] = d.split(' — ');
        return !rows.some((l) => l.includes(cell(summary!)));
      });
      const lines = fresh.map((d) => {
        const at = d.indexOf(' — ');
        const [summary, rationale] = at < 0 ? [d, ''] : [d.slice(0, at), d.slice(at + 3)];
        return `| ${cell(summary!)} | ${cell(rationale!) || '-'} | ${e.date} |`;
      });
      doc.lines.splice(last + 1, 0, ...lines);
      added.push(...fresh);
    }
  }
  if (validated.length || added.length) {
    const at = doc.lines.findIndex((l) => /^\*Last updated: .*\*\s*$/.test(l));
    if (at >= 0) doc.lines[at] = `*Last updated: ${e.date} after phase ${e.phase}*`;
  }
  return { text: fromDoc(doc), validated, decisions: added };
}
