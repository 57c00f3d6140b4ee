// init <workflow> [phase] [flags]: one call that returns everything a
// workflow needs. Each workflow is a row of INIT_TABLE naming the models it
// uses and the parts it needs; parts are small functions sharing one lazily
// filled cache, so a workflow pays only for what it asks for. Rows and parts are
// grouped in named consts (PHASE_LOOP_WORKFLOWS…, PHASE_PARTS…) joined at the end.
import path from 'node:path';
import type { Invocation } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { exists, isDir, listDir, readTextIfExists } from '../core/fs.ts';
import { decodeJson } from '../core/json.ts';
import { utcStamp } from '../core/broken.ts';
import type { YamlMap } from '../md/frontmatter.ts';
import { currentFrontmatter, healWarning, parseStateHealing } from '../planning/state.ts';
import { loadConfig, getPath, type JsonMap } from '../config/config.ts';
import { resolveModel } from '../config/models.ts';
import { readBundleFacts, runtimeOf } from '../core/bundle-facts.ts';
import { agentSkills as resolveAgentSkills } from '../config/agent-skills.ts';
import { phaseInfo, phaseDocs, roadmapFor, stateMilestone, verificationStatus, type PhaseInfo } from '../planning/phase-info.ts';
import { comparePhase, diskStatus, displayPhase, findPhaseDir, isSentinel, listPhaseDirs, normalizePhase, scanPhase, slugify } from '../planning/phases.ts';
import { countedPhases, type Roadmap } from '../planning/roadmap.ts';
import { listBacklog, listNotes, listSeeds, listThreads, listTodos } from '../planning/capture.ts';
import { KNOWLEDGE_BASE, knowledgeBasePath, listSessions, parseKnowledgeBase, sessionFiles } from '../planning/debug-session.ts';
import { git } from '../core/git.ts';
import { COMPACT_CONTENT_KEY, readInstead, selectSections, type Facts } from '../init/sections.ts';
import { planIndex } from './phase.ts';
import { TABLE } from '../cli/table.ts';
import type { Handler } from '../cli/handler.ts';

type Part =
  | 'phase'
  | 'docs'
  | 'plans'
  | 'plan-settings'
  | 'exec-settings'
  | 'milestone'
  | 'progress'
  | 'queue'
  | 'brownfield'
  | 'quick'
  | 'todos'
  | 'resume'
  | 'archives'
  | 'search'
  | 'verify'
  | 'debug'
  | 'capture'
  | 'git'
  | 'install'
  | 'review'
  | 'forensics';

export interface InitSpec {
  /** Output key prefix → agent name, e.g. planner → gsd-planner gives planner_model. */
  models: Record<string, string>;
  parts: Part[];
  /** Config keys the workflow reads, answered as their last segment (workflow.ui_phase → ui_phase), defaults applied, so it needs no config-get. */
  settings?: string[];
}

/** The phase loop: discuss, plan, execute, verify, and the generic phase operations. */
const PHASE_LOOP_WORKFLOWS: Record<string, InitSpec> = {
  'discuss-phase': { models: { advisor: 'gsd-advisor-researcher' }, parts: ['phase', 'docs', 'plan-settings'] },
  'discuss-phase-assumptions': { models: { analyzer: 'gsd-assumptions-analyzer' }, parts: ['phase', 'docs', 'plan-settings'] },
  'plan-phase': {
    models: { researcher: 'gsd-phase-researcher', planner: 'gsd-planner', checker: 'gsd-plan-checker', pattern_mapper: 'gsd-pattern-mapper' },
    parts: ['phase', 'docs', 'plan-settings', 'milestone'],
    settings: ['workflow.ui_phase'],
  },
  'execute-phase': {
    models: { executor: 'gsd-executor', verifier: 'gsd-verifier' },
    parts: ['phase', 'docs', 'plans', 'exec-settings', 'milestone'],
  },
  'verify-work': { models: { planner: 'gsd-planner', checker: 'gsd-plan-checker', verifier: 'gsd-verifier', debugger: 'gsd-debugger' }, parts: ['phase', 'docs', 'verify'], settings: ['workflow.plan_check'] },
  'phase-op': { models: {}, parts: ['phase', 'docs', 'search'] },
};

/** Audits and gates run on one phase: review, security, UI, validation, tests, shipping. */
const PHASE_QUALITY_WORKFLOWS: Record<string, InitSpec> = {
  'code-review': { models: { reviewer: 'gsd-code-reviewer', fixer: 'gsd-code-fixer' }, parts: ['phase', 'docs', 'review'] },
  'secure-phase': { models: { auditor: 'gsd-security-auditor' }, parts: ['phase', 'docs'], settings: ['workflow.security_block_on', 'workflow.security_asvs_level'] },
  'ui-phase': { models: { researcher: 'gsd-ui-researcher', checker: 'gsd-ui-checker' }, parts: ['phase', 'docs', 'search'], settings: ['workflow.ui_phase', 'workflow.ui_safety_gate', 'workflow.text_mode'] },
  'ui-review': { models: { auditor: 'gsd-ui-auditor' }, parts: ['phase', 'docs'] },
  'spec-phase': { models: {}, parts: ['phase', 'docs'], settings: ['workflow.text_mode'] },
  'mvp-phase': { models: {}, parts: ['phase', 'docs'], settings: ['workflow.text_mode'] },
  'ai-integration-phase': {
    models: { selector: 'gsd-framework-selector', ai_researcher: 'gsd-ai-researcher', domain_researcher: 'gsd-domain-researcher', eval_planner: 'gsd-eval-planner' },
    parts: ['phase', 'docs', 'search'],
    settings: ['workflow.text_mode'],
  },
  'eval-review': { models: { auditor: 'gsd-eval-auditor' }, parts: ['phase', 'docs'] },
  'validate-phase': { models: { auditor: 'gsd-nyquist-auditor' }, parts: ['phase', 'docs'], settings: ['workflow.nyquist_validation', 'workflow.test_command'] },
  'add-tests': { models: { executor: 'gsd-executor' }, parts: ['phase', 'docs'], settings: ['workflow.test_command'] },
  ship: { models: { reviewer: 'gsd-code-reviewer', writer: 'gsd-doc-writer' }, parts: ['phase', 'docs', 'verify', 'git'] },
};

