// REQUIREMENTS.md: `- [ ] **AUTH-01**: …` checkboxes and the Traceability
// table `| Requirement | Phase | Status |`. Completing an ID writes both, and
// so does reopening one (back to `[ ]` and Pending, e.g. after an undo).
import { escapeRegExp } from '../core/text.ts';
import { fenceMask, headings, sectionRange } from '../md/body.ts';

export interface MarkResult {
  text: string;
  marked: string[];
  already: string[];
  not_found: string[];
  table_unmatched: string[];
  write_set: { requirement: string; surface: 'checkbox' | 'traceability'; applied: boolean }[];
}

export function splitIds(words: string[]): string[] {
  return [
    ...new Set(
      words
        .join(' ')
        .replace(/[[\]"']/g, ' ')
        .split(/[\s,]+/)
        .filter((s) => s !== ''),
    ),
  ];
}


/** Tick `ids` and set their traceability status to Complete (or, with `complete` false, untick them and set Pending). */
export function markRequirements(text: string, ids: string[], complete = true): MarkResult {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const mask = fenceMask(lines);
  const hs = headings(lines, mask);
  const trace = hs.find((h) => /traceability/i.test(h.text));
  const [ts, te] = trace ? sectionRange(lines, trace, hs) : [0, 0];
  let statusCol = -1;
  let reqCol = 0;
  for (let i = ts; i < te; i++) {
    if (/^\s*\|/.test(lines[i]!) && /requirement|req/i.test(lines[i]!)) {
      const cells = lines[i]!.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
      statusCol = cells.findIndex((c) => /^status$/i.test(c));
      reqCol = Math.max(0, cells.findIndex((c) => /req/i.test(c)));
      break;
    }
  }
  const out: MarkResult = { text, marked: [], already: [], not_found: [], table_unmatched: [], write_set: [] };
  for (const id of ids) {
    const box = new RegExp(`^(\\s*[-*]\\s+)\\[( |x|X)\\](\\s+\\*\\*${escapeRegExp(id)}\\*\\*)`);
    let boxFound = false;
    let wasDone = false;
    let boxApplied = false;
    for (let i = 0; i < lines.length; i++) {
      if (mask[i]) continue;
      const m = box.exec(lines[i]!);
      if (!m) continue;
      boxFound = true;
      if ((m[2] !== ' ') === complete) wasDone = true;
      else {
        lines[i] = lines[i]!.replace(box, `$1${complete ? '[x]' : '[ ]'}$3`);
        boxApplied = true;
      }
    }
    let rowFound = false;
    let rowApplied = false;
    if (statusCol >= 0) {
      for (let i = ts; i < te; i++) {
        if (!/^\s*\|/.test(lines[i]!)) continue;
        const cells = lines[i]!.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
        if (cells[reqCol] !== id) continue;
        rowFound = true;
        if (/^complete/i.test(cells[statusCol] ?? '') !== complete) {
          cells[statusCol] = complete ? 'Complete' : 'Pending';
          lines[i] = `| ${cells.join(' | ')} |`;
          rowApplied = true;
        }
      }
    }
    if (boxFound) out.write_set.push({ requirement: id, surface: 'checkbox', applied: boxApplied });
    if (rowFound) out.write_set.push({ requirement: id, surface: 'traceability', applied: rowApplied });
    if (!boxFound && !rowFound) out.not_found.push(id);
    else if (boxApplied || rowApplied) out.marked.push(id);
    else if (wasDone || rowFound) out.already.push(id);
    if ((boxFound || rowFound) && !rowFound && statusCol >= 0) out.table_unmatched.push(id);
  }
  out.text = lines.join(eol);
  return out;
}
