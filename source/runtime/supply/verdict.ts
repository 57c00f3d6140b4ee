// From a registry record to a verdict: which rules fire is decided here, what
// each rule is worth (OK / SUS / SLOP) and every threshold is data in
// legitimacy-rules.json. Pure: the clock comes in as an argument.
import type { RegistryRecord } from './adapters.ts';
import { nearestPopular, type TypoBand } from './distance.ts';
import type { Ecosystem } from './names.ts';

export type Verdict = 'OK' | 'SUS' | 'SLOP';
export type RuleId =
  | 'not-found'
  | 'unpublished'
  | 'typo-squat'
  | 'typo-near'
  | 'young'
  | 'few-downloads'
  | 'few-maintainers'
  | 'no-repository'
  | 'install-scripts'
  | 'deprecated'
  | 'lookup-failed';

export interface Rules {
  verdicts: Record<RuleId, Verdict>;
  minAgeDays: number;
  minWeeklyDownloads: number;
  minMaintainers: number;
  typo: { bands: TypoBand[]; slopBelowWeeklyDownloads: number; susBelowWeeklyDownloads: number };
  maxPackages: number;
  maxAnswerBytes: number;
  npmInstallScripts: string[];
  pypiRepositoryKeys: string[];
  popular: Record<Ecosystem, string[]>;
}

export interface Signals {
  exists: boolean | null;
  created: string | null;
  age_days: number | null;
  latest_version: string | null;
  weekly_downloads: number | null;
  maintainers: number | null;
  repository: string | null;
  install_scripts: string[] | null;
  deprecated: string | null;
  typo_of: { name: string; distance: number } | null;
  /** Signals this registry does not offer (null above, and never a reason). */
  not_offered: string[];
  lookup_failures: string[];
}

export interface Reason {
  rule: RuleId;
  verdict: Verdict;
  detail: string;
}

export interface PackageVerdict {
  name: string;
  verdict: Verdict;
  /** The rule that set the verdict ("clear" when none fired). */
  rule: RuleId | 'clear';
  signals: Signals;
  reasons: Reason[];
}

const SEVERITY: Record<Verdict, number> = { OK: 0, SUS: 1, SLOP: 2 };
const DAY_MS = 86_400_000;

export const REGISTRY_NAME: Record<Ecosystem, string> = { npm: 'the npm registry', pypi: 'PyPI', crates: 'crates.io' };

function ageDays(created: string | null, now: Date): number | null {
  if (created === null) return null;
  const t = Date.parse(created);
  return Number.isNaN(t) ? null : Math.max(0, Math.floor((now.getTime() - t) / DAY_MS));
}

/** Which rules fire for one package, in a fixed order, each with its detail. */
function firedRules(ecosystem: Ecosystem, s: Signals, rec: RegistryRecord, rules: Rules): [RuleId, string][] {
  const fired: [RuleId, string][] = [];
  const hint = s.typo_of ? ` (did you mean ${s.typo_of.name}?)` : '';
  if (rec.exists === false) return [['not-found', `not in ${REGISTRY_NAME[ecosystem]}: the name may be hallucinated${hint}`]];
  if (rec.unpublished !== null) return [['unpublished', `${REGISTRY_NAME[ecosystem]} knows the name but has nothing to install (${rec.unpublished})${hint}`]];
  if (s.typo_of) {
    const near = `${s.typo_of.distance === 1 ? 'one edit' : `${s.typo_of.distance} edits`} from the popular ${s.typo_of.name}`;
    const dl = s.weekly_downloads;
    if (dl !== null && dl < rules.typo.slopBelowWeeklyDownloads) fired.push(['typo-squat', `${near} with ${dl} weekly downloads (under ${rules.typo.slopBelowWeeklyDownloads})`]);
    else if (dl === null) fired.push(['typo-near', `${near}; weekly downloads unknown`]);
    else if (dl < rules.typo.susBelowWeeklyDownloads) fired.push(['typo-near', `${near} with ${dl} weekly downloads (under ${rules.typo.susBelowWeeklyDownloads})`]);
  }
  if (s.age_days !== null && s.age_days < rules.minAgeDays) fired.push(['young', `first published ${s.age_days} days ago (under ${rules.minAgeDays})`]);
  if (s.weekly_downloads !== null && s.weekly_downloads < rules.minWeeklyDownloads) fired.push(['few-downloads', `${s.weekly_downloads} weekly downloads (under ${rules.minWeeklyDownloads})`]);
  if (s.maintainers !== null && s.maintainers < rules.minMaintainers) fired.push(['few-maintainers', `${s.maintainers} maintainers (under ${rules.minMaintainers})`]);
  if (rec.exists === true && s.repository === null) fired.push(['no-repository', 'no source repository named']);
  if (s.install_scripts !== null && s.install_scripts.length > 0) fired.push(['install-scripts', `runs code at install: ${s.install_scripts.join(', ')}`]);
  if (s.deprecated !== null) fired.push(['deprecated', `marked unfit: ${s.deprecated}`]);
  for (const f of rec.failures) fired.push(['lookup-failed', f]);
  return fired;
}

