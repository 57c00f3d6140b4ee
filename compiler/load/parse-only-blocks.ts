// Runtime-specific passages: `<!-- gsd:only runtimes="copilot,cursor" -->`
// … `<!-- /gsd:only -->`, whole lines like section markers. The passage is
// kept (markers stripped) for the named runtimes and removed for all others.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { commentInner, type ScannedLine } from './scan-lines.ts';

export interface OnlyBlock {
  runtimes: string[];
  /** File lines of the open and close markers. */
  openLine: number;
  closeLine: number;
  /** Column of each runtime id in the open marker, for diagnostics. */
  columns: number[];
}

const OPEN = /^gsd:only\s+runtimes\s*=\s*"([^"]*)"\s*$/;

export function parseOnlyBlocks(file: string, lines: readonly ScannedLine[]): { blocks: OnlyBlock[]; diagnostics: Diagnostic[] } {
  const blocks: OnlyBlock[] = [];
  const diagnostics: Diagnostic[] = [];
  let open: { runtimes: string[]; line: number; column: number; columns: number[] } | null = null;
  for (const scanned of lines) {
    if (scanned.kind !== 'only') continue;
    const column = scanned.content.indexOf('<!--') + 1;
    const report = (code: Parameters<typeof diagnostic>[3], message: string) => diagnostics.push(diagnostic(file, scanned.line, column, code, message));
    const inner = commentInner(scanned.content.trim());
    if (inner.startsWith('/')) {
      if (inner !== '/gsd:only') report('only-malformed', `expected "<!-- /gsd:only -->", found "${scanned.content.trim()}"`);
      else if (!open) report('only-unmatched-close', 'expected an open gsd:only block before this close marker, found none');
      else {
        blocks.push({ runtimes: open.runtimes, openLine: open.line, closeLine: scanned.line, columns: open.columns });
        open = null;
      }
      continue;
    }
    const match = OPEN.exec(inner);
    if (!match || match[1]!.trim() === '') {
      report('only-malformed', `expected <!-- gsd:only runtimes="id,id" --> with one or more runtime ids, found "${scanned.content.trim()}"`);
      continue;
    }
    if (open) {
      report('only-nested', `expected "<!-- /gsd:only -->" closing the block opened at line ${open.line} first, found another open marker`);
      continue;
    }
    const valueStart = scanned.content.indexOf(match[1]!, scanned.content.indexOf('runtimes'));
    const runtimes: string[] = [];
    const columns: number[] = [];
    let offset = 0;
    for (const part of match[1]!.split(',')) {
      const id = part.trim();
      runtimes.push(id);
      columns.push(valueStart + offset + part.indexOf(id) + 1);
      offset += part.length + 1;
    }
    open = { runtimes, line: scanned.line, column, columns };
  }
  if (open) {
    diagnostics.push(diagnostic(file, open.line, open.column, 'only-unclosed', 'expected "<!-- /gsd:only -->" before the end of the file, found none'));
  }
  return { blocks, diagnostics };
}