/** Starting, resuming and closing: the project, its milestones and the progress over them. */
const PROJECT_MILESTONE_WORKFLOWS: Record<string, InitSpec> = {
  'new-project': {
    models: { researcher: 'gsd-project-researcher', synthesizer: 'gsd-research-synthesizer', roadmapper: 'gsd-roadmapper' },
    parts: ['brownfield', 'search', 'plan-settings'],
  },
  'map-codebase': { models: { mapper: 'gsd-codebase-mapper' }, parts: ['brownfield'] },
  'ingest-docs': { models: { classifier: 'gsd-doc-classifier', roadmapper: 'gsd-roadmapper' }, parts: ['brownfield'] },
  'docs-update': { models: { classifier: 'gsd-doc-classifier', writer: 'gsd-doc-writer', verifier: 'gsd-doc-verifier' }, parts: ['brownfield'] },
  'new-milestone': {
    models: { researcher: 'gsd-project-researcher', synthesizer: 'gsd-research-synthesizer', roadmapper: 'gsd-roadmapper' },
    parts: ['milestone', 'archives', 'search'],
  },
  'milestone-op': { models: {}, parts: ['milestone', 'archives', 'progress'] },
  'complete-milestone': { models: {}, parts: ['milestone', 'archives', 'progress'] },
  'audit-milestone': { models: { checker: 'gsd-integration-checker' }, parts: ['milestone', 'progress'] },
  progress: { models: { executor: 'gsd-executor', planner: 'gsd-planner' }, parts: ['milestone', 'progress', 'resume'] },
  resume: { models: {}, parts: ['resume', 'milestone', 'progress'] },
  autonomous: { models: { planner: 'gsd-planner', executor: 'gsd-executor', verifier: 'gsd-verifier' }, parts: ['milestone', 'progress', 'queue', 'exec-settings'] },
  forensics: { models: {}, parts: ['milestone', 'progress', 'resume', 'forensics'] },
  'audit-fix': { models: { fixer: 'gsd-code-fixer' }, parts: ['progress'], settings: ['workflow.test_command'] },
};

/** Work beside the roadmap: quick tasks, todos, captures, debugging, and updating GSD itself. */
const SIDE_WORK_WORKFLOWS: Record<string, InitSpec> = {
  quick: {
    models: { planner: 'gsd-planner', executor: 'gsd-executor', checker: 'gsd-plan-checker', verifier: 'gsd-verifier', researcher: 'gsd-phase-researcher', advisor: 'gsd-advisor-researcher' },
    parts: ['quick', 'exec-settings'],
  },
  todos: { models: {}, parts: ['todos'] },
  capture: { models: {}, parts: ['todos', 'capture'] },

  debug: { models: { debugger: 'gsd-debugger' }, parts: ['debug'] },
  update: { models: {}, parts: ['install'] },
};

/** The rows, one per `init <workflow>`. Arguments and flags of each workflow live in command-table.json. */
export const INIT_TABLE: Record<string, InitSpec> = { ...PHASE_LOOP_WORKFLOWS, ...PHASE_QUALITY_WORKFLOWS, ...PROJECT_MILESTONE_WORKFLOWS, ...SIDE_WORK_WORKFLOWS };

interface Cache {
  cfg?: ReturnType<typeof loadConfig>;
  rm?: Roadmap | null;
  info?: PhaseInfo | null;
  state?: { fm: YamlMap; text: string } | null;
  progress?: ReturnType<typeof computeProgress>;
}

class InitContext {
  readonly cache: Cache = {};
  constructor(
    readonly ctx: Ctx,
    readonly inv: Invocation,
    readonly workflow: string,
  ) {}
  get hasProject(): boolean {
    return this.ctx.maybeRoot !== null;
  }
  get cfg() {
    return (this.cache.cfg ??= loadConfig(this.ctx, { optionalProject: true }));
  }
  get resolved(): JsonMap {
    return this.cfg.resolved;
  }
  get rm(): Roadmap | null {
    if (this.cache.rm === undefined) this.cache.rm = this.hasProject ? roadmapFor(this.ctx) : null;
    return this.cache.rm;
  }
  get info(): PhaseInfo | null {
    if (this.cache.info === undefined) {
      const phase = this.inv.args.phase;
      this.cache.info = phase && this.hasProject ? phaseInfo(this.ctx, phase, this.rm) : null;
    }
    return this.cache.info;
  }
  get state(): { fm: YamlMap; text: string } | null {
    if (this.cache.state === undefined) {
      const text = this.hasProject ? readTextIfExists(this.ctx.planningPath('STATE.md')) : null;
      let fm: YamlMap = {};
      if (text !== null) {
        // A frontmatter that does not parse is rebuilt from the body (in memory), as every state command does.
        const sf = parseStateHealing(text, this.ctx.rel(this.ctx.planningPath('STATE.md')));
        if (sf.healed) this.ctx.warn(healWarning(sf, 'read as rebuilt from the body; the next state write or `health --repair` rewrites it and keeps the old bytes beside it'));
        fm = sf.healed ? currentFrontmatter(this.ctx, sf) : sf.fm.data;
      }
      this.cache.state = text === null ? null : { fm, text };
    }
    return this.cache.state;
  }
  flag(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.inv.flags, name) && this.inv.flags[name] !== false;
  }
  wf(key: string): unknown {
    return getPath(this.resolved, `workflow.${key}`);
  }
  rel(p: string | null): string | null {
    return p === null ? null : this.ctx.rel(p);
  }
}

