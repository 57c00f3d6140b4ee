// Registry adapters: each turns one package's registry answers into the same
// normalised record. Answers come through an injected FetchJson; an adapter
// never throws. A lookup that fails (timeout, network error, a status other
// than 200/404, a body that is not JSON, a field the registry always sends
// but this answer lacks) leaves its signal null and says why in `failures`.
// A null signal with no failure is one the registry does not offer.
import type { Answer, FetchJson } from './fetch.ts';
import type { Ecosystem } from './names.ts';

export interface RegistryRecord {
  /** false: the registry answered 404; null: the main lookup failed. */
  exists: boolean | null;
  /** The registry knows the name but has nothing installable under it (unpublished, no release files, no versions). */
  unpublished: string | null;
  created: string | null;
  latestVersion: string | null;
  weeklyDownloads: number | null;
  maintainers: number | null;
  repository: string | null;
  /** Code that runs when the package is installed (npm lifecycle scripts, a PyPI release with no wheel). */
  installScripts: string[] | null;
  /** Why the registry marks the latest release unfit (deprecated, yanked, inactive), or null. */
  deprecated: string | null;
  /** Signals this registry does not offer: left null, never a failure. */
  notOffered: string[];
  failures: string[];
}

export interface AdapterOptions {
  fetch: FetchJson;
  npmInstallScripts: readonly string[];
  pypiRepositoryKeys: readonly string[];
}

type Json = Record<string, unknown>;
type Got = { ok: true; status: number; json: Json | null } | { ok: false; reason: string };

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

function failureOf(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return e.message?.startsWith('timed out') ? e.message : 'timed out';
  const detail = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
  return `network error (${detail})`;
}

/** One GET: 200 with a JSON object, 404 (json null), or a failure reason naming what was expected. */
async function get(fetch: FetchJson, url: string, label: string): Promise<Got> {
  let answer: Answer;
  try {
    answer = await fetch(url);
  } catch (error) {
    return { ok: false, reason: `${label}: ${failureOf(error)}` };
  }
  if (answer.status === 404) return { ok: true, status: 404, json: null };
  if (answer.status !== 200) return { ok: false, reason: `${label}: expected HTTP 200 or 404, found ${answer.status}` };
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return { ok: false, reason: `${label}: expected a JSON answer, found malformed JSON` };
  }
  if (!isObj(json)) return { ok: false, reason: `${label}: expected a JSON object, found ${Array.isArray(json) ? 'an array' : typeof json}` };
  return { ok: true, status: 200, json };
}

const empty = (failures: string[] = []): RegistryRecord => ({
  exists: null,
  unpublished: null,
  created: null,
  latestVersion: null,
  weeklyDownloads: null,
  maintainers: null,
  repository: null,
  installScripts: null,
  deprecated: null,
  notOffered: [],
  failures,
});

/** The record for a main lookup that did not give a package document: failed, or 404. */
function absent(got: Got): RegistryRecord | null {
  if (!got.ok) return empty([got.reason]);
  if (got.status === 404) return { ...empty(), exists: false };
  return null;
}

function need<T>(value: T | null, what: string, label: string, failures: string[]): T | null {
  if (value === null) failures.push(`${label}: expected ${what} in the answer, found none`);
  return value;
}

/** A repository field as a URL string: npm gives a string or {url}. */
function repoUrl(v: unknown): string | null {
  return str(v) ?? (isObj(v) ? str(v.url) : null);
}

// ------------------------------------------------------------------ npm

/** Registry document (full metadata: time, maintainers and repository are not in the abbreviated one). */
export function npmUrls(name: string): { doc: string; downloads: string } {
  // A scoped name's "/" is escaped in the document URL; the downloads API takes it literally.
  const docPath = name.startsWith('@') ? name.replace('/', '%2F') : name;
  return { doc: `https://registry.npmjs.org/${docPath}`, downloads: `https://api.npmjs.org/downloads/point/last-week/${name}` };
}

