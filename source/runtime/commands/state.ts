// state: read and update STATE.md. Every mutator reports `updated`, the body
// fields whose persisted value changed, and `frontmatter`, the derived keys
// that changed with them.
import path from 'node:path';
import type { Invocation } from '../cli/parse.ts';
import { str } from '../cli/parse.ts';
import type { Result } from '../cli/output.ts';
import type { Ctx } from '../core/context.ts';
import { CliError, usage } from '../core/errors.ts';
import { exists, readText } from '../core/fs.ts';
import { confine } from '../core/paths.ts';
import { findField, findHeading, sectionRange, type Doc } from '../md/body.ts';
import { appendBullet, ensureSection, removeBullet, replaceTail, type HeadingSpec } from '../md/sections.ts';
import { flatConfig, loadConfig } from '../config/config.ts';
import { displayPhase, findPhaseDir, normalizePhase, scanPhase } from '../planning/phases.ts';
import { computeProgress, progressBar } from '../planning/progress.ts';
import { phaseInfo, roadmapFor } from '../planning/phase-info.ts';
import { countedPhases } from '../planning/roadmap.ts';
import { currentFrontmatter, getField, mutateState, readState, setField, statePath } from '../planning/state.ts';
import type { Handler } from '../cli/handler.ts';

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9 _./()-]{0,60}$/;
const MAX_TEXT = 64 * 1024;

function checkFieldName(name: string): void {
  if (!FIELD_NAME.test(name)) throw usage(`field name "${name}" is not valid (letters, digits, space, _ . / - ( ); at most 61 characters)`);
}

/** Text from --x or --x-file (a file inside the project, size-capped). */
function textArg(ctx: Ctx, inv: Invocation, flag: string): string | undefined {
  const inline = str(inv, flag);
  const file = str(inv, `${flag}-file`);
  if (inline !== undefined && file !== undefined) throw usage(`give ${flag} or ${flag}-file, not both`);
  if (file !== undefined) {
    const p = confine(ctx.root, file, `${flag}-file`);
    if (!exists(p)) throw new CliError('not-found', `${flag}-file: ${file} does not exist`);
    const text = readText(p);
    if (text.length > MAX_TEXT) throw usage(`${flag}-file: ${file} is over ${MAX_TEXT} characters`);
    return text.trim();
  }
  if (inline !== undefined && inline.length > MAX_TEXT) throw usage(`${flag} is over ${MAX_TEXT} characters`);
  return inline?.trim();
}

function touchActivity(ctx: Ctx, body: Doc, what: string, changed: string[]): void {
  const r = setField(body, 'Last activity', `${ctx.today()} — ${what}`);
  if (r.changed) changed.push(r.name);
}

const SECTION = {
  context: { re: /^accumulated context/i, title: 'Accumulated Context', level: 2 },
  decisions: { re: /^decisions/i, title: 'Decisions', level: 3 },
  blockers: { re: /^blockers/i, title: 'Blockers/Concerns', level: 3 },
  metrics: { re: /^performance metrics/i, title: 'Performance Metrics', level: 2 },
  session: { re: /^session/i, title: 'Session Continuity', level: 2 },
} satisfies Record<string, HeadingSpec>;

function setOrAdd(body: Doc, name: string, value: string, section: HeadingSpec, changed: string[]): void {
  const r = setField(body, name, value, section.re);
  if (r.found) {
    if (r.changed) changed.push(r.name);
    return;
  }
  const [, end] = ensureSection(body, section);
  let at = end;
  while (at > 0 && body.lines[at - 1]!.trim() === '') at--;
  body.lines.splice(at, 0, `${name}: ${value}`);
  changed.push(name);
}

