// Before a file the CLI cannot parse is rebuilt or cleaned, its exact bytes
// are kept beside it as <name>.broken-<UTC stamp> (e.g.
// STATE.md.broken-20250304T050607Z), so nothing a person wrote is lost and
// the diff between the two shows what the repair did. A second copy in the
// same second gets -2, -3, ….
import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from './fs.ts';

export const BROKEN_PATTERN = /\.broken-\d{8}T\d{6}Z(?:-\d+)?$/;

/** A UTC second as 20250304T050607Z: sorts by time, safe in a file name. */
export function utcStamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
}

/** Write `text` to a fresh <file>.broken-<stamp> and return its path. Never overwrites. */
export function keepBroken(file: string, text: string, now: Date): string {
  const base = `${file}.broken-${utcStamp(now)}`;
  for (let n = 1; n < 1000; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (fs.existsSync(candidate)) {
      // The same bytes kept already: nothing to add.
      if (fs.readFileSync(candidate, 'utf8') === text) return candidate;
      continue;
    }
    writeAtomic(candidate, text);
    return candidate;
  }
  throw new Error(`${path.basename(file)}: too many kept copies named ${path.basename(base)}-N`);
}