export function npmRecord(doc: Json, downloads: Got, opts: Pick<AdapterOptions, 'npmInstallScripts'>): RegistryRecord {
  const label = 'registry.npmjs.org';
  const failures: string[] = [];
  const time = isObj(doc.time) ? doc.time : {};
  const versions = isObj(doc.versions) ? doc.versions : {};
  const rec: RegistryRecord = { ...empty(failures), exists: true };
  if (isObj(time.unpublished) || Object.keys(versions).length === 0) {
    rec.unpublished = isObj(time.unpublished) ? `unpublished ${str(time.unpublished.time) ?? ''}`.trim() : 'no published versions';
    rec.created = str(time.created);
    return rec;
  }
  const tags = isObj(doc['dist-tags']) ? doc['dist-tags'] : {};
  rec.latestVersion = need(str(tags.latest), 'dist-tags.latest', label, failures);
  rec.created = need(str(time.created), 'time.created', label, failures);
  rec.maintainers = need(Array.isArray(doc.maintainers) ? doc.maintainers.length : null, 'a maintainers list', label, failures);
  const latest = rec.latestVersion !== null && isObj(versions[rec.latestVersion]) ? (versions[rec.latestVersion] as Json) : null;
  if (rec.latestVersion !== null && latest === null) failures.push(`${label}: expected versions["${rec.latestVersion}"] in the answer, found none`);
  rec.repository = repoUrl(latest?.repository) ?? repoUrl(doc.repository);
  if (latest !== null) {
    const scripts = isObj(latest.scripts) ? latest.scripts : {};
    rec.installScripts = opts.npmInstallScripts.filter((s) => str(scripts[s]) !== null);
    if (latest.hasInstallScript === true && rec.installScripts.length === 0) rec.installScripts.push('hasInstallScript');
    rec.deprecated = str(latest.deprecated);
  }
  const dl = 'api.npmjs.org downloads';
  if (!downloads.ok) failures.push(downloads.reason);
  else if (downloads.json === null) failures.push(`${dl}: expected download counts, found 404 (no download data)`);
  else rec.weeklyDownloads = need(num(downloads.json.downloads), 'a downloads count', dl, failures);
  return rec;
}

async function lookupNpm(name: string, opts: AdapterOptions): Promise<RegistryRecord> {
  const urls = npmUrls(name);
  const doc = await get(opts.fetch, urls.doc, 'registry.npmjs.org');
  const early = absent(doc);
  if (early) return early;
  const downloads = await get(opts.fetch, urls.downloads, 'api.npmjs.org downloads');
  return npmRecord((doc as { json: Json }).json, downloads, opts);
}

// ----------------------------------------------------------------- PyPI

/** `canonical` is the PEP 503 form, which both services answer to. */
export function pypiUrls(canonical: string): { doc: string; downloads: string } {
  return { doc: `https://pypi.org/pypi/${canonical}/json`, downloads: `https://pypistats.org/api/packages/${canonical}/recent` };
}

export function pypiRecord(doc: Json, downloads: Got, opts: Pick<AdapterOptions, 'pypiRepositoryKeys'>): RegistryRecord {
  const label = 'pypi.org';
  const failures: string[] = [];
  const rec: RegistryRecord = { ...empty(failures), exists: true };
  const info = isObj(doc.info) ? doc.info : null;
  if (info === null) {
    failures.push(`${label}: expected an "info" object in the answer, found none`);
    return rec;
  }
  rec.latestVersion = need(str(info.version), 'info.version', label, failures);
  // The earliest file upload across releases is when the project first appeared.
  const releases = isObj(doc.releases) ? doc.releases : {};
  let earliest: string | null = null;
  for (const files of Object.values(releases)) {
    for (const f of Array.isArray(files) ? files : []) {
      const t = isObj(f) ? str(f.upload_time_iso_8601) : null;
      if (t !== null && (earliest === null || t < earliest)) earliest = t;
    }
  }
  const latestFiles = (Array.isArray(doc.urls) ? doc.urls : []).filter(isObj);
  if (earliest === null && latestFiles.length === 0) {
    rec.unpublished = 'no release files';
    return rec;
  }
  rec.created = earliest;
  // PyPI's JSON API lists no maintainers.
  rec.notOffered = ['maintainers'];
  const projectUrls = isObj(info.project_urls) ? info.project_urls : {};
  const byKey = new Map(Object.entries(projectUrls).map(([k, v]) => [k.toLowerCase(), str(v)]));
  for (const key of opts.pypiRepositoryKeys) rec.repository ??= byKey.get(key) ?? null;
  rec.repository ??= str(info.home_page);
  rec.installScripts = latestFiles.length > 0 && latestFiles.every((f) => f.packagetype === 'sdist') ? ['sdist-only (setup runs at install)'] : [];
  const classifiers = Array.isArray(info.classifiers) ? info.classifiers : [];
  if (classifiers.includes('Development Status :: 7 - Inactive')) rec.deprecated = 'Development Status :: 7 - Inactive';
  if (latestFiles.length > 0 && latestFiles.every((f) => f.yanked === true)) {
    rec.deprecated = `latest release yanked${str(latestFiles[0]!.yanked_reason) ? `: ${str(latestFiles[0]!.yanked_reason)}` : ''}`;
  }
  const dl = 'pypistats.org';
  if (!downloads.ok) failures.push(downloads.reason);
  else if (downloads.json === null) failures.push(`${dl}: expected download counts, found 404 (no download data)`);
  else rec.weeklyDownloads = need(num(isObj(downloads.json.data) ? downloads.json.data.last_week : null), 'data.last_week', dl, failures);
  return rec;
}

