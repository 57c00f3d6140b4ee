// Reads targets/<id>/target.json files, validates them against
// schemas/target.schema.json and loads the files they name, the runtime's hook
// payload (hook-payload.json) and what it documents (facts.json), which the
// definition is checked against (check-facts.ts).
// Read synchronously: some ninety small files, each a trip through libuv's threads as a promise, the
// next one asked only once the last one came back (a tenth of a cold build's time before the parse).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compareText, diagnostic, type Diagnostic } from '../diagnostics.ts';
import { readJsonFile } from '../util/json-file.ts';
import { describeSchemaErrors, schemaValidator } from '../schemas.ts';
import { HOOK_FORMATS } from '../emit/hook-formats.ts';
import { checkFacts, FACTS_FILE } from './check-facts.ts';
import { mergeScope, originOf } from './merge-scopes.ts';
import { DEFAULT_TARGETS_DIR } from '../locations.ts';
import { SCOPE_IDS, type ScopeId, type Target, type TargetDefinition, type TargetFacts, type TargetScope } from './target-types.ts';

/** The runtime's hook payload (event, tool and argument names, answer protocol), beside target.json. */
export const HOOK_PAYLOAD_FILE = 'hook-payload.json';

export { DEFAULT_TARGETS_DIR };

export async function loadTargets(targetsDir = DEFAULT_TARGETS_DIR): Promise<{ targets: Target[]; diagnostics: Diagnostic[] }> {
  const entries = readdirSync(targetsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  entries.sort(compareText);
  const targets: Target[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const id of entries) {
    const file = `${id}/target.json`;
    let text: string;
    try {
      text = readFileSync(path.join(targetsDir, file), 'utf8');
    } catch {
      continue;
    }
    const result = validateTarget(file, text);
    diagnostics.push(...result.diagnostics);
    if (!result.definition) continue;
    const files: Record<string, string> = {};
    for (const { name, keyPath } of namedFiles(result.definition)) {
      if (name in files) continue;
      try {
        files[name] = readFileSync(path.join(targetsDir, id, name), 'utf8');
      } catch {
        const { line, column } = result.locate(keyPath);
        diagnostics.push(diagnostic(file, line, column, 'target-schema', `expected a file ${id}/${name}, found none`));
      }
    }
    const payload = loadSideFile(targetsDir, id, HOOK_PAYLOAD_FILE, 'hook-payload.schema.json', 'target-schema');
    diagnostics.push(...payload.diagnostics);
    const facts = loadSideFile(targetsDir, id, FACTS_FILE, 'facts.schema.json', 'target-facts');
    diagnostics.push(...facts.diagnostics);
    if (facts.data) {
      const { locateScope } = result;
      diagnostics.push(...checkFacts({ id, definition: result.definition, facts: facts.data as unknown as TargetFacts, locateTarget: (keyPath) => result.locate(keyPath), locateScope, locateFacts: facts.locate }));
    }
    targets.push({
      definition: result.definition,
      files,
      ...(payload.data ? { hookPayload: payload.data } : {}),
      ...(facts.data ? { facts: facts.data as unknown as TargetFacts } : {}),
    });
  }
  return { targets, diagnostics };
}

/** A JSON file beside target.json (hook-payload.json, facts.json), when the folder has one: validated against its schema, positioned. */
function loadSideFile(targetsDir: string, id: string, name: string, schema: string, code: 'target-schema' | 'target-facts') {
  const file = `${id}/${name}`;
  const none = { data: null, locate: (_keyPath: (string | number)[]) => ({ line: 1, column: 1 }), diagnostics: [] as Diagnostic[] };
  let text: string;
  try {
    text = readFileSync(path.join(targetsDir, file), 'utf8');
  } catch {
    return none;
  }
  const { value, locate, diagnostics } = readJsonFile<Record<string, unknown>>(file, text, code, schema);
  if (!value) return { ...none, diagnostics };
  const { $schema: _schema, ...data } = value;
  return { data, locate, diagnostics: [] as Diagnostic[] };
}

/** Pure: text of a target.json → definition or positioned diagnostics. */
export function validateTarget(file: string, text: string) {
  const { value: raw, locate, diagnostics: invalid } = readJsonFile<RawDefinition>(file, text, 'target-schema', 'target.schema.json');
  if (!raw) return { definition: null, locate, locateScope: noScope, diagnostics: invalid };
  const expectedId = file.split('/')[0];
  if (raw.id !== expectedId) {
    const { line, column } = locate(['id']);
    return { definition: null, locate, locateScope: noScope, diagnostics: [diagnostic(file, line, column, 'target-schema', `"id": expected "${expectedId}" (the folder name), found "${raw.id}"`)] };
  }
  const { shared, scopes, ...rest } = raw;
  const diagnostics: Diagnostic[] = [];
  const merged: Partial<Record<ScopeId, TargetScope>> = {};
  const complete = schemaValidator('target.schema.json', 'scope');
  for (const id of SCOPE_IDS) {
    const own = scopes[id];
    if (!own) continue;
    const { value, conflicts } = mergeScope(shared, own, id);
    for (const at of conflicts) {
      const { line, column } = locate(['scopes', id, ...at]);
      diagnostics.push(diagnostic(file, line, column, 'target-schema', `"scopes.${id}.${at.join('.')}": expected a value set once, in "shared" or in the scope, found it in both`));
    }
    if (!complete(value)) {
      for (const finding of describeSchemaErrors(complete.errors, value)) {
        const { line, column } = locate(originOf(shared, own, finding.path, id), finding.atKey);
        diagnostics.push(diagnostic(file, line, column, 'target-schema', `scope ${id}: ${finding.message}`));
      }
    }
    const hookFormatName = (value.hooks as { format?: unknown } | undefined)?.format;
    if (typeof hookFormatName === 'string' && !Object.hasOwn(HOOK_FORMATS, hookFormatName)) {
      const { line, column } = locate(originOf(shared, own, ['hooks', 'format'], id));
      diagnostics.push(diagnostic(file, line, column, 'target-schema', `"hooks.format": expected one of ${Object.keys(HOOK_FORMATS).join(', ')}, found "${hookFormatName}"`));
    }
    merged[id] = value as unknown as TargetScope;
  }
  /** Where a value of a merged scope was written: in shared or in the scope's own block. */
  const locateScope = (scope: ScopeId, keyPath: (string | number)[]) => locate(originOf(shared, scopes[scope], keyPath, scope));
  if (diagnostics.length > 0) return { definition: null, locate, locateScope, diagnostics };
  const definition: TargetDefinition = { ...(rest as Omit<TargetDefinition, 'scopes'>), scopes: merged };
  return { definition, locate, locateScope, diagnostics };
}

const noScope = (_scope: ScopeId, _keyPath: (string | number)[]) => ({ line: 1, column: 1 });

/** A target.json as written: the scopes before their merge with shared. */
type RawDefinition = Omit<TargetDefinition, 'scopes'> & {
  shared?: Record<string, Json>;
  scopes: Partial<Record<ScopeId, Record<string, Json>>>;
};
type Json = Parameters<typeof mergeScope>[1][string];

/** Files in the target's folder that the definition names (preambles, templates, config text). */
function namedFiles(definition: TargetDefinition): { name: string; keyPath: (string | number)[] }[] {
  const named: { name: string; keyPath: (string | number)[] }[] = [];
  for (const scope of SCOPE_IDS) {
    const definitionScope = definition.scopes[scope];
    if (!definitionScope) continue;
    definitionScope.commands.forEach((surface, index) => {
      if (surface.preamble) named.push({ name: surface.preamble, keyPath: ['scopes', scope, 'commands', index, 'preamble'] });
      if (surface.template) named.push({ name: surface.template, keyPath: ['scopes', scope, 'commands', index, 'template'] });
    });
    (definitionScope.config ?? []).forEach((config, index) => {
      if (config.file) named.push({ name: config.file, keyPath: ['scopes', scope, 'config', index, 'file'] });
    });
  }
  return named;
}