const load: Handler = (_inv, ctx) => {
  const cfg = loadConfig(ctx);
  const file = statePath(ctx);
  const stateExists = exists(file);
  const data = {
    config: flatConfig(cfg.resolved),
    state_raw: stateExists ? readText(file) : '',
    state_exists: stateExists,
    roadmap_exists: exists(ctx.planningPath('ROADMAP.md')),
    config_exists: cfg.exists,
  };
  const raw = [
    ...Object.entries(data.config).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`),
    `state_exists=${data.state_exists}`,
    `roadmap_exists=${data.roadmap_exists}`,
    `config_exists=${data.config_exists}`,
  ].join('\n');
  return { data, raw };
};

const json: Handler = (_inv, ctx) => ({ data: currentFrontmatter(ctx, readState(ctx)) });

const get: Handler = (inv, ctx) => {
  const sf = readState(ctx);
  const name = inv.args.field;
  if (name === undefined) return { data: { content: sf.text }, raw: sf.text };
  const field = findField(sf.body.lines, name);
  if (field) return { data: { [field.name]: field.value }, raw: field.value };
  const h = findHeading(sf.body.lines, (x) => x.text.toLowerCase() === name.toLowerCase() && x.level >= 2);
  if (h) {
    const [a, b] = sectionRange(sf.body.lines, h);
    const text = sf.body.lines.slice(a, b).join('\n').trim();
    return { data: { [h.text]: text }, raw: text };
  }
  throw new CliError('not-found', `${ctx.rel(statePath(ctx))}: no field or section "${name}"`);
};

const update: Handler = (inv, ctx) => {
  const field = inv.args.field!;
  const value = inv.args.value!;
  checkFieldName(field);
  const r = mutateState(ctx, (body) => setField(body, field, value));
  if (!r.result.found) return { data: { updated: [], frontmatter: [], reason: `field "${field}" not found in STATE.md` } };
  return { data: { updated: r.result.changed ? [r.result.name] : [], frontmatter: r.frontmatter } };
};

const patch: Handler = (inv, ctx) => {
  const pairs: [string, string][] = [...inv.extra];
  const jsonArg = inv.flags['<json>'];
  if (jsonArg !== undefined) {
    if (jsonArg === null || typeof jsonArg !== 'object' || Array.isArray(jsonArg)) throw usage('state patch: the JSON argument must be an object of field: value');
    for (const [k, v] of Object.entries(jsonArg as Record<string, unknown>)) {
      if (v !== null && typeof v === 'object') throw usage(`state patch: value of "${k}" must be a string, number or boolean`);
      pairs.push([k, String(v)]);
    }
  }
  if (pairs.length === 0) throw usage('state patch: give --Field value pairs or one JSON object');
  for (const [k] of pairs) checkFieldName(k.replace(/-/g, ' '));
  const r = mutateState(ctx, (body) => {
    const updated: string[] = [];
    const unchanged: string[] = [];
    const failed: string[] = [];
    for (const [k, v] of pairs) {
      const res = setField(body, k, v);
      if (!res.found) failed.push(k);
      else if (res.changed) updated.push(res.name);
      else unchanged.push(res.name);
    }
    return { updated, unchanged, failed };
  });
  return { data: { ...r.result, frontmatter: r.frontmatter } };
};

/** Shared by planned-phase and begin-phase: move Current Position to a phase. */
function positionAt(inv: Invocation, ctx: Ctx, status: string, planNo: (count: number) => number, verb: string) {
  const phase = str(inv, '--phase')!;
  const info = phaseInfo(ctx, phase);
  const name = str(inv, '--name') ?? info.name ?? '';
  const count = typeof inv.flags['--plans'] === 'number' ? (inv.flags['--plans'] as number) : (info.scan?.live.length ?? 0);
  let total: number | null = null;
  try {
    const rm = roadmapFor(ctx);
    total = rm ? countedPhases(rm).length : null;
  } catch (error) {
    ctx.warn((error as Error).message);
  }
  const r = mutateState(ctx, (body) => {
    const changed: string[] = [];
    const set = (field: string, value: string) => {
      const res = setField(body, field, value);
      if (res.changed) changed.push(res.name);
    };
    const current = getField(body, 'Phase');
    const totalText = total ?? (current ? (/\bof\s+(\d+)/.exec(current)?.[1] ?? '?') : '?');
    set('Phase', `${info.number} of ${totalText}${name ? ` (${name})` : ''}`);
    set('Plan', `${planNo(count)} of ${count} in current phase`);
    set('Status', status);
    touchActivity(ctx, body, `Phase ${info.number} ${verb}${count ? ` (${count} plan${count === 1 ? '' : 's'})` : ''}`, changed);
    return changed;
  });
  return { data: { updated: r.result, frontmatter: r.frontmatter, phase: info.number, phase_name: name || null, plan_count: count } };
}

const plannedPhase: Handler = (inv, ctx) => positionAt(inv, ctx, 'Ready to execute', () => 0, 'planned');
const beginPhase: Handler = (inv, ctx) => positionAt(inv, ctx, 'In progress', (n) => (n > 0 ? 1 : 0), 'started');

const advancePlan: Handler = (_inv, ctx) => {
  const r = mutateState(ctx, (body) => {
    const changed: string[] = [];
    const plan = getField(body, 'Plan');
    const m = plan ? /^(\d+)\s+of\s+(\d+)(.*)$/.exec(plan) : null;
    if (!m) return { advanced: false as const, reason: 'no_plan_position', message: 'STATE.md has no "Plan: N of M" line', changed };
    const current = Number(m[1]);
    const total = Number(m[2]);
    const phase = /^(\S+)/.exec(getField(body, 'Phase') ?? '')?.[1] ?? null;
    const dir = phase ? findPhaseDir(ctx.planning, phase) : null;
    if (dir && phase) {
      const scan = scanPhase(dir.dir, phase);
      const id = `${normalizePhase(phase)}-${String(current).padStart(2, '0')}`;
      const cur = scan.live.find((p) => p.id === id);
      if (cur && !cur.summary) {
        const outstanding = scan.live.filter((p) => !p.summary).map((p) => p.id);
        ctx.warn(`state advance-plan skipped: plan ${id} has no SUMMARY yet`);
        return { advanced: false as const, reason: 'plans_outstanding', outstanding_plans: outstanding, phase_dir: ctx.rel(dir.dir), changed };
      }
    }
    if (current >= total) {
      const s = setField(body, 'Status', 'Phase complete — ready for verification');
      if (s.changed) changed.push(s.name);
      touchActivity(ctx, body, `Phase ${phase ?? '?'} plans complete`, changed);
      return { advanced: false as const, reason: 'last_plan', current_plan: current, total_plans: total, changed };
    }
    const p = setField(body, 'Plan', `${current + 1} of ${total}${m[3]}`);
    if (p.changed) changed.push(p.name);
    // Mid-phase the phase is still being executed: the next plan follows at once, so the
    // status says so (a ready_to_execute here would read as "no workflow running").
    const s = setField(body, 'Status', 'In progress');
    if (s.changed) changed.push(s.name);
    touchActivity(ctx, body, `Plan ${current} of phase ${phase ?? '?'} complete`, changed);
    return { advanced: true as const, previous_plan: current, current_plan: current + 1, total_plans: total, changed };
  });
  const { changed, ...rest } = r.result;
  return { data: { ...rest, updated: changed, frontmatter: r.frontmatter } };
};

const recordSession: Handler = (inv, ctx) => {
  const stopped = str(inv, '--stopped-at')!;
  const resume = str(inv, '--resume-file');
  if (resume !== undefined) confine(ctx.root, resume, '--resume-file');
  const r = mutateState(ctx, (body) => {
    const changed: string[] = [];
    setOrAdd(body, 'Last session', ctx.now().toISOString(), SECTION.session, changed);
    setOrAdd(body, 'Stopped at', stopped, SECTION.session, changed);
    setOrAdd(body, 'Resume file', resume ?? 'None', SECTION.session, changed);
    return changed;
  });
  return { data: { recorded: true, updated: r.result, frontmatter: r.frontmatter } };
};

const addDecision: Handler = (inv, ctx) => {
  const summary = textArg(ctx, inv, '--summary');
  if (!summary) throw usage('state add-decision: --summary or --summary-file is required');
  const rationale = textArg(ctx, inv, '--rationale');
  const phase = str(inv, '--phase');
  const entry = `${phase ? `[Phase ${displayPhase(phase)}]: ` : ''}${summary.replace(/\s*\n\s*/g, ' ')}${rationale ? ` — ${rationale.replace(/\s*\n\s*/g, ' ')}` : ''}`;
  const r = mutateState(ctx, (body) => {
    appendBullet(body, ensureSection(body, SECTION.decisions, SECTION.context), entry);
    return ['Decisions'];
  });
  return { data: { added: true, decision: entry, updated: r.result, frontmatter: r.frontmatter } };
};

const addBlocker: Handler = (inv, ctx) => {
  const text = textArg(ctx, inv, '--text');
  if (!text) throw usage('state add-blocker: --text or --text-file is required');
  const entry = text.replace(/\s*\n\s*/g, ' ');
  const r = mutateState(ctx, (body) => {
    appendBullet(body, ensureSection(body, SECTION.blockers, SECTION.context), entry);
    return ['Blockers/Concerns'];
  });
  return { data: { added: true, blocker: entry, updated: r.result, frontmatter: r.frontmatter } };
};

const resolveBlocker: Handler = (inv, ctx) => {
  const needle = str(inv, '--text')!;
  const r = mutateState(ctx, (body) => {
    const h = findHeading(body.lines, (x) => SECTION.blockers.re.test(x.text));
    if (!h) return null;
    return removeBullet(body, sectionRange(body.lines, h), needle);
  });
  if (r.result === null) return { data: { resolved: false, reason: `no blocker contains "${needle}"`, updated: [], frontmatter: [] } };
  return { data: { resolved: true, blocker: r.result, updated: ['Blockers/Concerns'], frontmatter: r.frontmatter } };
};

const METRIC_HEADER = ['Phase', 'Plan', 'Duration', 'Tasks', 'Files'];

const recordMetric: Handler = (inv, ctx) => {
  const phase = displayPhase(str(inv, '--phase')!);
  const plan = str(inv, '--plan')!;
  const duration = str(inv, '--duration')!;
  const tasks = inv.flags['--tasks'];
  const files = inv.flags['--files'];
  const row = `| ${phase} | ${plan} | ${duration} | ${tasks ?? '-'} | ${files ?? '-'} |`;
  const r = mutateState(ctx, (body) => {
    const [start, end] = ensureSection(body, { re: /^by plan/i, title: 'By Plan', level: 3 }, SECTION.metrics);
    let header = -1;
    for (let i = start; i < end; i++) if (/^\|\s*Phase\s*\|\s*Plan\s*\|/i.test(body.lines[i]!)) header = i;
    if (header < 0) {
      replaceTail(body, start, end, [`| ${METRIC_HEADER.join(' | ')} |`, `|${METRIC_HEADER.map(() => '---').join('|')}|`, row]);
      return 'added';
    }
    let last = header + 1;
    for (let i = header + 2; i < body.lines.length && /^\s*\|/.test(body.lines[i]!); i++) {
      const cells = body.lines[i]!.split('|').map((c) => c.trim());
      if (cells[1] === phase && cells[2] === plan) {
        body.lines[i] = row;
        return 'replaced';
      }
      last = i;
    }
    body.lines.splice(last + 1, 0, row);
    return 'added';
  });
  return { data: { recorded: true, phase, plan, duration, row: r.result, updated: r.written ? ['By Plan'] : [], frontmatter: r.frontmatter } };
};

const updateProgress: Handler = (_inv, ctx) => {
  const r = mutateState(ctx, (body) => {
    const p = computeProgress(ctx.planning, (() => {
      try {
        return roadmapFor(ctx);
      } catch {
        return null;
      }
    })());
    const bar = progressBar(p.percent);
    const res = setField(body, 'Progress', bar);
    return { ...p, bar, found: res.found, changed: res.changed };
  });
  const { found, changed, ...progress } = r.result;
  if (!found) return { data: { updated: [], frontmatter: [], reason: 'no "Progress:" field in STATE.md', ...progress }, raw: progress.bar };
  return { data: { updated: changed ? ['Progress'] : [], frontmatter: r.frontmatter, ...progress }, raw: progress.bar };
};

export const handlers: Record<string, Handler> = {
  'state update-progress': updateProgress,
  'state load': load,
  'state json': json,
  'state get': get,
  'state update': update,
  'state patch': patch,
  'state planned-phase': plannedPhase,
  'state begin-phase': beginPhase,
  'state advance-plan': advancePlan,
  'state record-session': recordSession,
  'state add-decision': addDecision,
  'state add-blocker': addBlocker,
  'state resolve-blocker': resolveBlocker,
  'state record-metric': recordMetric,
};

export type { Result };