function facts(ic: InitContext): Facts {
  return {
    flag: (n) => ic.flag(n),
    phaseNumber: ic.inv.args.phase ?? null,
    hasPriorPhases: () => {
      const cur = ic.inv.args.phase;
      if (!cur || !ic.hasProject) return false;
      return listPhaseDirs(ic.ctx.planning).some((d) => !isSentinel(d.number) && comparePhase(d.number, cur) < 0 && scanPhase(d.dir, d.number).summaries.length > 0);
    },
    autoAdvanceActive: () => ic.flag('--auto') || ic.wf('auto_advance') === true || ic.wf('_auto_chain_active') === true,
    chunkedMode: () => ic.flag('--chunked') || ic.wf('plan_chunked') === true,
    gitCreateTag: () => getPath(ic.resolved, 'git.create_tag') !== false,
    contextWindow: () => Number(ic.resolved.context_window ?? 0),
    needsCodebaseMap: () => brownfield(ic).needs_codebase_map,
    phaseMode: () => ic.info?.roadmap?.mode ?? null,
    config: (key) => getPath(ic.resolved, key),
  };
}

function isMonorepo(root: string): boolean {
  const pkg = readTextIfExists(path.join(root, 'package.json'));
  if (pkg && /"workspaces"\s*:/.test(pkg)) return true;
  if (['pnpm-workspace.yaml', 'lerna.json', 'nx.json', 'turbo.json', 'go.work', 'rush.json'].some((f) => exists(path.join(root, f)))) return true;
  const cargo = readTextIfExists(path.join(root, 'Cargo.toml'));
  return !!cargo && /^\[workspace\]/m.test(cargo);
}

const PACKAGE_FILES = ['package.json', 'pyproject.toml', 'requirements.txt', 'setup.py', 'Cargo.toml', 'go.mod', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'Gemfile', 'composer.json', 'mix.exs', 'deno.json', 'CMakeLists.txt', 'Makefile'];
const CODE_EXT = /\.(ts|tsx|js|jsx|mjs|cjs|py|rb|go|rs|java|kt|swift|c|cc|cpp|h|hpp|cs|php|ex|exs|scala|vue|svelte|dart|lua|sh)$/;
// Every dot-folder is skipped too (.git, .planning, each runtime's own folder).
const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', 'vendor', 'venv', 'target']);

function hasCode(root: string): boolean {
  let budget = 400;
  const walk = (dir: string, depth: number): boolean => {
    for (const name of listDir(dir)) {
      if (--budget < 0) return false;
      if (SKIP_DIRS.has(name) || name.startsWith('.')) continue;
      const p = path.join(dir, name);
      if (CODE_EXT.test(name)) return true;
      if (depth > 0 && isDir(p) && walk(p, depth - 1)) return true;
    }
    return false;
  };
  return walk(root, 2);
}

function brownfield(ic: InitContext) {
  const root = ic.ctx.rootOrCwd;
  const hasPackage = PACKAGE_FILES.some((f) => exists(path.join(root, f)));
  const hasExisting = hasCode(root);
  const mapExists = isDir(ic.ctx.draftPlanningPath('codebase'));
  const isBrownfield = hasPackage || hasExisting;
  return {
    has_existing_code: hasExisting,
    has_package_file: hasPackage,
    is_brownfield: isBrownfield,
    codebase_map_exists: mapExists,
    needs_codebase_map: isBrownfield && !mapExists,
    has_git: exists(path.join(root, '.git')),
    is_monorepo: isMonorepo(root),
  };
}

/**
 * The command that does each next action, spelled out so the compiler's check
 * can see every command the CLI names. A passed phase is closed by
 * verify-work (it runs `phase complete`).
 */
const NEXT_COMMAND: Record<string, string> = {
  'discuss-phase': '/gsd-discuss-phase',
  'plan-phase': '/gsd-plan-phase',
  'execute-phase': '/gsd-execute-phase',
  'verify-work': '/gsd-verify-work',
  'complete-phase': '/gsd-verify-work',
};

