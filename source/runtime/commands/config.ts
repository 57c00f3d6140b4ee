// config-get, config-set, resolve-model.
import fs from 'node:fs';
import path from 'node:path';
import { bool, str } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { writeAtomic } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { scalarString } from '../cli/output.ts';
import {
  checkConfig,
  problemWarning,
  sortConfig,
  coerceValue,
  configDefaults,
  newConfigDefaults,
  deepMerge,
  forgetConfig,
  getPath,
  knownKeys,
  loadConfig,
  maskSecret,
  schemaFor,
  setPath,
  type Json,
  type JsonMap,
} from '../config/config.ts';
import { resolveModel } from '../config/models.ts';
import { runtimeOf } from '../core/bundle-facts.ts';
import { agentSkills as resolveAgentSkills } from '../config/agent-skills.ts';
import { isForbiddenKey } from '../core/json.ts';
import type { Handler } from '../cli/handler.ts';

function checkKey(key: string): void {
  if (!/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/.test(key)) throw new CliError('invalid-args', `config key "${key}" is not a dotted key like workflow.research`);
  const bad = key.split('.').find(isForbiddenKey);
  if (bad) throw new CliError('refused', `config key segment "${bad}" is not allowed`);
}

function suggest(key: string): string {
  const last = key.split('.').pop()!;
  const close = knownKeys().filter((k) => k.endsWith(`.${last}`) || k === last || k.includes(last));
  return close.length ? `; did you mean ${close.slice(0, 3).join(', ')}?` : '';
}

export const configGet: Handler = (inv, ctx: Ctx) => {
  const key = inv.args.key!;
  checkKey(key);
  const cfg = loadConfig(ctx, { optionalProject: true });
  let value: Json | undefined = getPath(cfg.file, key);
  if (key === 'commit_docs' || key === 'search_gitignored') value = getPath(cfg.resolved, key);
  let source = 'file';
  if (value === undefined) {
    const d = str(inv, '--default');
    if (d !== undefined) {
      value = d;
      source = 'default-flag';
    }
  }
  if (value === undefined) {
    value = getPath(cfg.resolved, key) ?? getPath(configDefaults(), key);
    source = 'schema-default';
  }
  if (value === undefined) {
    if (!schemaFor(key)) throw new CliError('not-found', `Key not found: ${key} (not a config key${suggest(key)})`);
    throw new CliError('not-found', `Key not found: ${key}${cfg.exists ? '' : ' (no .planning/config.json)'}`);
  }
  const shown = maskSecret(key, value);
  void source;
  return { data: shown, raw: scalarString(shown) };
};

export const configSet: Handler = (inv, ctx: Ctx) => {
  const key = inv.args.key!;
  checkKey(key);
  if (!schemaFor(key)) throw new CliError('refused', `Unknown config key: "${key}"${suggest(key)}`);
  const value = coerceValue(inv.args.value!, `config-set ${key}`);
  return withLock(`${ctx.planningPath('.lock')}`, () => {
    forgetConfig(ctx);
    // Quiet: a wrong value elsewhere in the file must not stop this key being set (or fixed).
    const cfg = loadConfig(ctx, { quiet: true });
    const next = structuredClone(cfg.raw) as JsonMap;
    const previous = getPath(next, key) ?? null;
    setPath(next, key, value === null ? undefined : value);
    const text = `${JSON.stringify(next, null, 2)}\n`;
    const label = ctx.rel(cfg.path);
    let sorted: ReturnType<typeof sortConfig>;
    try {
      sorted = sortConfig(next, text, `${label} (after setting ${key})`);
    } catch (error) {
      throw new CliError('refused', `config-set ${key}: ${(error as Error).message.replace(/^.*?\): /, '')}`);
    }
    // The value being set must be right; values the file already had wrong stay as they were, and are reported.
    const touches = (k: string) => k === key || k.startsWith(`${key}.`) || key.startsWith(`${k}.`);
    const own = sorted.problems.find((p) => touches(p.key));
    if (own) throw new CliError('refused', `config-set ${key}: ${own.key}: expected ${own.expected}, found ${JSON.stringify(own.found)}`);
    for (const p of sorted.problems) ctx.warn(problemWarning(label, p));
    const changed = JSON.stringify(previous) !== JSON.stringify(value);
    if (changed || cfg.text === null) writeAtomic(cfg.path, text);
    return {
      data: { updated: changed, key, value: maskSecret(key, value), previousValue: maskSecret(key, previous) },
      raw: `${key}=${scalarString(value)}`,
    };
  });
};

export const resolveModelCmd: Handler = (inv, ctx: Ctx) => {
  const cfg = loadConfig(ctx, { optionalProject: true });
  const runtime = runtimeOf(ctx.env, cfg.resolved.runtime, ctx.coreDir);
  const answer = resolveModel(inv.args.agent!, cfg.resolved, runtime);
  return { data: answer, raw: answer.model };
};

export const configNewProject: Handler = (inv, ctx: Ctx) => {
  const choices = inv.flags['<choices>'] ?? {};
  if (choices === null || typeof choices !== 'object' || Array.isArray(choices)) throw new CliError('invalid-args', 'config-new-project: the choices must be a JSON object');
  const file = ctx.draftPlanningPath('config.json');
  const planning = path.dirname(file);
  fs.mkdirSync(planning, { recursive: true });
  return withLock(path.join(planning, '.lock'), () => {
    if (fs.existsSync(file) && !bool(inv, '--force')) return { data: { created: false, reason: 'already_exists', path: ctx.rel(file) } };
    const { $schema: _s, ...defaults } = newConfigDefaults();
    void _s;
    const merged = deepMerge(defaults, choices as JsonMap) as JsonMap;
    delete merged.commit_docs;
    delete merged.search_gitignored;
    const text = `${JSON.stringify(merged, null, 2)}\n`;
    try {
      checkConfig(merged, text, 'config-new-project');
    } catch (error) {
      throw new CliError('refused', (error as Error).message);
    }
    const unknown = Object.keys(choices as object).filter((k) => !schemaFor(k));
    if (unknown.length) throw new CliError('refused', `config-new-project: unknown config key(s) ${unknown.join(', ')}`);
    writeAtomic(file, text);
    return { data: { created: true, path: ctx.rel(file) } };
  });
};

/** Skills for an agent: agent_skills.<agent> (a path or list of paths), each confined to the project. */
export const agentSkills: Handler = (inv, ctx: Ctx) => {
  const agent = inv.args.agent!;
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(agent)) throw new CliError('invalid-args', `agent name "${agent}" must be lowercase letters, digits and hyphens`);
  const cfg = loadConfig(ctx, { optionalProject: true });
  const { block, skills, configured, warnings } = resolveAgentSkills(ctx, cfg.resolved, agent);
  for (const w of warnings) ctx.warn(`agent-skills ${agent}: ${w}`);
  const reason = configured === 0 ? 'not_configured' : skills.length ? 'resolved' : 'configured_unresolved';
  const data = { agent_type: agent, block, skills, skills_count: skills.length, configured: configured > 0, reason, warnings };
  return bool(inv, '--json') ? { data } : { data: block, raw: block };
};

export const handlers: Record<string, Handler> = {
  'agent-skills': agentSkills,
  'config-new-project': configNewProject,
  'config-get': configGet,
  'config-set': configSet,
  'resolve-model': resolveModelCmd,
};