async function lookupPypi(canonical: string, opts: AdapterOptions): Promise<RegistryRecord> {
  const urls = pypiUrls(canonical);
  const doc = await get(opts.fetch, urls.doc, 'pypi.org');
  const early = absent(doc);
  if (early) return early;
  const downloads = await get(opts.fetch, urls.downloads, 'pypistats.org');
  return pypiRecord((doc as { json: Json }).json, downloads, opts);
}

// ------------------------------------------------------------ crates.io

export function crateUrls(name: string): { doc: string; owners: string } {
  return { doc: `https://crates.io/api/v1/crates/${name}`, owners: `https://crates.io/api/v1/crates/${name}/owners` };
}

export function crateRecord(doc: Json, owners: Got): RegistryRecord {
  const label = 'crates.io';
  const failures: string[] = [];
  const rec: RegistryRecord = { ...empty(failures), exists: true };
  const krate = isObj(doc.crate) ? doc.crate : null;
  if (krate === null) {
    failures.push(`${label}: expected a "crate" object in the answer, found none`);
    return rec;
  }
  const versions = (Array.isArray(doc.versions) ? doc.versions : []).filter(isObj);
  rec.created = need(str(krate.created_at), 'crate.created_at', label, failures);
  if (versions.length === 0) {
    rec.unpublished = 'no versions';
    return rec;
  }
  rec.latestVersion = need(str(krate.max_stable_version) ?? str(krate.max_version), 'crate.max_version', label, failures);
  // recent_downloads covers the last 90 days.
  const recent = num(krate.recent_downloads);
  rec.weeklyDownloads = need(recent === null ? null : Math.round((recent * 7) / 90), 'crate.recent_downloads', label, failures);
  rec.repository = str(krate.repository);
  // Build scripts run at build time, not install time, and the API does not say whether a crate has one.
  rec.notOffered = ['install_scripts'];
  const latest = versions.find((v) => v.num === rec.latestVersion);
  if (versions.every((v) => v.yanked === true)) rec.deprecated = 'every version yanked';
  else if (latest?.yanked === true) rec.deprecated = `latest version ${rec.latestVersion} yanked`;
  const ol = 'crates.io owners';
  if (!owners.ok) failures.push(owners.reason);
  else if (owners.json === null) failures.push(`${ol}: expected an owners list, found 404`);
  else rec.maintainers = need(Array.isArray(owners.json.users) ? owners.json.users.length : null, 'a users list', ol, failures);
  return rec;
}

async function lookupCrate(name: string, opts: AdapterOptions): Promise<RegistryRecord> {
  const urls = crateUrls(name);
  const doc = await get(opts.fetch, urls.doc, 'crates.io');
  const early = absent(doc);
  if (early) return early;
  const owners = await get(opts.fetch, urls.owners, 'crates.io owners');
  return crateRecord((doc as { json: Json }).json, owners);
}

/** Look one validated package up; `name` as given, `canonical` from checkName. Never throws. */
export async function lookup(ecosystem: Ecosystem, name: string, canonical: string, opts: AdapterOptions): Promise<RegistryRecord> {
  try {
    if (ecosystem === 'npm') return await lookupNpm(name, opts);
    if (ecosystem === 'pypi') return await lookupPypi(canonical, opts);
    return await lookupCrate(name, opts);
  } catch (error) {
    return empty([`${ecosystem} lookup: ${failureOf(error)}`]);
  }
}
