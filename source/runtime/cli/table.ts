// Types of command-table.json, the single description of every verb. The
// parser below reads it; the compiler imports the same parser to check every
// gsd-tools call written in the corpus.
import tableJson from '../command-table.json' with { type: 'json' };

export type ValueType = 'string' | 'phase' | 'integer' | 'path' | 'json' | 'enum';
export type FlagType = ValueType | 'boolean' | 'list';

export interface FlagSpec {
  type: FlagType;
  values?: string[];
  required?: boolean;
  summary?: string;
}

export interface ArgSpec {
  name: string;
  type: ValueType;
  required: boolean;
  variadic?: true;
  values?: string[];
  /** What a literal value must name; the compiler checks it (check-cli-calls). */
  refersTo?: 'config-key' | 'template';
  summary?: string;
}

export interface CommandSpec {
  summary: string;
  project?: 'required' | 'optional' | 'none';
  writes?: string[];
  raw?: string;
  subcommands?: Record<string, CommandSpec>;
  args?: ArgSpec[];
  flags?: Record<string, FlagSpec>;
  extraFlags?: 'string';
}

export interface CommandTable {
  version: 1;
  program: 'gsd-tools';
  globalFlags: Record<string, FlagSpec>;
  aliases: Record<string, string[]>;
  reasons: Record<string, string>;
  commands: Record<string, CommandSpec>;
}

export const TABLE = tableJson as unknown as CommandTable;

/** Every leaf command as its path, e.g. ['state', 'update']. */
export function leafPaths(table: CommandTable = TABLE): string[][] {
  const out: string[][] = [];
  const walk = (spec: CommandSpec, path: string[]) => {
    if (spec.subcommands) for (const [name, sub] of Object.entries(spec.subcommands)) walk(sub, [...path, name]);
    else out.push(path);
  };
  for (const [name, spec] of Object.entries(table.commands)) walk(spec, [name]);
  return out;
}
