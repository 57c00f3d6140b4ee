// The gsd:section marker grammar: whole-line open and close markers around a
// contiguous run of lines, `id` and `when` required, `when` one atom of the
// layout's when vocabulary, no nesting. Unmarked runs become gap sections so that
// the sections partition the body.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { commentInner, type ScannedLine } from './scan-lines.ts';

export interface Section {
  id: string;
  when: string;
  /** false for the synthesized gap sections between markers. */
  explicit: boolean;
  /** File line of the first content line (after the open marker). */
  startLine: number;
  /** File line of the last content line; startLine - 1 when empty. */
  endLine: number;
  /** File line of the open marker (explicit sections only). */
  markerLine?: number;
}

/**
 * The atoms a marker's `when` may name. `table` is set when they are the
 * runtime CLI's own predicate table (the file that defines them): an atom
 * outside it is one the runtime's section selection cannot evaluate.
 */
export interface WhenVocabulary {
  atoms: ReadonlySet<string>;
  table: string | null;
}

export interface ParsedSections {
  sections: Section[];
  /** Lines that are markers and are stripped at emit. */
  markerLines: ScannedLine[];
  diagnostics: Diagnostic[];
}

const ID = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const ATTRIBUTE = /\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*"([^"]*)"\s*/y;

interface MarkerAttribute {
  value: string;
  column: number;
}

export function parseSections(
  file: string,
  lines: readonly ScannedLine[],
  vocabulary: WhenVocabulary,
): ParsedSections {
  const diagnostics: Diagnostic[] = [];
  const sections: Section[] = [];
  const markerLines: ScannedLine[] = [];
  const seenIds = new Map<string, number>();
  let open: { id: string; when: string; line: number; column: number } | null = null;
  let gapCount = 0;
  const firstLine = lines[0]?.line ?? 1;
  let cursor = firstLine;

  const flushGap = (endLine: number) => {
    if (endLine >= cursor) {
      sections.push({ id: `gap-${gapCount++}`, when: 'always', explicit: false, startLine: cursor, endLine });
    }
  };

  for (const scanned of lines) {
    if (scanned.kind !== 'marker') continue;
    markerLines.push(scanned);
    const report = (column: number, code: Parameters<typeof diagnostic>[3], message: string) =>
      diagnostics.push(diagnostic(file, scanned.line, column, code, message));
    const markerColumn = scanned.content.indexOf('<!--') + 1;
    const trimmed = scanned.content.trim();
    const inner = commentInner(trimmed);
    if (inner.startsWith('/')) {
      if (inner !== '/gsd:section') {
        report(markerColumn, 'marker-close-with-attributes', `expected "<!-- /gsd:section -->", found "${trimmed}"`);
        continue;
      }
      if (!open) {
        report(markerColumn, 'marker-unmatched-close', 'expected an open gsd:section before this close marker, found none');
        continue;
      }
      if (open.id) {
        sections.push({
          id: open.id,
          when: open.when,
          explicit: true,
          startLine: open.line + 1,
          endLine: scanned.line - 1,
          markerLine: open.line,
        });
      }
      open = null;
      cursor = scanned.line + 1;
      continue;
    }

    // An open marker: check its attributes in a fixed order.
    const attributeText = inner.slice('gsd:section'.length);
    const attributeOffset = scanned.content.indexOf(inner) + 'gsd:section'.length;
    const attributes = parseAttributes(attributeText, attributeOffset);
    let id = '';
    let when = '';
    if (typeof attributes === 'string') {
      report(markerColumn, 'marker-malformed-attributes', `expected key="value" attributes, found ${attributes}`);
    } else {
      const unknown = [...attributes.keys()].find((key) => key !== 'id' && key !== 'when');
      if (unknown !== undefined) {
        report(attributes.get(unknown)!.column, 'marker-unrecognized-attribute', `expected only id and when, found "${unknown}"`);
      } else if (!attributes.has('id')) {
        report(markerColumn, 'marker-missing-id', 'expected an id="..." attribute, found none');
      } else if (!attributes.has('when')) {
        report(markerColumn, 'marker-missing-when', 'expected a when="..." attribute, found none');
      } else {
        const idAttribute = attributes.get('id')!;
        const whenAttribute = attributes.get('when')!;
        if (!ID.test(idAttribute.value)) {
          report(idAttribute.column, 'marker-malformed-id', `expected a lowercase kebab-case id, found "${idAttribute.value}"`);
        } else if (!vocabulary.atoms.has(whenAttribute.value)) {
          if (vocabulary.table) {
            report(
              whenAttribute.column,
              'marker-when-unevaluable',
              `expected an atom the runtime CLI's section selection evaluates (${vocabulary.table}: ${[...vocabulary.atoms].sort().join(', ')}), found "${whenAttribute.value}"`,
            );
          } else {
            report(
              whenAttribute.column,
              'marker-unknown-when',
              `expected one atom of the when vocabulary (e.g. "flag:--auto", "state:has-prior-phases"), found "${whenAttribute.value}"`,
            );
          }
        } else {
          id = idAttribute.value;
          when = whenAttribute.value;
        }
      }
    }

    if (open) {
      report(markerColumn, 'marker-nested', `expected "<!-- /gsd:section -->" closing the section opened at line ${open.line} first, found another open marker`);
      continue;
    }
    if (id) {
      const previous = seenIds.get(id);
      if (previous !== undefined) {
        report(markerColumn, 'marker-duplicate-id', `expected a unique id, found "${id}" again (first at line ${previous})`);
      } else {
        seenIds.set(id, scanned.line);
      }
    }
    flushGap(scanned.line - 1);
    open = { id, when, line: scanned.line, column: markerColumn };
  }

  if (open) {
    diagnostics.push(
      diagnostic(file, open.line, open.column, 'marker-unclosed', 'expected "<!-- /gsd:section -->" before the end of the file, found none'),
    );
  } else {
    const lastLine = lines.length > 0 ? lines[lines.length - 1]!.line : firstLine - 1;
    flushGap(lastLine);
  }
  return { sections, markerLines, diagnostics };
}

/** Attributes by key, or a description of what could not be parsed. */
function parseAttributes(text: string, offset: number): Map<string, MarkerAttribute> | string {
  const attributes = new Map<string, MarkerAttribute>();
  ATTRIBUTE.lastIndex = 0;
  let position = 0;
  while (position < text.length) {
    ATTRIBUTE.lastIndex = position;
    const match = ATTRIBUTE.exec(text);
    if (!match) return `"${text.slice(position).trim()}"`;
    const key = match[1]!;
    if (attributes.has(key)) return `"${key}" twice`;
    const keyIndex = position + match[0].indexOf(key);
    attributes.set(key, { value: match[2]!, column: offset + keyIndex + 1 });
    position = ATTRIBUTE.lastIndex;
  }
  return attributes;
}
