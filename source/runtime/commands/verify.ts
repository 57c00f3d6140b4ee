// verify plan-structure | phase-completeness | references | status | codebase-drift
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readText } from '../core/fs.ts';
import { readFrontmatter } from '../md/frontmatter.ts';
import { fenceMask } from '../md/body.ts';
import { phaseInfo, phaseDocs, verificationStatus } from '../planning/phase-info.ts';
import { projectFile, validateFrontmatter } from './artifacts.ts';
import { getPath, loadConfig } from '../config/config.ts';
import { detectDrift, judgeDrift, type DriftAction } from '../planning/drift.ts';
import type { Handler } from '../cli/handler.ts';

const planStructure: Handler = (inv, ctx) => {
  const file = projectFile(ctx, inv.args.file!, '<file>');
  const rel = ctx.rel(file);
  const text = readText(file);
  const errors: string[] = [];
  const warnings: string[] = [];
  let fmFields: string[] = [];
  let bodyLine = 1;
  let body = text;
  try {
    const fm = readFrontmatter(text, rel);
    fmFields = Object.keys(fm.data);
    bodyLine = fm.split.bodyLine;
    body = fm.split.body;
    const v = validateFrontmatter(fm.data, fm.data.gap_closure === true || fm.data.gap_closure === 'true' ? 'plan-gap-closure' : 'plan');
    for (const m of v.missing) errors.push(`${rel}:1: frontmatter is missing "${m}"`);
    for (const x of v.invalidValue) errors.push(`${rel}:1: frontmatter "${x.field}" ${x.reason}`);
    if (!Array.isArray(fm.data.requirements) || fm.data.requirements.length === 0) warnings.push(`${rel}:1: frontmatter has no requirements list`);
  } catch (error) {
    errors.push((error as Error).message);
  }
  const lines = body.split(/\r?\n/);
  const at = (i: number) => `${rel}:${bodyLine + i}`;
  for (const tag of ['objective', 'tasks']) {
    if (!lines.some((l) => l.includes(`<${tag}>`))) errors.push(`${rel}: missing <${tag}> block`);
  }
  if (!lines.some((l) => l.includes('<threat_model>'))) warnings.push(`${rel}: missing <threat_model> block (one row per STRIDE category; see templates/plan.md)`);
  const tasks: { name: string | null; type: string; line: number; hasFiles: boolean; hasAction: boolean; hasVerify: boolean; hasDone: boolean }[] = [];
  let open: { start: number; type: string } | null = null;
  lines.forEach((l, i) => {
    const start = /<task\b([^>]*)>/.exec(l);
    if (start) {
      if (open) errors.push(`${at(open.start)}: <task> is not closed before the next <task>`);
      open = { start: i, type: /type\s*=\s*"([^"]*)"/.exec(start[1]!)?.[1] ?? 'auto' };
    }
    if (l.includes('</task>') && open) {
      const chunk = lines.slice(open.start, i + 1).join('\n');
      const has = (t: string) => new RegExp(`<${t}>[\\s\\S]*?</${t}>`).test(chunk);
      const task = {
        name: /<name>([\s\S]*?)<\/name>/.exec(chunk)?.[1]?.trim() ?? null,
        type: open.type,
        line: bodyLine + open.start,
        hasFiles: has('files'),
        hasAction: has('action'),
        hasVerify: has('verify') || has('acceptance_criteria'),
        hasDone: has('done') || has('acceptance_criteria'),
      };
      if (!task.name) errors.push(`${at(open.start)}: task has no <name>`);
      if (task.type === 'auto' || task.type === 'tdd') {
        if (!task.hasAction) errors.push(`${at(open.start)}: task "${task.name ?? '?'}" has no <action>`);
        if (!task.hasVerify) warnings.push(`${at(open.start)}: task "${task.name ?? '?'}" has no <verify>`);
        if (!task.hasDone) warnings.push(`${at(open.start)}: task "${task.name ?? '?'}" has no <done>`);
        if (!task.hasFiles) warnings.push(`${at(open.start)}: task "${task.name ?? '?'}" has no <files>`);
      }
      tasks.push(task);
      open = null;
    }
  });
  if (open) errors.push(`${at((open as { start: number }).start)}: <task> is never closed`);
  if (tasks.length === 0) errors.push(`${rel}: no <task> found`);
  return { data: { valid: errors.length === 0, file: rel, errors, warnings, task_count: tasks.length, tasks, frontmatter_fields: fmFields } };
};

