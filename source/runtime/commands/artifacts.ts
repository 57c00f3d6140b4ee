// frontmatter get | set | validate, and summary-extract.
import { str } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { exists, readText, writeAtomic } from '../core/fs.ts';
import { parseJson } from '../core/json.ts';
import { confine } from '../core/paths.ts';
import { readFrontmatter, withFrontmatter, type Yaml, type YamlMap } from '../md/frontmatter.ts';
import { scalarString } from '../cli/output.ts';
import type { Handler } from '../cli/handler.ts';

export function projectFile(ctx: Ctx, p: string, label: string): string {
  const abs = confine(ctx.rootOrCwd, p, label);
  if (!exists(abs)) throw new CliError('not-found', `${label}: ${p} does not exist`);
  return abs;
}

const get: Handler = (inv, ctx) => {
  const file = projectFile(ctx, inv.args.file!, '<file>');
  const fm = readFrontmatter(readText(file), ctx.rel(file));
  const field = str(inv, '--field');
  if (field === undefined) return { data: fm.data };
  if (!Object.prototype.hasOwnProperty.call(fm.data, field)) throw new CliError('not-found', `${ctx.rel(file)}: no frontmatter field "${field}"`);
  return { data: { [field]: fm.data[field] }, raw: scalarString(fm.data[field]) };
};

const set: Handler = (inv, ctx) => {
  const file = projectFile(ctx, inv.args.file!, '<file>');
  const field = str(inv, '--field')!;
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(field) || ['__proto__', 'constructor', 'prototype'].includes(field)) {
    throw new CliError('invalid-args', `frontmatter field "${field}" is not a plain key`);
  }
  const rawValue = str(inv, '--value')!;
  let value: Yaml;
  if (/^\s*[[{"]/.test(rawValue) || ['true', 'false', 'null'].includes(rawValue) || /^-?\d+(\.\d+)?$/.test(rawValue)) {
    value = parseJson(rawValue, '--value') as Yaml;
  } else value = rawValue;
  const text = readText(file);
  const fm = readFrontmatter(text, ctx.rel(file));
  const data: YamlMap = { ...fm.data, [field]: value };
  const next = withFrontmatter(data, fm.split.body, fm.split.yaml === null ? undefined : fm);
  const updated = next !== text;
  if (updated) writeAtomic(file, next);
  return { data: { updated, field, value } };
};

/** Required frontmatter fields per document kind. */
export const DOC_SCHEMAS: Record<string, string[]> = {
  plan: ['phase', 'plan', 'type', 'wave', 'depends_on', 'files_modified', 'autonomous', 'must_haves'],
  'plan-gap-closure': ['phase', 'plan', 'type', 'wave', 'depends_on', 'files_modified', 'autonomous', 'must_haves', 'gap_closure'],
  summary: ['phase', 'plan', 'subsystem', 'tags', 'duration', 'completed'],
  verification: ['phase', 'verified', 'status', 'score'],
};

const VALUE_RULES: Record<string, (v: Yaml) => string | null> = {
  type: (v) => (v === 'execute' || v === 'tdd' ? null : 'must be execute or tdd'),
  wave: (v) => (Number.isInteger(Number(v)) && Number(v) >= 1 ? null : 'must be a positive integer'),
  autonomous: (v) => (v === true || v === false || v === 'true' || v === 'false' ? null : 'must be true or false'),
  depends_on: (v) => (Array.isArray(v) ? null : 'must be a list'),
  files_modified: (v) => (Array.isArray(v) ? null : 'must be a list'),
  status: (v) => (v === 'passed' || v === 'gaps_found' || v === 'human_needed' ? null : 'must be passed, gaps_found or human_needed'),
  gap_closure: (v) => (v === true || v === 'true' ? null : 'must be true'),
};

export function validateFrontmatter(data: YamlMap, schema: string) {
  const required = DOC_SCHEMAS[schema]!;
  const missing = required.filter((k) => !Object.prototype.hasOwnProperty.call(data, k) || data[k] === null || data[k] === '');
  const present = required.filter((k) => !missing.includes(k));
  const invalid: { field: string; reason: string }[] = [];
  for (const k of present) {
    const rule = VALUE_RULES[k];
    if (!rule || (k === 'status' && schema !== 'verification')) continue;
    const reason = rule(data[k]!);
    if (reason) invalid.push({ field: k, reason });
  }
  return { valid: missing.length === 0 && invalid.length === 0, missing, present, invalidValue: invalid, schema };
}

const validate: Handler = (inv, ctx) => {
  const file = projectFile(ctx, inv.args.file!, '<file>');
  const fm = readFrontmatter(readText(file), ctx.rel(file));
  return { data: { file: ctx.rel(file), ...validateFrontmatter(fm.data, str(inv, '--schema')!) } };
};

function list(v: Yaml | undefined): string[] {
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x)));
  if (v === undefined || v === null || v === '') return [];
  return [String(v)];
}

const SUMMARY_FIELDS = ['one_liner', 'key_files', 'tech_added', 'patterns', 'decisions', 'requirements_completed', 'provides', 'affects'];

const summaryExtract: Handler = (inv, ctx) => {
  const file = projectFile(ctx, inv.args.file!, '<file>');
  const text = readText(file);
  const fm = readFrontmatter(text, ctx.rel(file));
  const d = fm.data;
  const bodyLines = fm.split.body.split(/\r?\n/);
  const h1 = bodyLines.findIndex((l) => /^#\s/.test(l));
  let oneLiner: string | null = null;
  for (let i = h1 + 1; i < bodyLines.length; i++) {
    const t = bodyLines[i]!.trim();
    if (t === '') continue;
    const m = /^\*\*(.+?)\*\*\.?$/.exec(t);
    oneLiner = m ? m[1]! : t.startsWith('#') ? null : t;
    break;
  }
  const kf = (d['key-files'] ?? d.key_files) as Yaml | undefined;
  const keyFiles = kf && typeof kf === 'object' && !Array.isArray(kf) ? kf : {};
  const tech = (d['tech-stack'] ?? d.tech_stack) as Yaml | undefined;
  const techMap = tech && typeof tech === 'object' && !Array.isArray(tech) ? tech : {};
  const decisions = list(d['key-decisions'] ?? d.key_decisions).map((s) => {
    const [summary, ...rest] = s.split(/\s+[\u2014\u2013-]\s+|:\s+/);
    return { summary: summary!.trim(), rationale: rest.join(' — ').trim() || null };
  });
  const all: Record<string, unknown> = {
    path: ctx.rel(file),
    one_liner: oneLiner,
    key_files: { created: list(keyFiles.created), modified: list(keyFiles.modified) },
    tech_added: list(techMap.added),
    patterns: list(d['patterns-established'] ?? d.patterns_established ?? techMap.patterns),
    decisions,
    requirements_completed: list(d['requirements-completed'] ?? d.requirements_completed),
    provides: list(d.provides),
    affects: list(d.affects),
  };
  const fields = str(inv, '--fields');
  if (fields !== undefined) {
    const want = fields.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = want.filter((w) => !SUMMARY_FIELDS.includes(w));
    if (unknown.length) throw new CliError('invalid-args', `summary-extract: unknown field(s) ${unknown.join(', ')}; known: ${SUMMARY_FIELDS.join(', ')}`);
    return { data: Object.fromEntries([['path', all.path], ...want.map((w) => [w, all[w]])]) };
  }
  return { data: all };
};

export const handlers: Record<string, Handler> = {
  'frontmatter get': get,
  'frontmatter set': set,
  'frontmatter validate': validate,
  'summary-extract': summaryExtract,
};
