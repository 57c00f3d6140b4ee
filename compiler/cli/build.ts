// gsd-build [build] and gsd-build watch.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { checkBundlesOnDisk, DiskChecker, type CheckedRecords, type DiskCheck } from '../write/output-state.ts';
import { dropSpareDiskCheckThread } from '../write/disk-check-thread.ts';
import { buildInputKey, outputStateStamp, readOutputState, stillOnDisk } from '../incremental.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
import { keepCacheResident, residentMemo } from '../cache/build-cache.ts';
import { DEFAULT_TARGETS_DIR } from '../locations.ts';
import { SCOPE_IDS, type ScopeId } from '../targets/target-types.ts';
import { parse, UsageError, type Io, type ParsedValues } from './args.ts';
import { HELP } from './help.ts';
import { BUILD_OPTIONS, cacheDirOf, inputsKeyed, sourceOf } from './build-inputs.ts';

export async function runBuild(args: string[], io: Io): Promise<number> {
  const values = parse(args, BUILD_OPTIONS);
  if (values.help) {
    io.out(HELP.build);
    return 0;
  }
  if (!values.all && !values.target) throw new UsageError('expected --target <id> or --all');
  if (values.all && (values.target || values.scope)) throw new UsageError('--all builds every target and scope; drop --target and --scope');
  if (values.scope !== undefined && !SCOPE_IDS.includes(values.scope as ScopeId)) throw new UsageError(`expected --scope global or local, found "${values.scope}"`);
  return buildOnce(values, io);
}

/**
 * One build: with a cache (the default), a build whose inputs and output are
 * unchanged only replays what it printed, and any other writes only the files
 * whose bytes changed (compiler/incremental.ts); --no-cache writes everything.
 */
export async function buildOnce(
  values: ParsedValues<typeof BUILD_OPTIONS>,
  io: Io,
  /**
   * replay: print what an unchanged build printed (default true); prime: emit even when nothing changed (watch's first
   * build, so its rebuilds have every bundle's emission to start from); checked: the disk check this build takes up,
   * started by the caller (startDiskCheck with the same values) when nothing could write the output or the state since.
   */
  options: { replay?: boolean; prime?: boolean; checked?: DiskCheckStarted } = {},
): Promise<number> {
  const started = performance.now();
  const outRoot = values.out ?? 'dist';
  const cacheDir = cacheDirOf(values);
  const sourceDir = sourceOf(values);
  const { previous, checker, check } = options.checked ?? startDiskCheck(values);
  const files = cacheDir ? await readSourceTree(sourceDir, { cacheDir }) : undefined;
  const inputKey = cacheDir
    ? await buildInputKey(files!, values.targets ?? DEFAULT_TARGETS_DIR, { target: values.target ?? null, scope: values.scope ?? null, all: values.all ?? false, layout: values.layout ?? null, profile: values.profile ?? null })
    : '';
  const keyed = await inputsKeyed(values);
  const summary = (bundles: number, fileCount: number, written: number, keys: readonly string[]) =>
    `built ${bundles} bundle(s), ${fileCount} files (${written} written), into ${outRoot}/ in ${Math.round(performance.now() - started)} ms: ${keys.join(', ')}`;
  const unchanged = !options.prime && cacheDir && keyed && previous && previous.inputKey === inputKey;
  // Nothing else to do until the check answers: this thread takes a share of it.
  if (unchanged) check.assist();
  if (unchanged && stillOnDisk(previous, await check.all)) {
    if (options.replay !== false) previous.messages.err.forEach((line) => io.err(line));
    io.out(summary(previous.built.length, previous.files, 0, previous.built));
    if (options.replay !== false) previous.messages.out.forEach((line) => io.out(line));
    return 0;
  }
  // Something to build: the compiler's stages are loaded only now (a build with nothing changed needs none of them).
  const { buildChanged } = await import('./build-write.ts');
  return buildChanged(values, io, { outRoot, cacheDir, files, inputKey, previous, checker, check, summary });
}

/** A build's last state and the check of its bundles against the disk, under way. */
export interface DiskCheckStarted {
  previous: ReturnType<typeof readOutputState>;
  checker: DiskChecker | null;
  check: DiskCheck;
}

/**
 * Reads the last build's state and starts checking the bundles it recorded
 * against the disk, in a worker thread, while the build reads its sources and
 * compiles; a resident process (watch) keeps the thread and the listings it
 * holds from one rebuild to the next.
 */
export function startDiskCheck(values: ParsedValues<typeof BUILD_OPTIONS>): DiskCheckStarted {
  const outRoot = values.out ?? 'dist';
  const cacheDir = cacheDirOf(values);
  const previous = cacheDir ? readOutputState(cacheDir, outRoot) : null;
  // Kept by a resident process (watch), whose checks run while it waits for quiet (runWatch): a thread per core, up to
  // four, shares them. Any other build makes one thread for its check alone (checkBundlesOnDisk), beside its compile.
  const checker = cacheDir ? residentMemo(`disk-checker ${path.resolve(outRoot)}`, () => new DiskChecker({ keepFolderStamps: true, threads: Math.min(4, availableParallelism()) }), (kept) => void kept.stop()) : null;
  // Without a last state there is nothing to check: a thread started ahead for the check (cli.ts) is stopped.
  if (!previous) dropSpareDiskCheckThread();
  const check = previous ? checkBundlesOnDisk(outRoot, selectedRecords(previous.records, values), checker ?? undefined) : { all: Promise.resolve(new Set<string>()), each: new Map<string, Promise<boolean>>(), assist: () => {} };
  return { previous, checker, check };
}

