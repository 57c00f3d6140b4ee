// The model an agent runs on under each profile, read as data from the
// corpus's runtime/model-profiles.json: a profile names a tier alias per
// agent; `adaptive` picks by the agent's routing tier; `inherit` always
// answers inherit; agents not listed take `unknownAgent`.

export interface ProfileModel {
  profile: string;
  model: string;
}

interface ProfilesData {
  profiles: string[];
  defaultProfile?: string;
  adaptive?: Record<string, string>;
  unknownAgent?: Record<string, unknown>;
  agents: Record<string, Record<string, unknown>>;
}

function isProfilesData(value: unknown): value is ProfilesData {
  if (typeof value !== 'object' || value === null) return false;
  const data = value as Partial<ProfilesData>;
  return Array.isArray(data.profiles) && data.profiles.every((p) => typeof p === 'string') && typeof data.agents === 'object' && data.agents !== null;
}

/** The model per profile for an agent; null when there is no profiles file or it has another shape. */
export function modelsPerProfile(agentName: string, data: unknown): { rows: ProfileModel[]; defaultProfile: string | null; listed: boolean } | null {
  if (!isProfilesData(data)) return null;
  const listed = Object.hasOwn(data.agents, agentName);
  const entry = (listed ? data.agents[agentName] : data.unknownAgent) ?? {};
  const rows = data.profiles.map((profile) => {
    let model: unknown = entry[profile];
    if (profile === 'inherit' && model === undefined) model = 'inherit';
    if (profile === 'adaptive' && model === undefined && typeof entry['tier'] === 'string') model = data.adaptive?.[entry['tier']];
    return { profile, model: typeof model === 'string' ? model : '—' };
  });
  return { rows, defaultProfile: typeof data.defaultProfile === 'string' ? data.defaultProfile : null, listed };
}
