// The one way the compiler reads a JSON data file (target.json, hooks.json,
// budgets.json, hook-payload.json): parsed with positions, held to a schema of
// schemas/, every finding a diagnostic at the offending key or value.
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.ts';
import { parseJsonWithPositions, type Locate } from '../load/yaml-position.ts';
import { describeSchemaErrors, schemaValidator } from '../schemas.ts';

export interface JsonFile<T> {
  /** The data, or null when it is not JSON or does not match the schema. */
  value: T | null;
  locate: Locate;
  diagnostics: Diagnostic[];
}

/** `text` of `file` parsed and, with `schema` (a file of schemas/), validated; findings carry `code`. */
export function readJsonFile<T>(file: string, text: string, code: DiagnosticCode, schema?: string): JsonFile<T> {
  const parsed = parseJsonWithPositions(text);
  const { locate } = parsed;
  if (parsed.error) {
    return { value: null, locate, diagnostics: [diagnostic(file, parsed.error.line, parsed.error.column, code, `expected JSON, found ${parsed.error.message}`)] };
  }
  if (schema === undefined) return { value: parsed.data as T, locate, diagnostics: [] };
  const validate = schemaValidator(schema);
  if (validate(parsed.data)) return { value: parsed.data as T, locate, diagnostics: [] };
  const diagnostics = describeSchemaErrors(validate.errors, parsed.data).map((finding) => {
    const { line, column } = locate(finding.path, finding.atKey);
    return diagnostic(file, line, column, code, finding.message);
  });
  return { value: null, locate, diagnostics };
}
