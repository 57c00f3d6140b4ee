// The hook registry (hooks/hooks.json): which bundled script runs on which
// event, in Claude Code's vocabulary. Targets map events and matchers.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { readJsonFile } from '../util/json-file.ts';

export interface HookEntry {
  id: string;
  entry: string;
  event: string;
  matcher?: string;
  timeout?: number;
  crashPolicy?: 'allow' | 'deny';
  optIn?: boolean;
  description?: string;
  /** A capability's hook: which one, and where capability.json declares it. */
  capability?: { id: string; file: string; line: number; column: number };
}

const FILE = 'hooks/hooks.json';

/**
 * A registry written as a Claude Code settings.json `hooks` object (the
 * upstream corpus's form): each command's script file becomes one entry.
 */
export function loadSettingsHooks(text: string): { hooks: HookEntry[]; diagnostics: Diagnostic[] } {
  const parsed = readJsonFile<unknown>(FILE, text, 'hooks-schema');
  if (parsed.diagnostics.length > 0) return { hooks: [], diagnostics: parsed.diagnostics };
  const events = ((parsed.value ?? {}) as { hooks?: Record<string, { matcher?: string; hooks?: { command?: string; timeout?: number }[] }[]> }).hooks ?? {};
  const hooks: HookEntry[] = [];
  for (const [event, groups] of Object.entries(events)) {
    for (const group of groups ?? []) {
      for (const hook of group.hooks ?? []) {
        const script = /hooks\/([\w.-]+\.(?:js|cjs|sh))/.exec(hook.command ?? '')?.[1];
        if (!script) continue;
        hooks.push({
          id: script.replace(/\.(?:js|cjs|sh)$/, ''),
          entry: script,
          event,
          ...(group.matcher ? { matcher: group.matcher } : {}),
          ...(hook.timeout ? { timeout: hook.timeout } : {}),
        });
      }
    }
  }
  return { hooks, diagnostics: [] };
}

/** Pure: the registry text and the corpus paths → entries or positioned diagnostics. */
export function loadHooks(text: string, corpusPaths: ReadonlySet<string>): { hooks: HookEntry[]; diagnostics: Diagnostic[] } {
  const { value: hooks, locate, diagnostics: invalid } = readJsonFile<HookEntry[]>(FILE, text, 'hooks-schema', 'hooks.schema.json');
  if (!hooks) return { hooks: [], diagnostics: invalid };
  const diagnostics: Diagnostic[] = [];
  const ids = new Set<string>();
  hooks.forEach((hook, index) => {
    if (!corpusPaths.has(`hooks/${hook.entry}`)) {
      const { line, column } = locate([index, 'entry']);
      diagnostics.push(diagnostic(FILE, line, column, 'hooks-schema', `expected a script hooks/${hook.entry}, found none`));
    }
    // One script may serve several events; each (id, event) pair is registered once, from one entry file.
    const key = `${hook.id} ${hook.event}`;
    const other = hooks.find((candidate) => candidate.id === hook.id && candidate.entry !== hook.entry);
    if (ids.has(key) || other) {
      const { line, column } = locate([index, 'id']);
      diagnostics.push(diagnostic(FILE, line, column, 'hooks-schema', other ? `expected "${hook.id}" to name one script, found ${hook.entry} and ${other.entry}` : `expected "${hook.id}" once per event, found ${hook.event} again`));
    }
    ids.add(key);
  });
  return { hooks, diagnostics };
}
