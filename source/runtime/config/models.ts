// resolve-model: which model an agent runs on. Order: model_overrides[agent],
// then models[<agent's phase type>], then the profile table
// (model-profiles.json). Aliases become full IDs only with resolve_model_ids.
import profilesJson from '../model-profiles.json' with { type: 'json' };
import type { JsonMap } from './config.ts';

type Tier = 'opus' | 'sonnet' | 'haiku';
interface AgentRow {
  quality: Tier;
  balanced: Tier;
  budget: Tier;
  tier: 'heavy' | 'standard' | 'light';
  phaseType: string | null;
}
interface Profiles {
  profiles: string[];
  defaultProfile: string;
  adaptive: Record<string, Tier>;
  unknownAgent: AgentRow;
  agents: Record<string, AgentRow>;
  modelIds: Record<string, Record<Tier, string>>;
}

export const PROFILES = profilesJson as unknown as Profiles;

export interface ModelAnswer {
  model: string;
  profile: string;
  tier: string;
  source: 'override' | 'phase-type' | 'profile';
  unknown_agent?: true;
}

function isMap(v: unknown): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function resolveModel(agent: string, resolved: JsonMap, runtime?: string): ModelAnswer {
  const known = Object.prototype.hasOwnProperty.call(PROFILES.agents, agent);
  const row = known ? PROFILES.agents[agent]! : PROFILES.unknownAgent;
  const profile = typeof resolved.model_profile === 'string' && PROFILES.profiles.includes(resolved.model_profile) ? resolved.model_profile : PROFILES.defaultProfile;
  let model: string;
  let source: ModelAnswer['source'] = 'profile';
  const overrides = isMap(resolved.model_overrides) ? resolved.model_overrides : {};
  const byPhase = isMap(resolved.models) ? resolved.models : {};
  const override = Object.prototype.hasOwnProperty.call(overrides, agent) ? overrides[agent] : undefined;
  const phaseModel = row.phaseType && Object.prototype.hasOwnProperty.call(byPhase, row.phaseType) ? byPhase[row.phaseType] : undefined;
  if (typeof override === 'string' && override !== '') {
    model = override;
    source = 'override';
  } else if (typeof phaseModel === 'string') {
    model = phaseModel;
    source = 'phase-type';
  } else if (profile === 'inherit') model = 'inherit';
  else if (profile === 'adaptive') model = PROFILES.adaptive[row.tier]!;
  else model = row[profile as 'quality' | 'balanced' | 'budget'];
  const ids = resolved.resolve_model_ids;
  if (ids === 'omit') model = '';
  else if (ids === true) {
    const table = PROFILES.modelIds[runtime ?? 'claude'] ?? PROFILES.modelIds.claude!;
    model = table[model as Tier] ?? model;
  }
  return { model, profile, tier: row.tier, source, ...(known ? {} : { unknown_agent: true as const }) };
}
