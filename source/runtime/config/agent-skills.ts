// The <agent_skills> block of one agent: the skill files the project's
// config lists under agent_skills.<agent>, confined to the project, that
// exist. `gsd-tools agent-skills` prints it; `init` returns it beside each
// agent's model, so every spawn gets it without another call.
import fs from 'node:fs';
import type { Ctx } from '../core/context.ts';
import { confine } from '../core/paths.ts';
import { getPath, type JsonMap } from './config.ts';

export interface AgentSkills {
  block: string;
  skills: string[];
  /** How many entries the config lists (some may not resolve). */
  configured: number;
  warnings: string[];
}

export function agentSkills(ctx: Ctx, resolved: JsonMap, agent: string): AgentSkills {
  const raw = getPath(resolved, `agent_skills.${agent}`);
  const list = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
  const warnings: string[] = [];
  const skills: string[] = [];
  for (const p of list) {
    try {
      const abs = confine(ctx.rootOrCwd, p, `agent_skills.${agent}`);
      if (!fs.existsSync(abs)) warnings.push(`${p} does not exist`);
      else skills.push(ctx.rel(abs));
    } catch (error) {
      warnings.push((error as Error).message);
    }
  }
  const block = skills.length ? `<agent_skills>\nRead these skill files before starting:\n${skills.map((s) => `- ${s}`).join('\n')}\n</agent_skills>` : '';
  return { block, skills, configured: list.length, warnings };
}
