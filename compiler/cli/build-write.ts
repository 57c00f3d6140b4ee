// gsd-build [build]: a build with something to do (build.ts decides, and
// loads this module only then): compile, emit, and write only what changed.
import path from 'node:path';
import { bundleKey, emitBundles, releaseTexts } from '../pipeline.ts';
import { treeWriter } from '../write/write-tree.ts';
import { writeBundles, type BundleRecord, type DiskCheck, type DiskChecker, type OutputState } from '../write/output-state.ts';
import { dropOutputState, trustedRecords, unitSource, writeOutputState, type EmissionMemo, type StoredState } from '../incremental.ts';
import type { SourceFile } from '../load/read-source-tree.ts';
import { residentMemo } from '../cache/build-cache.ts';
import type { ScopeId } from '../targets/target-types.ts';
import type { Io, ParsedValues } from './args.ts';
import { compileFrom, noteLines, profileOption, reportEmitted, selectBundles } from './common.ts';
import { sourceOf, type BUILD_OPTIONS } from './build-inputs.ts';

/** What build.ts found before deciding there is something to build. */
export interface BuildContext {
  outRoot: string;
  cacheDir: string | null;
  /** The source tree, read for the key (with a cache). */
  files: SourceFile[] | undefined;
  inputKey: string;
  previous: StoredState | null;
  checker: DiskChecker | null;
  check: DiskCheck;
  /** The summary line, with the time since the build started. */
  summary: (bundles: number, fileCount: number, written: number, keys: readonly string[]) => string;
}

export async function buildChanged(values: ParsedValues<typeof BUILD_OPTIONS>, io: Io, { outRoot, cacheDir, files, inputKey, previous, checker, check, summary }: BuildContext): Promise<number> {
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
    emitted = emitBundles(compiled, selections, profile, cacheDir ? unitSource(previous, recorded, emissions ?? undefined) : undefined, {
      encodeTexts: true,
      emitted: (key, tree) => {
        if (recorded[key] !== undefined) return;
        writer.add(key, tree);
        releaseTexts(tree);
      },
    });
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
      const again = emitBundles(compiled, selections.filter((selection) => bundleKey(selection) === key), profile, unitSource(previous, {}, emissions ?? undefined), { encodeTexts: true });
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

