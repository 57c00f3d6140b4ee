// What every handler gets: where it runs, the project (found lazily), the
// clock, and a place to put warnings. Nothing here touches stdout.
import path from 'node:path';
import { CliError } from './errors.ts';
import { findProjectRoot, rel } from './paths.ts';

export type Env = Record<string, string | undefined>;

export interface Io {
  /** Working directory to start from (default: process.cwd()). */
  cwd?: string;
  env?: Env;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** The installed `gsd-core/` directory (templates, workflows). */
  coreDir?: string;
}

export class Ctx {
  readonly cwd: string;
  readonly env: Env;
  readonly coreDir: string;
  readonly warnings: string[] = [];
  private rootCache: string | null | undefined;

  constructor(cwd: string, env: Env, coreDir: string) {
    this.cwd = cwd;
    this.env = env;
    this.coreDir = coreDir;
  }

  /** The project root, or null when no `.planning/` is found. */
  get maybeRoot(): string | null {
    if (this.rootCache === undefined) this.rootCache = findProjectRoot(this.cwd);
    return this.rootCache;
  }

  /** The project root; throws when there is no `.planning/` above cwd. */
  get root(): string {
    const r = this.maybeRoot;
    if (r === null) throw new CliError('not-found', `no .planning/ directory found in ${this.cwd} or its parents`);
    return r;
  }

  /** The root for commands that also work before a project exists. */
  get rootOrCwd(): string {
    return this.maybeRoot ?? this.cwd;
  }

  get planning(): string {
    return path.join(this.root, '.planning');
  }

  planningPath(...parts: string[]): string {
    return path.join(this.planning, ...parts);
  }

  /** Project-relative POSIX path for output and messages. */
  rel(p: string): string {
    return rel(this.rootOrCwd, p);
  }

  now(): Date {
    const fixed = this.env.GSD_NOW;
    if (fixed) {
      const d = new Date(fixed);
      if (!Number.isNaN(d.getTime())) return d;
    }
    return new Date();
  }

  today(): string {
    return this.now().toISOString().slice(0, 10);
  }

  warn(message: string): void {
    this.warnings.push(message);
  }
}
