// gsd-build [build] and gsd-build watch.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { bundleKey, emitBundles } from '../pipeline.ts';
import { treeWriter } from '../write/write-tree.ts';
import { checkBundlesOnDisk, DiskChecker, writeBundles, type BundleRecord, type CheckedRecords, type DiskCheck, type OutputState } from '../write/output-state.ts';
import { dropSpareDiskCheckThread } from '../write/disk-check-thread.ts';
import { buildInputKey, dropOutputState, outputStateStamp, readOutputState, stillOnDisk, trustedRecords, unitSource, writeOutputState, type EmissionMemo } from '../incremental.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
import { keepCacheResident, residentMemo } from '../cache/build-cache.ts';
import { DEFAULT_TARGETS_DIR } from '../targets/load-targets.ts';
import { SCOPE_IDS, type ScopeId } from '../targets/target-types.ts';
import { parse, UsageError, type Io, type ParsedValues } from './args.ts';
import { HELP } from './help.ts';
import { cacheDirOf, compileFrom, inputsKeyed, noteLines, profileOption, reportEmitted, selectBundles, sourceOf } from './common.ts';

export const BUILD_OPTIONS = {
  target: { type: 'string', multiple: true },
  scope: { type: 'string' },
  all: { type: 'boolean' },
  out: { type: 'string' },
  profile: { type: 'string' },
  cache: { type: 'string' },
  'no-cache': { type: 'boolean' },
} as const;

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
  const files = cacheDir ? await readSourceTree(sourceDir) : undefined;
  const inputKey = cacheDir
    ? await buildInputKey(files!, values.targets ?? DEFAULT_TARGETS_DIR, { target: values.target ?? null, scope: values.scope ?? null, all: values.all ?? false, layout: values.layout ?? null, profile: values.profile ?? null })
    : '';
  const keyed = inputsKeyed(values);
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
  const printed: OutputState['messages'] = { out: [], err: [] };
  const recording: Io = { out: (text) => (printed.out.push(text), io.out(text)), err: (text) => (printed.err.push(text), io.err(text)) };
  const compiled = await compileFrom(values, recording, cacheDir ? { cacheDir, files: files! } : {});
  if (!compiled) return 1;
  const selections = selectBundles(compiled, values.target, values.scope as ScopeId | undefined, values.all ?? false);
  const keys = selections.map(bundleKey);
  const profile = profileOption(values.profile, compiled);
  // Emit does not wait for the disk check: every bundle the last build recorded reuses that build's units, as if still on
  // disk as it left them (most are); one the check then finds changed is emitted again whole. A bundle to be written whole
  // goes to the writer thread as soon as it is checked, while the next one renders; nothing is swapped into the output
  // before every bundle has passed. A bundle found on disk as recorded is updated in place as soon as the check has
  // answered for it, while the check goes on with the next.
  const recorded = cacheDir ? trustedRecords(previous, new Set(keys), keys) : {};
  // A resident process (watch) keeps each bundle's last emission: a bundle whose record is still the one it was written
  // with is emitted as a delta, only the units of changed nodes rendered (emitBundle).
  const emissions = cacheDir ? residentMemo<EmissionMemo>(`emissions ${path.resolve(outRoot)}`, () => new Map()) : null;
  const writer = treeWriter(outRoot);
  let emitted: ReturnType<typeof emitBundles>;
  try {
    emitted = emitBundles(compiled, selections, profile, cacheDir ? unitSource(previous, recorded, emissions ?? undefined) : undefined, (key, tree) => recorded[key] === undefined && writer.add(key, tree));
  } catch (error) {
    await writer.abandon();
    throw error;
  }
  const { bundles, diagnostics, units, unitChanges, changedFiles } = emitted;
  if (!reportEmitted(diagnostics, recording, outRoot)) {
    await writer.abandon();
    return 1;
  }
  const fileCount = [...bundles.values()].reduce((sum, tree) => sum + tree.size, 0);
  let written = fileCount;
  if (cacheDir) {
    // The bundles still on disk as the last build left them: their unchanged files are not written.
    const trusted: Record<string, BundleRecord> = {};
    const trustedOf = async (key: string) => {
      if (recorded[key] === undefined) return undefined;
      check.assist();
      if (!(await check.each.get(key))) return undefined;
      return (trusted[key] = recorded[key]);
    };
    // A recorded bundle found changed on disk: rendered whole (no record is trusted), each file's facts equal to the
    // reused ones, so the first pass's findings stand.
    const whole = (key: string) => {
      if (recorded[key] === undefined) return bundles.get(key)!;
      const again = emitBundles(compiled, selections.filter((selection) => bundleKey(selection) === key), profile, unitSource(previous, {}, emissions ?? undefined));
      emitted.bundles.set(key, again.bundles.get(key)!);
      emitted.units.set(key, again.units.get(key)!);
      const emission = again.emissions.get(key);
      if (emission) emitted.emissions.set(key, emission);
      emitted.unitChanges.delete(key);
      emitted.changedFiles.delete(key);
      return again.bundles.get(key)!;
    };
    dropOutputState(cacheDir, outRoot);
    const result = await writeBundles(outRoot, bundles, trustedOf, writer, changedFiles, whole);
    written = result.written;
    // The thread's listings follow the records: patched for a bundle updated in place, sent whole next time for one written whole.
    for (const key of bundles.keys()) {
      if (result.changes[key] && trusted[key]) checker?.updated(key, trusted[key], result.records[key]!, result.changes[key]);
      else checker?.forget(key);
    }
    const notes = noteLines(compiled, selections, sourceOf(values));
    // A patch when every bundle was updated in place (most one-edit builds): else every record and unit is stored anew.
    const patched = [...bundles.keys()].every((key) => result.changes[key] !== undefined && unitChanges.has(key));
    writeOutputState(cacheDir, outRoot, previous, {
      inputKey,
      messages: { out: notes, err: printed.err },
      bundles: result.records,
      units,
      built: [...bundles.keys()],
      files: fileCount,
      patch: patched ? { bundles: new Map(Object.entries(result.changes)), units: unitChanges } : null,
    });
    // Kept with the record each was written with: the next build takes an emission up only while that record is the state's.
    for (const [key, emission] of emitted.emissions) emissions?.set(key, { record: result.records[key]!, emission });
  } else {
    await writer.finish();
  }
  io.out(summary(bundles.size, fileCount, written, [...bundles.keys()]));
  noteLines(compiled, selections, sourceOf(values)).forEach((line) => io.out(line));
  return 0;
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
export const WATCH_DEBOUNCE_MS = 150;
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
  const sourceDir = path.resolve(values.source ?? 'source');
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
    io.err(`watching ${values.source ?? 'source'} and ${values.targets ?? 'the project targets'} for changes (Ctrl-C stops)`);
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
