// What every handler gets: where it runs, the project (found lazily), the
// clock, and a place to put warnings. Nothing here touches stdout.
import path from 'node:path';
import { CliError } from './errors.ts';
import { findProjectRoot, rel } from './paths.ts';
import { PLANNING, planningLayout, resolvePlanning, selectWorkstream, type PlanningLayout } from '../planning/layout.ts';

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
  /** `--ws <name>` as given; resolved with the project (planning/layout.ts). */
  readonly workstreamFlag: string | undefined;
  private rootCache: string | null | undefined;
  private layoutCache: PlanningLayout | undefined;

  constructor(cwd: string, env: Env, coreDir: string, workstreamFlag?: string) {
    this.cwd = cwd;
    this.env = env;
    this.coreDir = coreDir;
    this.workstreamFlag = workstreamFlag;
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

  /** Where this call's planning files are: the project's `.planning/` and the selected workstream's folder. */
  get layout(): PlanningLayout {
    const root = this.root;
    this.layoutCache ??= planningLayout(root, selectWorkstream(root, this.env, this.workstreamFlag, (m) => this.warn(m)));
    return this.layoutCache;
  }

  /** The selected workstream, or null for the project's own files. */
  get workstream(): string | null {
    return this.layout.workstream;
  }

  /** The folder holding STATE.md, ROADMAP.md and phases/: the workstream's when one is selected. */
  get planning(): string {
    return this.layout.scoped;
  }

  /** The project's own `.planning/`, shared by every workstream. */
  get sharedPlanning(): string {
    return this.layout.shared;
  }

  /** Every path under `.planning/` comes from here (shared entries and the rest: planning/layout.ts). */
  planningPath(...parts: string[]): string {
    return resolvePlanning(this.layout, parts);
  }

  /** The same, for commands that also run before a project exists: then under cwd, with no workstream. */
  draftPlanningPath(...parts: string[]): string {
    return this.maybeRoot === null ? path.join(this.cwd, PLANNING, ...parts) : this.planningPath(...parts);
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