function phaseObject(ic: InitContext, p: { norm: string; number: string; name: string }, checked: Set<string>) {
  const ctx = ic.ctx;
  const dir = findPhaseDir(ctx.planning, p.norm);
  const scan = dir ? scanPhase(dir.dir, p.norm) : null;
  const ds = diskStatus(scan);
  const info = phaseInfo(ctx, p.norm, ic.rm);
  const docs = phaseDocs(info);
  const vstatus = verificationStatus(docs.VERIFICATION ?? null);
  const summaries = scan?.live.filter((x) => x.summary).length ?? 0;
  const status = checked.has(p.norm) || (ds === 'complete' && vstatus === 'passed') ? 'complete' : ds === 'partial' || ds === 'complete' || (ds === 'empty' && !!docs.CONTEXT) ? 'in_progress' : 'pending';
  let next: string;
  if (status === 'complete') next = 'none';
  else if (!scan || scan.live.length === 0) next = docs.CONTEXT ? 'plan-phase' : 'discuss-phase';
  else if (summaries < scan.live.length) next = 'execute-phase';
  else if (vstatus !== 'passed') next = 'verify-work';
  else next = 'complete-phase';
  const command = next === 'none' ? null : `${NEXT_COMMAND[next]} ${p.number}`;
  return {
    number: p.number,
    name: p.name,
    directory: dir ? ctx.rel(dir.dir) : null,
    status,
    disk_status: ds,
    plan_count: scan?.live.length ?? 0,
    summary_count: summaries,
    has_context: !!docs.CONTEXT,
    has_research: !!docs.RESEARCH,
    implementation_complete: ds === 'complete',
    verification_status: vstatus,
    verification_passed: vstatus === 'passed',
    phase_complete: status === 'complete',
    next_action: next,
    next_command: command,
  };
}

function progressPart(ic: InitContext) {
  return (ic.cache.progress ??= computeProgress(ic));
}

function computeProgress(ic: InitContext) {
  const rm = ic.rm;
  const checked = new Set((rm?.bullets ?? []).filter((b) => b.checked).map((b) => b.norm));
  const listed = rm ? countedPhases(rm).map((p) => ({ norm: p.norm, number: p.number, name: p.name })) : [];
  const onDisk = ic.hasProject ? listPhaseDirs(ic.ctx.planning).filter((d) => !isSentinel(d.number) && !listed.some((l) => l.norm === d.number)) : [];
  const all = [...listed, ...onDisk.map((d) => ({ norm: d.number, number: displayPhase(d.number), name: d.slug.replace(/-/g, ' ') }))].sort((a, b) => comparePhase(a.norm, b.norm));
  const phases = all.map((p) => phaseObject(ic, p, checked));
  const current = phases.find((p) => p.status === 'in_progress') ?? phases.find((p) => p.status === 'pending') ?? null;
  const next = current ? (phases.slice(phases.indexOf(current) + 1).find((p) => p.status !== 'complete') ?? null) : null;
  const fm = ic.state?.fm ?? {};
  return {
    phases,
    phase_count: phases.length,
    completed_count: phases.filter((p) => p.status === 'complete').length,
    in_progress_count: phases.filter((p) => p.status === 'in_progress').length,
    current_phase: current,
    next_phase: next,
    all_phases_complete: phases.length > 0 && phases.every((p) => p.status === 'complete'),
    paused_at: typeof fm.paused_at === 'string' ? fm.paused_at : null,
    has_work_in_progress: phases.some((p) => p.status === 'in_progress'),
    roadmap_scope: rm?.scope ?? null,
  };
}

/**
 * The phases a run over the milestone takes on (init autonomous): the numbers
 * of those not complete, in roadmap order, from `--from` on when it is given.
 * A `--from` that names none of the milestone's phases is a usage error.
 */
function queuePart(ic: InitContext) {
  const { phases } = progressPart(ic);
  const from = ic.inv.flags['--from'];
  const start = typeof from === 'string' ? normalizePhase(from) : null;
  if (start !== null && ic.rm && !phases.some((p) => normalizePhase(p.number) === start)) {
    const names = phases.map((p) => p.number).join(', ') || 'none';
    throw new CliError('invalid-args', `init ${ic.workflow}: --from ${displayPhase(start)}: the milestone has no phase ${displayPhase(start)} (its phases: ${names})`);
  }
  const queue = phases.filter((p) => !p.phase_complete && (start === null || comparePhase(normalizePhase(p.number), start) >= 0)).map((p) => p.number);
  return { from_phase: start === null ? null : displayPhase(start), queue };
}

type PartFn = (ic: InitContext) => Record<string, unknown>;