const phaseCompleteness: Handler = (inv, ctx) => {
  const info = phaseInfo(ctx, inv.args.phase!);
  if (!info.dir || !info.scan) {
    return { data: { found: false, phase: info.number, complete: false, plan_count: 0, summary_count: 0, missing_summaries: [], orphan_summaries: [] } };
  }
  const planIds = new Set(info.scan.plans.map((p) => p.id));
  const missing = info.scan.live.filter((p) => !p.summary).map((p) => p.id);
  const orphans = info.scan.summaries.filter((s) => !info.scan!.plans.some((p) => p.summary === s)).map((s) => path.basename(s));
  void planIds;
  const docs = phaseDocs(info);
  const vstatus = verificationStatus(docs.VERIFICATION ?? null);
  return {
    data: {
      found: true,
      phase: info.number,
      directory: ctx.rel(info.dir.dir),
      complete: info.scan.live.length > 0 && missing.length === 0,
      plan_count: info.scan.live.length,
      summary_count: info.scan.live.length - missing.length,
      superseded: info.scan.plans.filter((p) => p.superseded).map((p) => p.id),
      missing_summaries: missing,
      orphan_summaries: orphans,
      has_verification: vstatus !== 'missing',
      verification_status: vstatus,
      ready_to_complete: info.scan.live.length > 0 && missing.length === 0 && vstatus === 'passed',
    },
  };
};

const references: Handler = (inv, ctx) => {
  const file = projectFile(ctx, inv.args.file!, '<file>');
  const rel = ctx.rel(file);
  const lines = readText(file).split(/\r?\n/);
  const mask = fenceMask(lines);
  const root = ctx.rootOrCwd;
  const home = ctx.env.HOME ?? os.homedir();
  const found: { ref: string; line: number }[] = [];
  const missing: { ref: string; line: number }[] = [];
  const seen = new Set<string>();
  const check = (ref: string, line: number) => {
    const key = `${ref}@${line}`;
    if (seen.has(key)) return;
    seen.add(key);
    let target: string;
    if (ref.startsWith('~/') || ref.startsWith('$HOME/')) target = path.join(home, ref.replace(/^(~|\$HOME)\//, ''));
    else if (path.isAbsolute(ref)) target = ref;
    else target = path.resolve(root, ref);
    (fs.existsSync(target) ? found : missing).push({ ref, line });
  };
  lines.forEach((l, i) => {
    const include = /^@(\S+)\s*$/.exec(l.trim());
    if (include && !mask[i]) check(include[1]!, i + 1);
    if (mask[i]) return;
    for (const m of l.matchAll(/`([^`\s]+)`/g)) {
      const ref = m[1]!;
      if (/[*?{}<>$|]/.test(ref.replace(/^\$HOME\//, '')) || /^https?:/.test(ref)) continue;
      if (!/\//.test(ref) || !/\.[A-Za-z0-9]{1,6}$/.test(ref)) continue;
      check(ref, i + 1);
    }
  });
  return {
    data: {
      valid: missing.length === 0,
      file: rel,
      found: found.map((f) => f.ref),
      missing: missing.map((m) => ({ ref: m.ref, line: m.line, location: `${rel}:${m.line}` })),
    },
  };
};

const NEXT: Record<string, { action: string; command: (n: string) => string | null }> = {
  missing: { action: 'verify', command: (n) => `/gsd-verify-work ${n}` },
  gaps_found: { action: 'plan-gaps', command: (n) => `/gsd-plan-phase ${n} --gaps` },
  human_needed: { action: 'human-verify', command: (n) => `/gsd-verify-work ${n}` },
  // verify-work closes a passed phase (`phase complete`); no bundle ships a separate transition command.
  passed: { action: 'complete', command: (n) => `/gsd-verify-work ${n}` },
  unknown: { action: 'fix-verification', command: () => null },
};

const status: Handler = (inv, ctx) => {
  const info = phaseInfo(ctx, inv.args.phase!);
  const docs = phaseDocs(info);
  const st = verificationStatus(docs.VERIFICATION ?? null);
  const next = NEXT[st]!;
  return {
    data: { phase: info.number, status: st, path: docs.VERIFICATION ? ctx.rel(docs.VERIFICATION) : null, next_action: next.action, next_command: next.command(info.number) },
    raw: st,
  };
};

/** Never fails the caller: a map or repository it cannot read is reported as status "unknown", exit 0. */
const codebaseDrift: Handler = (_inv, ctx) => {
  const cfg = loadConfig(ctx).resolved;
  const threshold = getPath(cfg, 'workflow.drift_threshold') as number;
  const action = getPath(cfg, 'workflow.drift_action') as DriftAction;
  const answer = judgeDrift(detectDrift(ctx), threshold, action);
  return { data: answer, raw: answer.status };
};

export const handlers: Record<string, Handler> = {
  'verify codebase-drift': codebaseDrift,
  'verify status': status,
  'verify plan-structure': planStructure,
  'verify phase-completeness': phaseCompleteness,
  'verify references': references,
};
