// The section manifest (gsd-core/workflows/section-manifest.json) evaluated
// against this invocation's facts. The atoms our corpus uses, each a subset of
// the frozen when= vocabulary (compiler/data/when-vocabulary.json), have one
// predicate here (the build warns about one no marker uses: when-atom-unused);
// a manifest that names any other atom fails closed with file:line. Composed
// capabilities add `config:<key>` atoms: true when that boolean config key
// (defaults included) is true; a key the bundled schema lacks fails closed too.
import path from 'node:path';
import { CliError, FileFormatError } from '../core/errors.ts';
import { readTextIfExists } from '../core/fs.ts';
import { parseJson } from '../core/json.ts';
import { schemaFor } from '../config/config.ts';

/** Facts are computed lazily: only the atoms a workflow uses are evaluated. */
export interface Facts {
  flag(name: string): boolean;
  phaseNumber: string | null;
  hasPriorPhases(): boolean;
  autoAdvanceActive(): boolean;
  chunkedMode(): boolean;
  gitCreateTag(): boolean;
  contextWindow(): number;
  needsCodebaseMap(): boolean;
  /** The phase's `**Mode**` in the roadmap (e.g. mvp), or null. */
  phaseMode(): string | null;
  /** A resolved config value (defaults included), for config:<key> atoms. */
  config(key: string): unknown;
}

/** From this many tokens of context window, workflows give agents whole phases instead of lean file lists. */
export const LARGE_CONTEXT_WINDOW = 500_000;

export const WHEN_PREDICATES: Readonly<Record<string, (f: Facts) => boolean>> = Object.freeze({
  always: () => true,
  'flag:--wave': (f) => f.flag('--wave'),
  'flag:--auto': (f) => f.flag('--auto'),
  'flag:--discuss': (f) => f.flag('--discuss') || f.flag('--full'),
  'flag:--forensic': (f) => f.flag('--forensic'),
  'flag:--prd': (f) => f.flag('--prd'),
  'flag:--research': (f) => f.flag('--research') || f.flag('--full'),
  'flag:--research-phase': (f) => f.flag('--research-phase'),
  'flag:--reset-phase-numbers': (f) => f.flag('--reset-phase-numbers'),
  'flag:--validate': (f) => f.flag('--validate') || f.flag('--full'),
  'state:gap-closure-phase': (f) => typeof f.phaseNumber === 'string' && f.phaseNumber.includes('.'),
  'state:has-prior-phases': (f) => f.hasPriorPhases(),
  'state:auto-advance-active': (f) => f.autoAdvanceActive(),
  'state:chunked-mode': (f) => f.chunkedMode(),
  'state:git-create-tag': (f) => f.gitCreateTag(),
  'state:large-context-window': (f) => f.contextWindow() >= LARGE_CONTEXT_WINDOW,
  'state:needs-codebase-map': (f) => f.needsCodebaseMap(),
  'state:phase-mvp-mode': (f) => f.flag('--mvp') || f.phaseMode() === 'mvp',
});

export interface ManifestEntry {
  id: string;
  when: string;
  /** The step file to read; absent for a capability's contribution composed inline (`inline: true`), which is the workflow's own text. */
  read?: string;
  inline?: true;
  /** The step's compact variant (a `.compact.md` sibling), when the bundle ships one. */
  compact?: string;
}

export interface SectionSelection {
  workflow: string;
  included: string[];
  excluded: string[];
  read: string[];
}

export function manifestPath(coreDir: string): string {
  return path.join(coreDir, 'workflows', 'section-manifest.json');
}