/** What a workflow that works on one phase reads about it: where it is, its documents, its plans and waves, its verification and review depth. */
const PHASE_PARTS = {
  phase: (ic) => {
    const info = ic.info;
    if (!info) return { phase_found: false, phase_number: null };
    const found = !!(info.roadmap || info.bulletName || info.dir);
    return {
      phase_found: found,
      phase_in_roadmap: !!(info.roadmap || info.bulletName),
      phase_dir: ic.rel(info.dir?.dir ?? null),
      expected_phase_dir: ic.rel(info.expectedDir),
      phase_number: info.padded,
      padded_phase: info.padded,
      phase_display: info.number,
      phase_name: info.name,
      phase_slug: info.slug,
      phase_goal: info.roadmap?.goal ?? null,
      phase_req_ids: info.roadmap?.requirements ? info.roadmap.requirements.join(', ') : null,
      phase_mode: info.roadmap?.mode ?? null,
      phase_status: diskStatus(info.scan),
      phase_line: info.roadmap ? info.roadmap.line + 1 : null,
    };
  },
  docs: (ic) => {
    const info = ic.info;
    const docs = info ? phaseDocs(info) : {};
    const p = (k: string) => ic.rel(docs[k] ?? null);
    return {
      has_context: !!docs.CONTEXT,
      has_research: !!docs.RESEARCH,
      has_reviews: !!docs.REVIEWS,
      has_verification: !!docs.VERIFICATION,
      has_uat: !!docs.UAT,
      has_patterns: !!docs.PATTERNS,
      has_spec: !!docs.SPEC,
      has_plans: (info?.scan?.live.length ?? 0) > 0,
      plan_count: info?.scan?.live.length ?? 0,
      context_path: p('CONTEXT'),
      research_path: p('RESEARCH'),
      verification_path: p('VERIFICATION'),
      uat_path: p('UAT'),
      reviews_path: p('REVIEWS'),
      patterns_path: p('PATTERNS'),
      ui_spec_path: p('UI-SPEC'),
      validation_path: p('VALIDATION'),
      ui_review_path: p('UI-REVIEW'),
      review_path: p('REVIEW'),
      review_fix_path: p('REVIEW-FIX'),
      security_path: p('SECURITY'),
      user_setup_path: p('USER-SETUP'),
      spec_path: p('SPEC'),
      ai_spec_path: p('AI-SPEC'),
      eval_review_path: p('EVAL-REVIEW'),
    };
  },
  plans: (ic) => {
    const phase = ic.inv.args.phase;
    if (!phase || !ic.info?.dir) return { plans: [], summaries: [], incomplete_plans: [], plan_count: 0, incomplete_count: 0, waves: {}, runnable_plans: [], runnable_count: 0, blocked_by: {}, has_checkpoints: false, gaps_only: ic.flag('--gaps-only') };
    const gapsOnly = ic.flag('--gaps-only');
    const idx = planIndex(ic.ctx, phase, { gapsOnly });
    const wave = ic.inv.flags['--wave'];
    const inWave = typeof wave === 'number' ? new Set(idx.waves[String(wave)] ?? []) : null;
    const runnable = inWave ? idx.runnable.filter((id) => inWave.has(id)) : idx.runnable;
    return {
      plans: idx.plans.map((p) => p.file),
      summaries: (ic.info.scan?.summaries ?? []).map((s) => path.basename(s)),
      plan_index: idx.plans,
      incomplete_plans: idx.incomplete,
      plan_count: idx.plans.length,
      incomplete_count: idx.incomplete.length,
      waves: idx.waves,
      wave_filter: typeof wave === 'number' ? wave : null,
      runnable_plans: runnable,
      runnable_count: runnable.length,
      blocked_by: idx.blocked_by,
      has_checkpoints: idx.has_checkpoints,
      gaps_only: gapsOnly,
    };
  },
  verify: (ic) => {
    const docs = ic.info ? phaseDocs(ic.info) : {};
    const scan = ic.info?.scan;
    return {
      verification_status: verificationStatus(docs.VERIFICATION ?? null),
      phase_completion: scan ? { plans: scan.live.length, summaries: scan.live.filter((p) => p.summary).length } : null,
      ui_phase_active: !!docs['UI-SPEC'],
    };
  },

  review: (ic) => {
    // --depth wins over workflow.code_review_depth.
    const depth = ic.inv.flags['--depth'];
    return { review_depth: typeof depth === 'string' ? depth : (getPath(ic.resolved, 'workflow.code_review_depth') ?? 'standard') };
  },
} satisfies Partial<Record<Part, PartFn>>;

/** The settings a workflow runs with, from flags over config: planning, execution (branching, worktrees, repair) and the web-search tools present. */
const RUN_SETTING_PARTS = {
  'plan-settings': (ic) => ({
    tdd_mode: ic.flag('--tdd') || ic.wf('tdd_mode') === true,
    granularity: (ic.inv.flags['--granularity'] as string | undefined) ?? getPath(ic.resolved, 'planning.granularity') ?? ic.resolved.granularity,
    research_enabled: !ic.flag('--skip-research') && (ic.flag('--research') || ic.wf('research') !== false),
    plan_checker_enabled: !ic.flag('--skip-verify') && ic.wf('plan_check') !== false,
    ui_gate_enabled: !ic.flag('--skip-ui') && ic.wf('ui_phase') !== false,
    gaps_mode: ic.flag('--gaps'),
    nyquist_validation_enabled: ic.wf('nyquist_validation') !== false,
    pattern_mapper_enabled: ic.wf('pattern_mapper') === true,
    text_mode: ic.wf('text_mode') === true,
    auto_advance: ic.flag('--auto') || ic.wf('auto_advance') === true,
    auto_chain_active: ic.wf('_auto_chain_active') === true,
    discuss_mode: ic.wf('discuss_mode'),
    mode: ic.resolved.mode,
  }),
  'exec-settings': (ic) => {
    const par = ic.resolved.parallelization;
    const strategy = getPath(ic.resolved, 'git.branching_strategy');
    const info = ic.info;
    const milestone = stateMilestoneSafe(ic);
    const template = strategy === 'phase' ? getPath(ic.resolved, 'git.phase_branch_template') : strategy === 'milestone' ? getPath(ic.resolved, 'git.milestone_branch_template') : null;
    const branch = typeof template === 'string'
      ? template
          .replace('{phase}', info?.padded ?? '')
          .replace('{milestone}', milestone ?? '')
          .replace('{slug}', strategy === 'phase' ? (info?.slug ?? '') : slugify(ic.rm?.current?.name ?? ''))
      : null;
    return {
      tdd_mode: ic.flag('--tdd') || ic.wf('tdd_mode') === true,
      parallelization: typeof par === 'object' && par !== null ? (par as JsonMap).enabled !== false : par !== false,
      context_window: ic.resolved.context_window,
      sub_repos: getPath(ic.resolved, 'planning.sub_repos') ?? [],
      branching_strategy: strategy,
      phase_branch_template: getPath(ic.resolved, 'git.phase_branch_template'),
      milestone_branch_template: getPath(ic.resolved, 'git.milestone_branch_template'),
      branch_name: branch,
      verifier_enabled: ic.wf('verifier') !== false,
      use_worktrees: ic.wf('use_worktrees') !== false,
      node_repair: ic.wf('node_repair') !== false,
      // The retries an executor may spend on a failed task before it escalates; 0 when repair is off.
      node_repair_budget: ic.wf('node_repair') === false ? 0 : (ic.wf('node_repair_budget') as number),
    };
  },
  search: (ic) => ({
    brave_search: !!ic.resolved.brave_search || !!ic.ctx.env.BRAVE_API_KEY,
    firecrawl: !!ic.resolved.firecrawl || !!ic.ctx.env.FIRECRAWL_API_KEY,
    exa_search: !!ic.resolved.exa_search || !!ic.ctx.env.EXA_API_KEY,
  }),
} satisfies Partial<Record<Part, PartFn>>;

