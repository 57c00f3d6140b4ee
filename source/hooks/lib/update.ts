// The passive update check's shared parts, used by gsd-check-update (which
// asks the registry in a detached worker) and gsd-statusline (which shows the
// answer). What a bundle knows of itself is `gsd-release.json`, written by the
// compiler beside the hook scripts (compiler/emit/emit-bundle.ts): its version
// and, when the bundle ships it, the update command in the runtime's own
// syntax. Where releases are published and every limit is data
// (../update-check.json). The answer is cached per install, keyed by the hook
// folder, under the user's cache folder; every reader checks it again against
// its own version and SemVer, so a planted or stale file can never show an
// update that is not newer than what is installed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compareVersions, parseVersion, type Version } from '../../runtime/core/semver.ts';
import settingsJson from '../update-check.json' with { type: 'json' };
import { configValue, readJsonFile } from './hook.ts';
import { RELEASE_FILE, type Release } from './release.ts';

export { RELEASE_FILE, type Release };

export interface UpdateSettings {
  package: string;
  distTag: string;
  ttlHours: number;
  retryHours: number;
  timeoutMs: number;
  npmConfigTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  maxVersionChars: number;
  lockStaleMs: number;
  disableEnv: string;
  configKey: string;
}

export const SETTINGS: UpdateSettings = settingsJson as UpdateSettings;


/** What the worker writes: the newest version it found (null when the check failed) and why it failed. */
export interface CacheRecord {
  checked_at: string;
  installed: string;
  latest: string | null;
  update_available: boolean;
  problem?: string;
}

type Env = Record<string, string | undefined>;

/** A version string we accept: short, and SemVer. */
export function version(text: unknown, settings: UpdateSettings = SETTINGS): Version | null {
  return typeof text === 'string' && text.length <= settings.maxVersionChars ? parseVersion(text) : null;
}

/** Whether `latest` is a newer release than `installed` (both SemVer; prereleases sort before their release). */
export function isNewer(latest: unknown, installed: unknown): boolean {
  const a = version(latest);
  const b = version(installed);
  return a !== null && b !== null && compareVersions(a, b) > 0;
}

/** This bundle's release facts, or null (run from the source tree, or a file that is not what the compiler writes). */
export function readRelease(hooksDir: string): Release | null {
  const value = readJsonFile(path.join(hooksDir, RELEASE_FILE)) as Partial<Release> | null;
  if (!value || typeof value !== 'object' || !version(value.version)) return null;
  const command = value.updateCommand;
  return { version: value.version!, ...(typeof command === 'string' && /^[/$@!A-Za-z0-9:_ -]{1,64}$/.test(command) ? { updateCommand: command } : {}) };
}

/** The user's cache folder: $XDG_CACHE_HOME when absolute, %LOCALAPPDATA% on Windows, else ~/.cache; then gsd/. */
export function cacheDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'gsd');
  if (platform === 'win32' && env.LOCALAPPDATA && path.isAbsolute(env.LOCALAPPDATA)) return path.join(env.LOCALAPPDATA, 'gsd');
  return path.join(env.HOME || os.homedir(), '.cache', 'gsd');
}

/** One cache file per install: the hook folder names the install (a global one, or each project's local one). */
export function cacheFile(hooksDir: string, env: Env): string {
  const key = crypto.createHash('sha256').update(path.resolve(hooksDir)).digest('hex').slice(0, 16);
  return path.join(cacheDir(env), `update-check-${key}.json`);
}

/** The most a cache record can take; a bigger file (or a link, a device) is not one the worker wrote. */
const MAX_RECORD_BYTES = 4096;

/** The cached record, when it has the shape the worker writes (anything else is no record). */
export function readCache(file: string): CacheRecord | null {
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_RECORD_BYTES) return null;
  } catch {
    return null;
  }
  const v = readJsonFile(file) as Partial<CacheRecord> | null;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  if (typeof v.checked_at !== 'string' || Number.isNaN(Date.parse(v.checked_at)) || typeof v.installed !== 'string' || typeof v.update_available !== 'boolean') return null;
  if (v.latest !== null && typeof v.latest !== 'string') return null;
  return v as CacheRecord;
}

/** The newer version the cache holds for this install, checked again here; null when there is none. */
export function cachedUpdate(record: CacheRecord | null, release: Release): string | null {
  if (!record || !record.update_available || record.installed !== release.version) return null;
  return isNewer(record.latest, release.version) ? record.latest : null;
}

/** Whether the record is recent enough that no new check is due. */
export function isFresh(record: CacheRecord | null, release: Release, nowMs: number, settings: UpdateSettings = SETTINGS): boolean {
  if (!record || record.installed !== release.version) return false;
  const age = nowMs - Date.parse(record.checked_at);
  const ttl = (record.latest === null ? settings.retryHours : settings.ttlHours) * 3_600_000;
  return age >= 0 && age < ttl;
}

/** Why the check is off, or null: the environment variable, npm's offline mode, or the project's config key set to false. */
export function disabledBy(env: Env, root: string | null, settings: UpdateSettings = SETTINGS): string | null {
  const flag = env[settings.disableEnv];
  if (flag !== undefined && flag !== '' && flag !== '0' && flag.toLowerCase() !== 'false') return settings.disableEnv;
  const offline = env.npm_config_offline ?? env.NPM_CONFIG_OFFLINE;
  if (offline !== undefined && offline !== '' && offline !== 'false' && offline !== '0') return 'npm_config_offline';
  if (configValue(root, settings.configKey) === false) return settings.configKey;
  return null;
}

/** The status line's marker: the newer version and, when known, the command that installs it. */
export function updateMarker(latest: string, release: Release): string {
  return `⬆ GSD ${latest}${release.updateCommand ? `: ${release.updateCommand}` : ' available'}`;
}
