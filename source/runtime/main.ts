// gsd-tools: the runtime CLI that GSD prompts call to read and update
// `.planning/` state. Entry point: `main(argv, io)` parses argv against
// command-table.json, runs one handler, and turns its result or error into
// output and an exit code, in this one place.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Handler, HandlerModule } from './cli/handler.ts';
import { parseArgv } from './cli/parse.ts';
import { render, writeFd } from './cli/output.ts';
import { TABLE, type CommandSpec } from './cli/table.ts';
import { Ctx, type Io } from './core/context.ts';
import { CliError, exitCodeFor, type Reason } from './core/errors.ts';
import { isDir } from './core/fs.ts';

export type { Io } from './core/context.ts';
export type { Handler, HandlerModule } from './cli/handler.ts';

/** Each command family is loaded only when it runs. */
const FAMILIES: Record<string, () => Promise<HandlerModule>> = {
  init: () => import('./commands/init.ts'),
  'config-get': () => import('./commands/config.ts'),
  'config-set': () => import('./commands/config.ts'),
  'config-new-project': () => import('./commands/config.ts'),
  'resolve-model': () => import('./commands/config.ts'),
  'agent-skills': () => import('./commands/config.ts'),
  capability: () => import('./commands/capability.ts'),
  state: () => import('./commands/state.ts'),
  roadmap: () => import('./commands/roadmap.ts'),
  phase: () => import('./commands/phase.ts'),
  requirements: () => import('./commands/requirements.ts'),
  milestone: () => import('./commands/milestone.ts'),
  frontmatter: () => import('./commands/artifacts.ts'),
  'summary-extract': () => import('./commands/artifacts.ts'),
  verify: () => import('./commands/verify.ts'),
  template: () => import('./commands/template.ts'),
  commit: () => import('./commands/commit.ts'),
  slug: () => import('./commands/util.ts'),
  timestamp: () => import('./commands/util.ts'),
  todo: () => import('./commands/capture.ts'),
  seed: () => import('./commands/capture.ts'),
  thread: () => import('./commands/capture.ts'),
  note: () => import('./commands/capture.ts'),
  backlog: () => import('./commands/capture.ts'),
  'pr-branch': () => import('./commands/pr-branch.ts'),
  experiment: () => import('./commands/experiment.ts'),
  'research-cache': () => import('./commands/research.ts'),
  learnings: () => import('./commands/learnings.ts'),
  profile: () => import('./commands/profile.ts'),
  spec: () => import('./commands/spec.ts'),
  debug: () => import('./commands/debug.ts'),
  uat: () => import('./commands/uat.ts'),
  quick: () => import('./commands/quick.ts'),
  repair: () => import('./commands/repair.ts'),
  stats: () => import('./commands/stats.ts'),
  commits: () => import('./commands/commits.ts'),
  worktree: () => import('./commands/worktree.ts'),
  workstreams: () => import('./commands/workstreams.ts'),
  workspace: () => import('./commands/workspace.ts'),
  docs: () => import('./commands/docs.ts'),
  health: () => import('./commands/health.ts'),
  'package-legitimacy': () => import('./commands/package-legitimacy.ts'),
  review: () => import('./commands/review.ts'),
  // Bundled apart (gsd-core/bin/gsd-install.cjs): only these verbs load the installer.
  install: () => import('./commands/install.ts'),
  uninstall: () => import('./commands/install.ts'),
  'reapply-patches': () => import('./commands/install.ts'),
};

export async function loadHandler(commandPath: string[]): Promise<Handler> {
  const family = FAMILIES[commandPath[0]!];
  const handler = family ? (await family()).handlers[commandPath.join(' ')] : undefined;
  if (!handler) throw new CliError('unknown-command', `command "${commandPath.join(' ')}" has no handler`);
  return handler;
}

declare const __GSD_BUNDLED__: boolean | undefined;

function defaultCoreDir(): string {
  // Bundled: <root>/gsd-core/bin/gsd-tools.cjs. From source: source/runtime/main.ts.
  if (typeof __GSD_BUNDLED__ !== 'undefined' && __GSD_BUNDLED__) return path.resolve(__dirname, '..');
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'gsd-core');
}

