// The project's build config: gsd-build.json in the folder gsd-build runs in
// (schemas/build-config.schema.json). Its `capabilities` are composed in as if
// each were given with --capability, folders taken relative to the file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { readJsonFile } from '../util/json-file.ts';
import { BUILD_CONFIG_FILE } from '../locations.ts';


export interface BuildConfig {
  /** The folder of the file: relative folders and npm packages resolve from here. */
  dir: string;
  /** Capabilities as written, each with its position in the file. */
  capabilities: { spec: string; line: number; column: number }[];
}

/** gsd-build.json of `cwd`, or null when there is none; findings are positioned in the file. */
export function readBuildConfig(cwd: string): { config: BuildConfig | null; diagnostics: Diagnostic[] } {
  const file = path.join(cwd, BUILD_CONFIG_FILE);
  if (!existsSync(file)) return { config: null, diagnostics: [] };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { config: null, diagnostics: [diagnostic(BUILD_CONFIG_FILE, 1, 1, 'build-config', `expected a readable file, found ${(error as NodeJS.ErrnoException).code ?? 'an error'}`)] };
  }
  const { value, locate, diagnostics } = readJsonFile<{ capabilities?: string[] }>(BUILD_CONFIG_FILE, text, 'build-config', 'build-config.schema.json');
  if (!value) return { config: null, diagnostics };
  const capabilities = (value.capabilities ?? []).map((spec, index) => ({ spec, ...locate(['capabilities', index]) }));
  return { config: { dir: cwd, capabilities }, diagnostics: [] };
}
