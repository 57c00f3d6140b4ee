// gsd-build: the command line. Exit 0 ok, 1 diagnostics, 2 usage.
// This module only dispatches: each verb's module (compiler/cli/) is
// imported when that verb runs, so `gsd-build --help`, `--version` and a
// verb's `--help` load no compiler stage, and `check` loads neither the site,
// the release nor the installer. scripts/bench-startup.mjs measures it.
import { readFileSync } from 'node:fs';
import { UsageError, type Io } from './cli/args.ts';
import { HELP, type Verb } from './cli/help.ts';
import { prestartDiskCheckThread } from './write/disk-check-thread.ts';
import { SourceChangedError } from './load/source-changed.ts';

export type { Io } from './cli/args.ts';

const defaultIo: Io = { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) };

/** Each verb's handler, loaded on first use. */
const VERBS: Record<Verb, () => Promise<(args: string[], io: Io) => Promise<number>>> = {
  build: async () => (await import('./cli/build.ts')).runBuild,
  watch: async () => (await import('./cli/build.ts')).runWatch,
  check: async () => (await import('./cli/check.ts')).runCheck,
  ir: async () => (await import('./cli/ir.ts')).runIr,
  budgets: async () => (await import('./cli/budgets.ts')).runBudgets,
  matrix: async () => (await import('./cli/matrix.ts')).runMatrix,
  site: async () => (await import('./cli/site.ts')).runSite,
  plugin: async () => (await import('./cli/plugin.ts')).runPlugin,
  release: async () => (await import('./cli/release.ts')).runRelease,
  keygen: async () => (await import('./cli/keygen.ts')).runKeygen,
  install: async () => (await import('./cli/install.ts')).runInstall,
};

/** The package's version (package.json beside compiler/, in a checkout and in the installed package alike). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** An error the operating system gave (its code: ENOENT, EACCES, ENOTDIR, ...), not one of Node's own (ERR_...). */
function isFileSystemError(error: unknown): error is Error {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const verb: Verb = argv[0] && argv[0] in HELP && argv[0] !== 'build' ? (argv[0] as Verb) : 'build';
  const rest = verb === 'build' ? (argv[0] === 'build' ? argv.slice(1) : argv) : argv.slice(1);
  if (verb === 'build' && (rest[0] === 'help' || rest.length === 0)) {
    io.out(HELP.build);
    return rest.length === 0 ? 2 : 0;
  }
  if (verb === 'build' && rest.length === 1 && rest[0] === '--version') {
    io.out(packageVersion());
    return 0;
  }
  // A verb's --help alone needs nothing of the verb.
  if (rest.length === 1 && (rest[0] === '--help' || rest[0] === '-h')) {
    io.out(HELP[verb]);
    return 0;
  }
  // A build with a cache checks its last output on disk in a thread: started now, it is ready by the time the
  // compiler's modules have loaded and the last state is read.
  if (verb === 'build' && !rest.includes('--no-cache')) prestartDiskCheckThread();
  try {
    return await (await VERBS[verb]())(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`gsd-build: ${error.message}`);
      io.err(`Run 'gsd-build ${verb === 'build' ? '' : `${verb} `}--help' for usage.`);
      return 2;
    }
    // A folder that cannot be made, a file that cannot be written (an --out or --golden under a file, no permission), a
    // source file changed under the build: said in one line, with its path. Anything else is a fault of ours, and shows its stack.
    if (isFileSystemError(error) || error instanceof SourceChangedError) {
      io.err(`gsd-build: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