/** A popular name's canonical form (as compared) → its spelling in the rules file (as shown). */
export type PopularNames = ReadonlyMap<string, string>;

function typoOf(canonical: string, popular: PopularNames, rules: Rules): Signals['typo_of'] {
  const near = nearestPopular(canonical, [...popular.keys()], rules.typo.bands);
  return near && { name: popular.get(near.name) ?? near.name, distance: near.distance };
}

/** The verdict for one package from its record; `canonical` is the name as checkName normalised it. */
export function classify(ecosystem: Ecosystem, name: string, canonical: string, rec: RegistryRecord, rules: Rules, popular: PopularNames, now: Date): PackageVerdict {
  const signals: Signals = {
    exists: rec.exists,
    created: rec.created,
    age_days: ageDays(rec.created, now),
    latest_version: rec.latestVersion,
    weekly_downloads: rec.weeklyDownloads,
    maintainers: rec.maintainers,
    repository: rec.repository,
    install_scripts: rec.installScripts,
    deprecated: rec.deprecated,
    typo_of: typoOf(canonical, popular, rules),
    not_offered: rec.notOffered,
    lookup_failures: rec.failures,
  };
  const reasons = firedRules(ecosystem, signals, rec, rules).map(([rule, detail]) => ({ rule, verdict: rules.verdicts[rule], detail }));
  let verdict: Verdict = 'OK';
  let rule: PackageVerdict['rule'] = 'clear';
  for (const r of reasons) {
    if (SEVERITY[r.verdict] > SEVERITY[verdict]) {
      verdict = r.verdict;
      rule = r.rule;
    }
  }
  return { name, verdict, rule, signals, reasons };
}

// ------------------------------------------------------------ audit table

/** Registry text in a table cell: no control characters, no table breaks, bounded. */
function cell(text: string, max = 120): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) out += ' ';
    else if (c === '|') out += '\\|';
    else if (c === '`') out += "'";
    else out += c;
  }
  out = out.trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

const shown = (v: number | null) => (v === null ? 'unknown' : String(v));

/** The Markdown table the researcher pastes under "## Package Legitimacy Audit". */
export function auditTable(ecosystem: Ecosystem, results: readonly PackageVerdict[]): string {
  const rows = [
    '| Package | Ecosystem | Verdict | Age (days) | Weekly downloads | Maintainers | Repository | Why |',
    '|---------|-----------|---------|------------|------------------|-------------|------------|-----|',
  ];
  for (const r of results) {
    const s = r.signals;
    const why = r.reasons.length ? r.reasons.map((x) => `${x.rule}: ${x.detail}`).join('; ') : 'all checks clear';
    const maintainers = s.not_offered.includes('maintainers') ? 'n/a' : shown(s.maintainers);
    rows.push(
      `| ${cell(r.name)} | ${ecosystem} | ${r.verdict} | ${shown(s.age_days)} | ${shown(s.weekly_downloads)} | ${maintainers} | ${s.repository === null ? 'none' : cell(s.repository, 80)} | ${cell(why, 400)} |`,
    );
  }
  return `${rows.join('\n')}\n`;
}
