// Reads targets/<id>/target.json files, validates them against
// schemas/target.schema.json and loads the files they name.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { compareText, diagnostic, type Diagnostic } from '../diagnostics.ts';
import { linePosition, parseJsonWithPositions, yamlOffset } from '../load/yaml-position.ts';
import { describeSchemaErrors, schemaValidator } from '../schemas.ts';
import { SCOPE_IDS, type Target, type TargetDefinition } from './target-types.ts';

export const DEFAULT_TARGETS_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../targets');

export async function loadTargets(targetsDir = DEFAULT_TARGETS_DIR): Promise<{ targets: Target[]; diagnostics: Diagnostic[] }> {
  const entries = (await readdir(targetsDir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  entries.sort(compareText);
  const targets: Target[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const id of entries) {
    const file = `${id}/target.json`;
    let text: string;
    try {
      text = await readFile(path.join(targetsDir, file), 'utf8');
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
        files[name] = await readFile(path.join(targetsDir, id, name), 'utf8');
      } catch {
        const { line, column } = result.locate(keyPath);
        diagnostics.push(diagnostic(file, line, column, 'target-schema', `expected a file ${id}/${name}, found none`));
      }
    }
    targets.push({ definition: result.definition, files });
  }
  return { targets, diagnostics };
}

/** Pure: text of a target.json → definition or positioned diagnostics. */
export function validateTarget(file: string, text: string) {
  const parsed = parseJsonWithPositions(text);
  const locate = (keyPath: (string | number)[], atKey = false) => linePosition(parsed.lineCounter, yamlOffset(parsed.document, keyPath, atKey));
  if (parsed.error) {
    return { definition: null, locate, diagnostics: [diagnostic(file, parsed.error.line, parsed.error.column, 'target-schema', `expected JSON, found ${parsed.error.message}`)] };
  }
  const validate = schemaValidator('target.schema.json');
  if (!validate(parsed.data)) {
    const diagnostics = describeSchemaErrors(validate.errors, parsed.data).map((finding) => {
      const { line, column } = locate(finding.path, finding.atKey);
      return diagnostic(file, line, column, 'target-schema', finding.message);
    });
    return { definition: null, locate, diagnostics };
  }
  const definition = parsed.data as TargetDefinition;
  const expectedId = file.split('/')[0];
  if (definition.id !== expectedId) {
    const { line, column } = locate(['id']);
    return { definition: null, locate, diagnostics: [diagnostic(file, line, column, 'target-schema', `"id": expected "${expectedId}" (the folder name), found "${definition.id}"`)] };
  }
  return { definition, locate, diagnostics: [] as Diagnostic[] };
}

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