/** Where the project stands: the current milestone, progress over the phases, archived milestones, where work stopped, and what code exists before GSD. */
const PROJECT_PROGRESS_PARTS = {
  milestone: (ic) => {
    const cur = ic.rm?.current ?? null;
    const version = cur?.version ?? stateMilestoneSafe(ic);
    return {
      milestone_version: version ?? null,
      milestone_name: cur?.name ?? null,
      milestone_slug: cur?.name ? slugify(cur.name) : null,
      roadmap_scope: ic.rm?.scope ?? null,
    };
  },
  progress: (ic) => progressPart(ic),
  queue: (ic) => queuePart(ic),
  archives: (ic) => {
    const dir = ic.ctx.draftPlanningPath('milestones');
    const archived = listDir(dir)
      .map((n) => /^(v\d+(?:\.\d+)*)-ROADMAP\.md$/.exec(n)?.[1])
      .filter((v): v is string => !!v);
    return { archived_milestones: archived, archive_count: archived.length, milestones_dir: ic.ctx.rel(dir) };
  },
  resume: (ic) => {
    const fm = ic.state?.fm ?? {};
    const continueHere = (ic.hasProject ? listPhaseDirs(ic.ctx.planning) : []).map((d) => path.join(d.dir, '.continue-here.md')).find((p) => exists(p)) ?? null;
    const handoff = ic.ctx.draftPlanningPath('HANDOFF.json');
    return {
      stopped_at: typeof fm.stopped_at === 'string' ? fm.stopped_at : null,
      paused_at: typeof fm.paused_at === 'string' ? fm.paused_at : null,
      last_activity: typeof fm.last_activity === 'string' ? fm.last_activity : null,
      status: typeof fm.status === 'string' ? fm.status : null,
      continue_here_path: continueHere ? ic.ctx.rel(continueHere) : null,
      has_continue_here: !!continueHere,
      handoff_path: exists(handoff) ? ic.ctx.rel(handoff) : null,
    };
  },
  brownfield: (ic) => brownfield(ic),
  // Where a post-mortem writes its report: a fresh UTC-stamped name, and the earlier reports to compare with.
  forensics: (ic) => {
    const dir = ic.ctx.draftPlanningPath('forensics');
    return {
      forensics_dir: ic.ctx.rel(dir),
      report_path: ic.ctx.rel(path.join(dir, `report-${utcStamp(ic.ctx.now())}.md`)),
      earlier_reports: listDir(dir)
        .filter((n) => /^report-\d{8}T\d{6}Z\.md$/.test(n))
        .sort()
        .map((n) => ic.ctx.rel(path.join(dir, n))),
    };
  },
} satisfies Partial<Record<Part, PartFn>>;