/** The records of the bundles this build may write: all of them, or those of the --target and --scope given. */
function selectedRecords(records: CheckedRecords, values: ParsedValues<typeof BUILD_OPTIONS>): CheckedRecords {
  const wanted = (key: string) => {
    const [target, scope] = key.split('/');
    return (values.target === undefined || values.target.includes(target!)) && (values.scope === undefined || values.scope === scope);
  };
  const keys = [...records.keys()].filter((key) => values.all || wanted(key));
  return { keys: () => keys, get: (key) => records.get(key), listing: (key) => records.listing(key) };
}

/** Quiet time after the last change before a rebuild: editors save in bursts. */
export const WATCH_DEBOUNCE_MS = 40;
/**
 * How long a disk check started at a change (watch) stays good for the rebuild it precedes: past this (a long burst
 * of changes), the rebuild checks again.
 */
export const WATCH_CHECK_AHEAD_MS = 1000;
/** Quiet time after a rebuild before the cache kept in memory is written to disk (build-cache.ts keepCacheResident). */
export const WATCH_FLUSH_MS = 2000;

export async function runWatch(args: string[], io: Io, stop?: AbortSignal): Promise<number> {
  const values = parse(args, BUILD_OPTIONS);
  if (values.help) {
    io.out(HELP.watch);
    return 0;
  }
  if (values.all && (values.target || values.scope)) throw new UsageError('--all builds every target and scope; drop --target and --scope');
  if (values.scope !== undefined && !SCOPE_IDS.includes(values.scope as ScopeId)) throw new UsageError(`expected --scope global or local, found "${values.scope}"`);
  const selection = values.target ? values : { ...values, all: true };
  // The folder the first build reads (sourceOf: ./source, else the corpus that ships with gsd-build) is the one watched.
  const source = sourceOf(values);
  const sourceDir = path.resolve(source);
  const targetsDir = path.resolve(values.targets ?? DEFAULT_TARGETS_DIR);
  const outRoot = path.resolve(values.out ?? 'dist');
  const cacheDir = cacheDirOf(values);
  const { watch } = await import('node:fs');
  let running: Promise<void> | null = null;
  let pending = false;
  let timer: NodeJS.Timeout | undefined;
  let flushTimer: NodeJS.Timeout | undefined;
  // The disk check of the next rebuild, started at the first change after a build, while the debounce waits: nothing
  // but a build writes the output or the state, and none runs here meanwhile. One by another process shows in the state's
  // stamp on disk: the rebuild then checks again.
  let ahead: { checked: DiskCheckStarted; at: number; state: string | null } | null = null;
  const stateStamp = () => (cacheDir ? outputStateStamp(cacheDir, outRoot) : null);
  const takeAhead = () => {
    const taken = ahead && performance.now() - ahead.at <= WATCH_CHECK_AHEAD_MS && ahead.state === stateStamp() ? ahead.checked : undefined;
    ahead = null;
    return taken;
  };
  // Between rebuilds the cache stays in memory: a rebuild reads no state, memo or record from disk and writes none.
  const cache = keepCacheResident();
  const flush = (write: () => void) => {
    try {
      write();
    } catch (error) {
      io.err(`gsd-build: the build cache could not be written (the next build outside watch starts cold): ${(error as Error).message}`);
    }
  };
  const rebuild = async (first: boolean) => {
    clearTimeout(flushTimer);
    // One build at a time; changes during a build start one more after it.
    if (running) {
      pending = true;
      return;
    }
    running = (async () => {
      try {
        const checked = first ? undefined : takeAhead();
        await buildOnce(selection, io, { replay: first, prime: first, ...(checked ? { checked } : {}) });
      } catch (error) {
        if (error instanceof UsageError) throw error;
        io.err(`gsd-build: the build failed: ${(error as Error).stack ?? String(error)}`);
      }
    })();
    await running;
    running = null;
    if (pending) {
      pending = false;
      await rebuild(false);
    } else flushTimer = setTimeout(() => flush(cache.flush), WATCH_FLUSH_MS);
  };
  const inside = (full: string, root: string | null) => root !== null && (full === root || full.startsWith(`${root}${path.sep}`));
  try {
    await rebuild(true);
    const changed = (root: string) => (_event: string, file: string | Buffer | null) => {
      // The output and the cache may sit inside a watched folder; their writes are not edits.
      const full = file ? path.resolve(root, String(file)) : root;
      if (inside(full, outRoot) || inside(full, cacheDir)) return;
      clearTimeout(timer);
      if (!running && !ahead) {
        try {
          ahead = { checked: startDiskCheck(selection), at: performance.now(), state: stateStamp() };
        } catch {
          // The rebuild starts its own check, and reports what fails there.
          ahead = null;
        }
      }
      timer = setTimeout(() => void rebuild(false), WATCH_DEBOUNCE_MS);
    };
    const watchers = [watch(sourceDir, { recursive: true }, changed(sourceDir)), watch(targetsDir, { recursive: true }, changed(targetsDir))];
    io.err(`watching ${source} and ${values.targets ?? 'the project targets'} for changes (Ctrl-C stops)`);
    await new Promise<void>((resolve) => {
      const end = () => resolve();
      process.once('SIGINT', end);
      process.once('SIGTERM', end);
      stop?.addEventListener('abort', end, { once: true });
    });
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
    if (running) await running;
  } finally {
    clearTimeout(flushTimer);
    flush(cache.close);
  }
  return 0;
}