function helpText(commandPath: string[]): string {
  let spec: CommandSpec | undefined;
  for (const [i, name] of commandPath.entries()) spec = i === 0 ? TABLE.commands[name] : spec?.subcommands?.[name];
  const lines: string[] = [];
  const prefix = ['gsd-tools', ...commandPath].join(' ');
  if (!spec) {
    lines.push('Usage: gsd-tools <command> [subcommand] [args] [flags]', '', 'Commands:');
    for (const [name, s] of Object.entries(TABLE.commands)) lines.push(`  ${name.padEnd(16)} ${s.summary}`);
    lines.push('', 'Global flags:');
    for (const [name, f] of Object.entries(TABLE.globalFlags)) lines.push(`  ${name.padEnd(16)} ${f.summary ?? ''}`);
    lines.push('', 'Output is JSON on stdout. Errors: "Error: <message>" on stderr; exit 1, or 2 for usage errors.');
    return `${lines.join('\n')}\n`;
  }
  if (spec.subcommands) {
    lines.push(`Usage: ${prefix} <subcommand> ...`, '', spec.summary, '', 'Subcommands:');
    for (const [name, s] of Object.entries(spec.subcommands)) lines.push(`  ${name.padEnd(22)} ${s.summary}`);
    return `${lines.join('\n')}\n`;
  }
  const args = (spec.args ?? []).map((a) => {
    const inner = `${a.name}${a.variadic ? '…' : ''}`;
    return a.required ? `<${inner}>` : `[${inner}]`;
  });
  lines.push(`Usage: ${[prefix, ...args].join(' ')} [flags]`, '', spec.summary);
  const flags = Object.entries(spec.flags ?? {});
  if (flags.length) {
    lines.push('', 'Flags:');
    for (const [name, f] of flags) {
      const value = f.type === 'boolean' ? '' : f.type === 'enum' ? ` <${f.values?.join('|')}>` : ` <${f.type}>`;
      lines.push(`  ${`${name}${value}`.padEnd(28)} ${f.required ? '(required) ' : ''}${f.summary ?? ''}`);
    }
  }
  if (spec.raw) lines.push('', `--raw prints: ${spec.raw}`);
  return `${lines.join('\n')}\n`;
}

/** Run one gsd-tools command. Resolves to the exit code; never calls process.exit. */
export async function main(argv: string[], io: Io = {}): Promise<number> {
  const env = io.env ?? process.env;
  const out = io.stdout ?? ((s: string) => writeFd(1, s));
  const err = io.stderr ?? ((s: string) => writeFd(2, s));
  let jsonErrors = env.GSD_JSON_ERRORS === '1' || argv.includes('--json-errors');
  let ctx: Ctx | undefined;
  const flushWarnings = () => {
    // Warnings already in the diagnostic shape (`path:line:col: warning CODE …`) print as they are.
    for (const w of ctx?.warnings ?? []) err(/^\S+:\d+:\d+: warning [a-z-]+ /.test(w) ? `${w}\n` : `warning: ${w}\n`);
    if (ctx) ctx.warnings.length = 0;
  };
  try {
    const inv = parseArgv(argv);
    jsonErrors ||= inv.global.jsonErrors;
    if (inv.global.help) {
      out(helpText(inv.path));
      return 0;
    }
    let cwd = io.cwd ?? process.cwd();
    if (inv.global.cwd !== undefined) {
      cwd = path.resolve(cwd, inv.global.cwd);
      if (!isDir(cwd)) throw new CliError('invalid-args', `--cwd: ${cwd} is not a directory`);
    }
    ctx = new Ctx(cwd, env, io.coreDir ?? env.GSD_CORE_DIR ?? defaultCoreDir(), inv.global.ws);
    if (inv.spec.project === 'required') void ctx.root;
    const handler = await loadHandler(inv.path);
    const result = await handler(inv, ctx);
    flushWarnings();
    out(render(result, inv.global));
    return result.exitCode ?? 0;
  } catch (error) {
    flushWarnings();
    // The installer is bundled apart (gsd-install.cjs) with its own copy of CliError: match it by shape too.
    if (!(error instanceof CliError) && (error as CliError)?.name === 'CliError' && typeof (error as CliError).reason === 'string') Object.setPrototypeOf(error, CliError.prototype);
    const reason: Reason = error instanceof CliError ? error.reason : 'failed';
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof CliError) && env.GSD_DEBUG) err(`${(error as Error)?.stack ?? ''}\n`);
    if (jsonErrors) {
      const extra = error instanceof CliError && error.extra ? error.extra : {};
      err(`${JSON.stringify({ ok: false, reason, message, ...extra })}\n`);
    } else err(`Error: ${message}\n`);
    return exitCodeFor(reason);
  }
}

// Run when executed directly from source (the bundle has its own entry).
if (
  !(typeof __GSD_BUNDLED__ !== 'undefined' && __GSD_BUNDLED__) &&
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
