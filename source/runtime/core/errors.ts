// The closed set of failure reasons the CLI reports, and the one error type
// handlers throw. main() maps it to stderr text (or JSON) and an exit code in
// a single place, so no handler prints or exits on its own.

export type Reason = 'unknown-command' | 'invalid-args' | 'not-found' | 'locked' | 'refused' | 'failed';

/** Usage errors exit 2; every other failure exits 1. */
export function exitCodeFor(reason: Reason): number {
  return reason === 'unknown-command' || reason === 'invalid-args' ? 2 : 1;
}

export class CliError extends Error {
  readonly reason: Reason;
  readonly extra: Record<string, unknown> | undefined;
  constructor(reason: Reason, message: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = 'CliError';
    this.reason = reason;
    this.extra = extra;
  }
}

export const usage = (message: string) => new CliError('invalid-args', message);
export const notFound = (message: string) => new CliError('not-found', message);
export const refused = (message: string, extra?: Record<string, unknown>) => new CliError('refused', message, extra);
export const failed = (message: string) => new CliError('failed', message);

/** `file:line: message`, with the file shown relative to the project when possible. */
export function at(file: string, line: number | undefined, message: string): string {
  return line === undefined ? `${file}: ${message}` : `${file}:${line}: ${message}`;
}

/** A parse problem in a project file: names the file and line, never mutates. */
export class FileFormatError extends CliError {
  readonly file: string;
  readonly line: number | undefined;
  constructor(file: string, line: number | undefined, message: string) {
    super('failed', at(file, line, message));
    this.file = file;
    this.line = line;
  }
}