/** What was noted on the side: the next quick task, pending todos, debug sessions, seeds and threads. */
const CAPTURE_PARTS = {
  quick: (ic) => {
    const desc = ic.inv.args.description ?? '';
    const quickDir = ic.ctx.draftPlanningPath('quick');
    const used = listDir(quickDir).map((n) => Number(/^(\d{1,4})-/.exec(n)?.[1] ?? 0));
    const id = String((used.length ? Math.max(...used) : 0) + 1).padStart(3, '0');
    const slug = slugify(desc, 40) || 'task';
    const tmpl = getPath(ic.resolved, 'git.quick_branch_template');
    const now = ic.ctx.now();
    return {
      quick_id: id,
      slug,
      description: desc || null,
      date: now.toISOString().slice(0, 10),
      timestamp: now.toISOString(),
      quick_dir: ic.ctx.rel(quickDir),
      task_dir: ic.ctx.rel(path.join(quickDir, `${id}-${slug}`)),
      branch_name: typeof tmpl === 'string' ? tmpl.replace('{id}', id).replace('{slug}', slug) : null,
      // --full is the whole pipeline: discuss, research and validate.
      discuss: ic.flag('--discuss') || ic.flag('--full'),
      research: ic.flag('--research') || ic.flag('--full'),
      validate: ic.flag('--validate') || ic.flag('--full'),
    };
  },
  todos: (ic) => {
    const area = ic.inv.args.area;
    const todos = (ic.hasProject ? listTodos(ic.ctx, 'pending') : []).filter((t) => area === undefined || t.area === area).map(({ id, title, area: a }) => ({ id, title, area: a }));
    return { todo_count: todos.length, todos, todos_dir: ic.ctx.rel(ic.ctx.draftPlanningPath('todos', 'pending')) };
  },
  debug: (ic) => {
    const active = ic.hasProject ? listSessions(ic.ctx, 'active') : [];
    const kb = ic.hasProject ? readTextIfExists(knowledgeBasePath(ic.ctx)) : null;
    const desc = ic.inv.args.description?.trim() ?? '';
    return {
      debug_dir: ic.ctx.rel(ic.ctx.draftPlanningPath('debug')),
      active_sessions: active,
      active_count: active.length,
      resolved_count: ic.hasProject ? sessionFiles(ic.ctx, 'resolved').length : 0,
      knowledge_base_path: ic.ctx.rel(ic.ctx.draftPlanningPath('debug', KNOWLEDGE_BASE)),
      knowledge_base_entries: kb === null ? 0 : parseKnowledgeBase(kb, ic.ctx.rel(knowledgeBasePath(ic.ctx))).length,
      description: desc || null,
      slug: desc ? slugify(desc, 40) || null : null,
      diagnose_only: ic.flag('--diagnose'),
    };
  },
  capture: (ic) => {
    const seeds = ic.hasProject ? listSeeds(ic.ctx) : [];
    const threads = ic.hasProject ? listThreads(ic.ctx, 'open') : [];
    return {
      seed_count: seeds.length,
      dormant_seeds: seeds.filter((x) => x.status === 'dormant').map(({ id, title, trigger }) => ({ id, title, trigger })),
      seeds_dir: ic.ctx.rel(ic.ctx.draftPlanningPath('seeds')),
      open_threads: threads.map(({ slug, title, updated }) => ({ slug, title, updated })),
      thread_count: threads.length,
      threads_dir: ic.ctx.rel(ic.ctx.draftPlanningPath('threads')),
      note_count: ic.hasProject ? listNotes(ic.ctx).length : 0,
      backlog: (ic.hasProject ? listBacklog(ic.ctx, 'open') : []).map(({ id, title, status }) => ({ id, title, status })),
    };
  },
} satisfies Partial<Record<Part, PartFn>>;

/** What shipping and updating need: the git branch and remote, and the install this gsd-tools came from. */
const DELIVERY_PARTS = {
  git: (ic) => gitPart(ic),
  install: (ic) => installPart(ic),
} satisfies Partial<Record<Part, PartFn>>;

/** Every part a table row may name; the type makes sure none is missing. */
const PARTS: Record<Part, PartFn> = { ...PHASE_PARTS, ...RUN_SETTING_PARTS, ...PROJECT_PROGRESS_PARTS, ...CAPTURE_PARTS, ...DELIVERY_PARTS };

