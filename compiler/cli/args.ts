// The command line's argument parsing, shared by every verb module; light on
// purpose (node:util only), so that `gsd-build --help` loads nothing else.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export const COMMON_OPTIONS = {
  source: { type: 'string' },
  capability: { type: 'string', multiple: true },
  layout: { type: 'string' },
  targets: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** What parse() returns for a verb's options (named, so the API's declarations can name it). */
export type ParsedValues<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: typeof COMMON_OPTIONS & T; allowPositionals: false; strict: true }>>['values'];

export function parse<T extends Options>(args: string[], options: T): ParsedValues<T> {
  try {
    return parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
