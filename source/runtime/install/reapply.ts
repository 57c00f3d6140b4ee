// reapply-patches: put the user's edits that an update saved in
// gsd-local-patches/<time>/ back over the new release. What may be written is
// decided from the install record alone (the files it lists, at the places it
// lists them); backup-meta.json only names which of those files were saved,
// and is matched against the record, never used as a path. A file is written
// back only when the merge is exact: the release left the file as the user
// last had it from GSD (the record's hash for it equals the hash the update
// saw installed), so the user's copy is the three-way result. Every other
// file is reported for a merge by hand; no backup is ever removed. Each write
// is atomic and compared against the record's hash under the root's lock, so
// an interrupted or concurrent run loses nothing and a rerun finishes it.
import fs from 'node:fs';
import path from 'node:path';
import { refused } from '../core/errors.ts';
import { decodeJson } from '../core/json.ts';
import { sha256 } from './bundle.ts';
import { backupPath, display, readIfFile, readInstalled, type InstalledFile, type InstalledManifest } from './install.ts';
import { checkRecordLanding, INSTALLED_FILE, PATCHES_DIR, type LandingPolicy } from './landing.ts';
import { hasJournalDir, modeOf, writeAtomic } from './journal.ts';
import { withRootLock } from './root-lock.ts';

export const META_FILE = 'backup-meta.json';
/** backup-meta.json is GSD's own small file: anything larger is not one. */
const MAX_META_BYTES = 1024 * 1024;
const FOLDER_NAME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}Z(-[0-9]{1,6})?$/;
const HASH = /^[0-9a-f]{64}$/;

/**
 * restored: written back (the release had not changed the file);
 * same: the installed file already is the user's copy;
 * review: the release changed the file too: merge by hand;
 * changed: the installed file was edited after the update: left alone;
 * gone: the release no longer installs the file: the copy stays in the backup;
 * own: a file of the user's that --force replaced (uninstall puts it back);
 * refused: the backup is missing, a link, or not the bytes the update saved.
 */
export type PatchStatus = 'restored' | 'same' | 'review' | 'changed' | 'gone' | 'own' | 'refused';

export interface PatchEntry {
  path: string;
  status: PatchStatus;
  /** The saved copy (absolute), when it could be located safely. */
  backup: string | null;
  /** The installed file (absolute), for files the record lists. */
  dest: string | null;
  reason: string;
}

export interface ReapplyReport {
  dryRun: boolean;
  root: string;
  patchesDir: string;
  backupDir: string | null;
  folders: string[];
  entries: PatchEntry[];
  counts: Record<PatchStatus, number>;
  /** Entries that still need the user: review, changed, gone, refused. */
  pending: number;
}

interface MetaEntry {
  path: string;
  installedSha256: string | null;
  currentSha256: string;
}

const isMetaEntry = (value: unknown): value is MetaEntry => {
  const entry = value as MetaEntry;
  return typeof entry?.path === 'string' && (entry.installedSha256 === null || (typeof entry.installedSha256 === 'string' && HASH.test(entry.installedSha256))) && typeof entry.currentSha256 === 'string' && HASH.test(entry.currentSha256);
};