/** Load the manifest; null when the bundle has none. Shape errors name file:line. */
export function loadManifest(coreDir: string): { file: string; text: string; workflows: Record<string, ManifestEntry[]>; compact: Record<string, string> } | null {
  const file = manifestPath(coreDir);
  const text = readTextIfExists(file);
  if (text === null) return null;
  let data: unknown;
  try {
    data = parseJson(text, file);
  } catch (error) {
    throw new CliError('failed', (error as Error).message);
  }
  const wfs = (data as { workflows?: unknown })?.workflows;
  if (!wfs || typeof wfs !== 'object' || Array.isArray(wfs)) throw new FileFormatError(file, 1, 'expected {"workflows": {"<workflow>": [{"id", "when", "read"}]}}');
  for (const [wf, entries] of Object.entries(wfs as Record<string, unknown>)) {
    if (!Array.isArray(entries)) throw new FileFormatError(file, lineOf(text, `"${wf}"`), `workflow "${wf}" must map to an array of sections`);
    for (const e of entries as unknown[]) {
      const fields = e && typeof e === 'object' ? (e as Record<string, unknown>) : null;
      // A section reads its step file, or is inline (its text is the workflow's own): one of the two, never both.
      const ok = fields !== null && ['id', 'when'].every((k) => typeof fields[k] === 'string') && (fields['inline'] === undefined ? typeof fields['read'] === 'string' : fields['inline'] === true && fields['read'] === undefined && fields['compact'] === undefined);
      if (!ok) throw new FileFormatError(file, lineOf(text, `"${wf}"`), `workflow "${wf}": every section needs string id and when, and a string read or inline: true`);
      // The compact file may only be the section's own step file's sibling: never a path the manifest picks freely.
      const { read, compact } = e as Record<string, unknown>;
      if (compact !== undefined && (typeof compact !== 'string' || !String(read).endsWith('.md') || compact !== `${String(read).slice(0, -'.md'.length)}.compact.md`)) {
        throw new FileFormatError(file, lineOf(text, `"${wf}"`), `workflow "${wf}": a section's compact must be the .compact.md sibling of its read file`);
      }
    }
  }
  const compact = (data as { compact?: unknown }).compact ?? {};
  const pairs = compact && typeof compact === 'object' && !Array.isArray(compact) ? Object.entries(compact as Record<string, unknown>) : null;
  if (pairs === null || pairs.some(([from, to]) => typeof to !== 'string' || !from.endsWith('.md') || to !== `${from.slice(0, -'.md'.length)}.compact.md`)) {
    throw new FileFormatError(file, lineOf(text, '"compact"'), 'expected "compact" to map each canonical .md path to its .compact.md sibling');
  }
  return { file, text, workflows: wfs as Record<string, ManifestEntry[]>, compact: Object.fromEntries(pairs) as Record<string, string> };
}

/**
 * Files to read in place of the ones a workflow names: every compact variant the
 * bundle ships when workflow.compact_content is true, else none.
 */
export function readInstead(coreDir: string, compactContent: boolean): Record<string, string> {
  if (!compactContent) return {};
  return loadManifest(coreDir)?.compact ?? {};
}

function lineOf(text: string, needle: string, from = 0): number | undefined {
  const i = text.indexOf(needle, from);
  return i < 0 ? undefined : text.slice(0, i).split('\n').length;
}

/** The config key that makes a workflow read compact variants. */
export const COMPACT_CONTENT_KEY = 'workflow.compact_content';

/**
 * Select the sections of `workflow`; null when the manifest does not list it.
 * `read` names, for each included section, the file to read: its compact
 * variant when workflow.compact_content is true and the bundle ships one.
 */
export function selectSections(coreDir: string, workflow: string, facts: Facts): SectionSelection | null {
  const manifest = loadManifest(coreDir);
  if (!manifest || !Object.prototype.hasOwnProperty.call(manifest.workflows, workflow)) return null;
  const out: SectionSelection = { workflow, included: [], excluded: [], read: [] };
  for (const e of manifest.workflows[workflow]!) {
    const predicate = e.when.startsWith('config:') ? configPredicate(e.when.slice('config:'.length)) : Object.prototype.hasOwnProperty.call(WHEN_PREDICATES, e.when) ? WHEN_PREDICATES[e.when] : undefined;
    if (!predicate) {
      const wfAt = manifest.text.indexOf(`"${workflow}"`);
      throw new FileFormatError(
        manifest.file,
        lineOf(manifest.text, `"${e.when}"`, Math.max(0, wfAt)),
        `unknown when atom "${e.when}" in workflow ${workflow}, section ${e.id} (not in the frozen vocabulary; refusing to guess)`,
      );
    }
    if (predicate(facts)) {
      out.included.push(e.id);
      // An inline section has nothing to read: the workflow's own lines are selected.
      if (e.read !== undefined) out.read.push(e.compact !== undefined && facts.config(COMPACT_CONTENT_KEY) === true ? e.compact : e.read);
    } else out.excluded.push(e.id);
  }
  return out;
}

/** A capability's toggle: its boolean config key is true. Null (fail closed) for a key the schema does not type as boolean. */
function configPredicate(key: string): ((f: Facts) => boolean) | undefined {
  return schemaFor(key)?.type === 'boolean' ? (f) => f.config(key) === true : undefined;
}