/** Branch facts for shipping; null fields when git or a remote is missing. */
function gitPart(ic: InitContext) {
  const none = { current_branch: null, base_branch: null, has_remote: false, working_tree_clean: null };
  if (!ic.hasProject) return none;
  const run = (args: string[]) => {
    const r = git(ic.ctx, args);
    return r.ok ? r.stdout.trim() : null;
  };
  if (run(['rev-parse', '--is-inside-work-tree']) !== 'true') return none;
  const configured = getPath(ic.resolved, 'git.base_branch');
  const remoteHead = run(['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  const local = (run(['branch', '--format=%(refname:short)']) ?? '').split('\n');
  const base = typeof configured === 'string' && configured ? configured : remoteHead ? remoteHead.replace(/^origin\//, '') : (['main', 'master', 'trunk'].find((b) => local.includes(b)) ?? null);
  return {
    current_branch: run(['branch', '--show-current']) || null,
    base_branch: base,
    has_remote: (run(['remote']) ?? '') !== '',
    working_tree_clean: run(['status', '--porcelain', '--untracked-files=no']) === '',
  };
}

/** What is installed where this gsd-tools runs from (<root>/gsd-core/bin/). */
function installPart(ic: InitContext) {
  const root = path.resolve(ic.ctx.coreDir, '..');
  const file = path.join(root, 'gsd-install-manifest.json');
  type Installed = { version?: unknown; target?: unknown; scope?: unknown; installedAt?: unknown };
  let installed: Installed | null = null;
  const text = readTextIfExists(file);
  if (text !== null) {
    const decoded = decodeJson<Installed>(text);
    if (decoded.problem) ic.ctx.warn(`${file}: not valid JSON; treating GSD as not installed by gsd-tools install`);
    installed = decoded.value;
  }
  const patches = path.join(root, 'gsd-local-patches');
  const { facts, problem } = readBundleFacts(ic.ctx.coreDir);
  if (problem) ic.ctx.warn(problem);
  const instructions = getPath(ic.resolved, 'claude_md_path');
  return {
    runtime: facts?.target ?? null,
    // The project's instruction file for this runtime (CLAUDE.md, AGENTS.md, ...); claude_md_path overrides it.
    instruction_file: typeof instructions === 'string' && instructions ? instructions : facts ? `./${facts.instructionFile}` : null,
    install_root: root,
    installed: installed !== null,
    installed_version: typeof installed?.version === 'string' ? installed.version : null,
    installed_target: typeof installed?.target === 'string' ? installed.target : null,
    installed_scope: typeof installed?.scope === 'string' ? installed.scope : null,
    installed_at: typeof installed?.installedAt === 'string' ? installed.installedAt : null,
    install_manifest: installed ? file : null,
    local_patches_dir: isDir(patches) ? patches : null,
  };
}

function stateMilestoneSafe(ic: InitContext): string | null {
  if (!ic.hasProject) return null;
  try {
    return stateMilestone(ic.ctx);
  } catch {
    return null;
  }
}

function agentsDir(ctx: Ctx): string {
  return path.resolve(ctx.coreDir, '..', 'agents');
}

/** The bundle's compact variant of `agent` (gsd-core/agents/<agent>.compact.md, where the build puts it), or null. */
function compactAgentPrompt(ctx: Ctx, agent: string): string | null {
  const file = path.join(ctx.coreDir, 'agents', `${agent}.compact.md`);
  return exists(file) ? file : null;
}

function agentInstalled(dir: string, agent: string): boolean {
  return ['.md', '.toml', '.agent.md', '.yaml'].some((ext) => exists(path.join(dir, `${agent}${ext}`)));
}

const init: Handler = (inv, ctx) => {
  const workflow = inv.path[1]!;
  const spec = INIT_TABLE[workflow];
  if (!spec) throw new CliError('unknown-command', `init ${workflow} has no table row`);
  const ic = new InitContext(ctx, inv, workflow);
  const resolved = ic.resolved;
  const runtime = runtimeOf(ctx.env, resolved.runtime, ctx.coreDir);
  const out: Record<string, unknown> = { workflow };
  const compact = getPath(resolved, COMPACT_CONTENT_KEY) === true;
  out.compact_content = compact;
  for (const [key, agent] of Object.entries(spec.models)) {
    out[`${key}_model`] = resolveModel(agent, resolved, runtime).model;
    // The agent's compact prompt, to read in place of its own: only with workflow.compact_content on and the variant shipped.
    out[`${key}_prompt`] = compact ? compactAgentPrompt(ctx, agent) : null;
    // The agent's skills block (agent_skills.<agent>), only when the project configures one.
    const skills = resolveAgentSkills(ctx, resolved, agent);
    for (const w of skills.warnings) ctx.warn(`agent_skills.${agent}: ${w}`);
    if (skills.block) out[`${key}_skills`] = skills.block;
  }
  out.commit_docs = resolved.commit_docs;
  out.model_profile = resolved.model_profile;
  for (const part of spec.parts) Object.assign(out, PARTS[part](ic));
  // `resolved` already holds the schema defaults under the file's values.
  for (const key of spec.settings ?? []) out[key.slice(key.lastIndexOf('.') + 1)] = getPath(resolved, key) ?? null;
  const root = ctx.maybeRoot;
  const planning = root ? ctx.planning : null;
  const dir = agentsDir(ctx);
  const agents = Object.values(spec.models);
  const dirExists = isDir(dir);
  const missing = dirExists ? agents.filter((a) => !agentInstalled(dir, a)) : agents;
  const projectMd = planning ? readTextIfExists(ctx.planningPath('PROJECT.md')) : null;
  const flagsGiven = Object.entries(inv.flags)
    .filter(([k, v]) => k.startsWith('--') && v !== false)
    .map(([k]) => k)
    .sort();
  Object.assign(out, {
    flags: flagsGiven,
    project_root: root,
    planning_exists: planning !== null,
    state_exists: planning ? exists(ctx.planningPath('STATE.md')) : false,
    roadmap_exists: planning ? exists(ctx.planningPath('ROADMAP.md')) : false,
    requirements_exists: planning ? exists(ctx.planningPath('REQUIREMENTS.md')) : false,
    config_exists: ic.cfg.exists,
    project_exists: projectMd !== null,
    project_title: projectMd ? (/^#\s+(.+)$/m.exec(projectMd)?.[1]?.trim() ?? null) : null,
    workstream: root ? ctx.workstream : null,
    // `--ws <name>` for the workflow to pass on to every call and suggested command; empty without one.
    ws_flag: root && ctx.workstream ? `--ws ${ctx.workstream}` : '',
    planning_dir: ctx.rel(ctx.draftPlanningPath()),
    state_path: ctx.rel(ctx.draftPlanningPath('STATE.md')),
    roadmap_path: ctx.rel(ctx.draftPlanningPath('ROADMAP.md')),
    requirements_path: ctx.rel(ctx.draftPlanningPath('REQUIREMENTS.md')),
    config_path: ctx.rel(ic.cfg.path),
    response_language: resolved.response_language ?? null,
    project_code: resolved.project_code ?? null,
    agent_runtime: runtime,
    agents_dir: dir,
    agents_installed: dirExists && missing.length === 0,
    missing_agents: missing,
    section_manifest: selectSections(ctx.coreDir, workflow, facts(ic)),
    // With workflow.compact_content on: bundle path of a step, mode or template → its compact sibling, to read instead.
    read_instead: readInstead(ctx.coreDir, compact),
  });
  return { data: out };
};

export const handlers: Record<string, Handler> = Object.fromEntries(Object.keys(TABLE.commands.init!.subcommands!).map((wf) => [`init ${wf}`, init]));