const isInside = (parent: string, child: string) => child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** The backup folders, oldest first: real folders (not links) named as the installer names them. */
export function backupFolders(patchesDir: string): string[] {
  if (!lstatOrNull(patchesDir)?.isDirectory()) return [];
  return fs
    .readdirSync(patchesDir)
    .filter((name) => FOLDER_NAME.test(name) && lstatOrNull(path.join(patchesDir, name))?.isDirectory())
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function readMeta(folder: string): { reason: string; files: MetaEntry[] } {
  const file = path.join(folder, META_FILE);
  const stat = lstatOrNull(file);
  if (!stat?.isFile()) throw refused(`${file}: refused: expected the backup's ${META_FILE} (a regular file), found ${stat ? 'something else' : 'nothing'}; nothing was written`);
  if (stat.size > MAX_META_BYTES) throw refused(`${file}: refused: expected at most ${MAX_META_BYTES} bytes, found ${stat.size}; nothing was written`);
  const { value, problem } = decodeJson<{ reason?: unknown; files?: unknown }>(fs.readFileSync(file, 'utf8'), (v) => {
    const meta = v as { reason?: unknown; files?: unknown };
    return typeof meta?.reason === 'string' && Array.isArray(meta.files) && meta.files.every(isMetaEntry) ? null : 'a backup record ({reason, files: [{path, installedSha256, currentSha256}]})';
  });
  if (problem) throw refused(`${file}: refused: expected a backup record GSD wrote, found ${problem.kind === 'syntax' ? `invalid JSON (${problem.detail})` : 'another shape'}; nothing was written`);
  return { reason: value!.reason as string, files: value!.files as MetaEntry[] };
}

/** The saved copy of `dest`: where the installer put it, and only when it is a regular file inside the folder (no link on the way). */
function locateBackup(record: InstalledManifest, root: string, folder: string, dest: string): { file: string } | { why: string } {
  const file = backupPath({ base: record.base, root, backupDir: folder }, dest);
  if (!isInside(folder, file)) return { why: 'its backup would lie outside the backup folder' };
  for (let dir = path.dirname(file); dir !== folder; dir = path.dirname(dir)) {
    const stat = lstatOrNull(dir);
    if (!stat?.isDirectory()) return { why: `${dir} is ${stat ? 'not a folder (a link?)' : 'missing'}` };
  }
  const stat = lstatOrNull(file);
  if (!stat?.isFile()) return { why: stat ? 'its backup is not a regular file (a link?)' : 'its backup is missing' };
  return { file };
}

function classify(record: InstalledManifest, root: string, folder: string, entry: MetaEntry, files: Map<string, InstalledFile>): PatchEntry & { bytes?: Buffer; file?: InstalledFile } {
  const base = { path: entry.path, backup: null, dest: null };
  if (entry.installedSha256 === null) return { ...base, status: 'own', reason: 'your own file, replaced with --force; uninstall puts it back' };
  const file = files.get(entry.path);
  if (!file) return { ...base, status: 'gone', reason: 'this release no longer installs the file; your copy stays in the backup folder' };
  const located = locateBackup(record, root, folder, file.dest);
  if ('why' in located) return { ...base, dest: file.dest, status: 'refused', reason: located.why };
  const bytes = fs.readFileSync(located.file);
  const where = { path: entry.path, backup: located.file, dest: file.dest };
  if (sha256(bytes) !== entry.currentSha256) return { ...where, status: 'refused', reason: 'the backup is not the copy the update saved (its hash differs); merge by hand if it is yours' };
  const current = readIfFile(file.dest);
  if (current !== null && sha256(current) === entry.currentSha256) return { ...where, status: 'same', reason: 'the installed file already holds your edit' };
  if (current === null || sha256(current) !== file.sha256) return { ...where, status: 'changed', reason: 'the installed file changed since the update; merge by hand' };
  if (file.sha256 === entry.installedSha256) return { ...where, status: 'restored', reason: 'the release did not change this file: your copy is the merge', bytes, file };
  return { ...where, status: 'review', reason: 'the release changed this file too: merge your edit into it by hand' };
}

export interface ReapplyOptions {
  home: string;
  policies: readonly LandingPolicy[];
  dryRun?: boolean;
  /** One backup folder's name; default the newest an update made. */
  from?: string;
}

export function reapplyPatches(root: string, options: ReapplyOptions): ReapplyReport {
  const record = readInstalled(root);
  if (!record) throw refused(`no GSD install found at ${root} (no ${INSTALLED_FILE}); nothing was written`);
  checkRecordLanding(record, root, options.home, options.policies, path.join(root, INSTALLED_FILE));
  if (hasJournalDir(root)) throw refused(`${root}: an install or uninstall did not finish; run it again first; nothing was written`);
  const patchesDir = path.join(root, PATCHES_DIR);
  const folders = backupFolders(patchesDir);
  const counts = { restored: 0, same: 0, review: 0, changed: 0, gone: 0, own: 0, refused: 0 } satisfies Record<PatchStatus, number>;
  const report: ReapplyReport = { dryRun: Boolean(options.dryRun), root, patchesDir, backupDir: null, folders, entries: [], counts, pending: 0 };
  let name: string | undefined;
  if (options.from !== undefined) {
    if (!folders.includes(options.from)) throw refused(`--from: expected one of the backup folders in ${patchesDir} (${folders.join(', ') || 'none'}), found "${options.from}"; nothing was written`);
    name = options.from;
  } else name = [...folders].reverse().find((folder) => readMeta(path.join(patchesDir, folder)).reason === 'update');
  if (name === undefined) return report;
  const folder = path.join(patchesDir, name);
  report.backupDir = folder;
  const meta = readMeta(folder);
  const files = new Map(record.files.map((file) => [display(file.dest, { base: record.base }, record.scope), file]));
  const planned = meta.files.map((entry) => classify(record, root, folder, entry, files));
  const apply = () => {
    for (const entry of planned) {
      if (entry.status === 'restored' && !options.dryRun) {
        // Compared again under the lock: a file edited since the plan is not overwritten.
        const now = readIfFile(entry.file!.dest);
        if (now === null || sha256(now) !== entry.file!.sha256) {
          entry.status = now !== null && sha256(now) === sha256(entry.bytes!) ? 'same' : 'changed';
          entry.reason = entry.status === 'same' ? 'the installed file already holds your edit' : 'the installed file changed while this ran; merge by hand';
        } else writeAtomic(entry.file!.dest, entry.bytes!, modeOf(entry.file!.dest), `reapply-${process.pid}-${Date.now()}`);
      }
      const { bytes: _bytes, file: _file, ...shown } = entry;
      report.entries.push(shown);
      counts[entry.status] += 1;
    }
  };
  if (options.dryRun || !planned.some((entry) => entry.status === 'restored')) apply();
  else withRootLock(root, record.base, false, apply);
  report.pending = counts.review + counts.changed + counts.gone + counts.refused;
  return report;
}

export function reapplySummary(report: ReapplyReport): string {
  if (!report.backupDir) return `no saved local patches in ${report.patchesDir}`;
  const lines = [`${report.dryRun ? 'Dry run: ' : ''}local patches from ${report.backupDir}`];
  for (const entry of report.entries) lines.push(`${entry.status}: ${entry.path} (${entry.reason})`);
  const shown = Object.entries(report.counts).filter(([, n]) => n > 0).map(([status, n]) => `${n} ${status}`);
  lines.push(`${shown.join(', ') || 'nothing saved'}; ${report.pending} need you`);
  return lines.join('\n');
}
