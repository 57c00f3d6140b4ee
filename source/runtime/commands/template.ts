// template fill <name>: render gsd-core/templates/<name>.md with the phase
// context and --fields, then write it (never over an existing file unless
// --force). Templates are resolved next to the installed CLI:
// <bundle>/gsd-core/bin/gsd-tools.cjs → <bundle>/gsd-core/templates/.
import fs from 'node:fs';
import path from 'node:path';
import { bool, num, str } from '../cli/parse.ts';
import { CliError, refused } from '../core/errors.ts';
import { exists, readText, writeAtomic } from '../core/fs.ts';
import { confine } from '../core/paths.ts';
import { readTextIfExists } from '../core/fs.ts';
import { phaseInfo } from '../planning/phase-info.ts';
import { renderTemplate } from '../template/render.ts';
import type { Handler } from '../cli/handler.ts';

/** Default file name inside the phase directory, per template. */
const PHASE_DOCS: Record<string, (padded: string, plan: string | null) => string | null> = {
  summary: (p, plan) => (plan ? `${p}-${plan}-SUMMARY.md` : null),
  plan: (p, plan) => (plan ? `${p}-${plan}-PLAN.md` : null),
  verification: (p) => `${p}-VERIFICATION.md`,
  context: (p) => `${p}-CONTEXT.md`,
  research: (p) => `${p}-RESEARCH.md`,
  uat: (p) => `${p}-UAT.md`,
  validation: (p) => `${p}-VALIDATION.md`,
  'ui-spec': (p) => `${p}-UI-SPEC.md`,
  'ui-review': (p) => `${p}-UI-REVIEW.md`,
  review: (p) => `${p}-REVIEW.md`,
  'review-fix': (p) => `${p}-REVIEW-FIX.md`,
  security: (p) => `${p}-SECURITY.md`,
  'user-setup': (p) => `${p}-USER-SETUP.md`,
  learnings: (p) => `${p}-LEARNINGS.md`,
  spec: (p) => `${p}-SPEC.md`,
  'ai-spec': (p) => `${p}-AI-SPEC.md`,
  'eval-review': (p) => `${p}-EVAL-REVIEW.md`,
};

export function templatePath(coreDir: string, name: string): string {
  if (!/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i.test(name) || name.split('/').includes('..')) {
    throw new CliError('invalid-args', `template name "${name}" must be a relative name like summary or codebase/stack`);
  }
  const base = path.join(coreDir, 'templates');
  const file = path.join(base, /\.[a-z]+$/i.test(name) ? name : `${name}.md`);
  if (!exists(file)) {
    let available: string[] = [];
    try {
      available = fs.readdirSync(base).filter((n) => n.endsWith('.md')).map((n) => n.slice(0, -3)).sort();
    } catch {
      available = [];
    }
    throw new CliError('not-found', `template "${name}" not found in ${base}${available.length ? `; available: ${available.join(', ')}` : ''}`);
  }
  return file;
}

const fill: Handler = (inv, ctx) => {
  const name = inv.args.name!;
  const file = templatePath(ctx.coreDir, name);
  const phase = str(inv, '--phase');
  const planRaw = str(inv, '--plan');
  const plan = planRaw === undefined ? null : /^\d+$/.test(planRaw) ? planRaw.padStart(2, '0') : planRaw;
  const info = phase ? phaseInfo(ctx, phase) : null;
  const fields = inv.flags['--fields'];
  if (fields !== undefined && (fields === null || typeof fields !== 'object' || Array.isArray(fields))) throw new CliError('invalid-args', '--fields must be a JSON object');
  const projectTitle = /^#\s+(.+)$/m.exec(readTextIfExists(ctx.planningPath('PROJECT.md')) ?? '')?.[1]?.trim() ?? null;
  const now = ctx.now();
  const context: Record<string, unknown> = {
    date: now.toISOString().slice(0, 10),
    timestamp: now.toISOString(),
    project_title: projectTitle,
    ...(info
      ? {
          phase: info.number,
          phase_number: info.number,
          padded_phase: info.padded,
          phase_name: info.name,
          phase_slug: info.slug,
          phase_dir: ctx.rel(info.dir?.dir ?? info.expectedDir),
          goal: info.roadmap?.goal ?? null,
          requirements: info.roadmap?.requirements ?? [],
        }
      : {}),
    ...(plan ? { plan, plan_id: info ? `${info.padded}-${plan}` : plan } : {}),
    ...(str(inv, '--name') !== undefined ? { name: str(inv, '--name') } : {}),
    ...(str(inv, '--type') !== undefined ? { type: str(inv, '--type') } : {}),
    ...(num(inv, '--wave') !== undefined ? { wave: num(inv, '--wave') } : {}),
    ...((fields as Record<string, unknown> | undefined) ?? {}),
  };
  const rendered = renderTemplate(readText(file), context, ctx.rel(file).startsWith('..') ? path.join('templates', path.basename(file)) : ctx.rel(file));
  let out = str(inv, '--out');
  if (out === undefined) {
    const docName = PHASE_DOCS[name]?.(info?.padded ?? '', plan);
    if (!info || !docName) throw new CliError('invalid-args', `template fill ${name}: give --out, or --phase${PHASE_DOCS[name] && !plan && name.match(/summary|plan/) ? ' and --plan' : ''} for a phase document`);
    out = path.join(ctx.rel(info.dir?.dir ?? info.expectedDir), docName);
  }
  const target = confine(ctx.root, out, '--out');
  if (bool(inv, '--dry-run')) return { data: { created: false, dry_run: true, path: ctx.rel(target), template: name, missing: rendered.missing, unfilled: rendered.unfilled, text: rendered.text }, raw: rendered.text };
  if (exists(target) && !bool(inv, '--force')) throw refused(`${ctx.rel(target)} already exists; pass --force to overwrite`);
  // A field the template prints but nobody gave would be written as a blank ("Phase: 1 of  ()"): refuse, naming them all.
  if (rendered.unfilled.length && !bool(inv, '--allow-missing')) {
    throw refused(`template fill ${name}: no value for ${rendered.unfilled.map((f) => `"${f}"`).join(', ')}; give them in --fields (or --phase/--plan/--name), or pass --allow-missing to write them blank`, { missing_fields: rendered.unfilled });
  }
  writeAtomic(target, rendered.text);
  return { data: { created: true, path: ctx.rel(target), template: name, missing: rendered.missing, unfilled: rendered.unfilled }, raw: ctx.rel(target) };
};

export const handlers: Record<string, Handler> = { 'template fill': fill };
