// The names of the built-in layouts, without loading the layout schema or a parser.
import { readdirSync } from 'node:fs';
import { LAYOUTS_DIR } from '../locations.ts';

/** The built-in layouts (compiler/data/layouts), by name, sorted. */
export function layoutNames(): string[] {
  return readdirSync(LAYOUTS_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}
