// JSON Schemas of schemas/, compiled once with ajv, and a translation of ajv
// errors into positioned diagnostics.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const cache = new Map<string, ValidateFunction>();

/** The validator of a schema of schemas/, or of one of its definitions. */
export function schemaValidator(name: string, definition?: string): ValidateFunction {
  const key = definition ? `${name}#${definition}` : name;
  let validate = cache.get(key);
  if (!validate) {
    if (definition) {
      const whole = schemaValidator(name).schema as { $id?: string };
      validate = ajv.getSchema(`${whole.$id}#/definitions/${definition}`);
      if (!validate) throw new Error(`internal: ${name} has no definition ${definition}`);
    } else {
      const schema = JSON.parse(readFileSync(new URL(`../schemas/${name}`, import.meta.url), 'utf8')) as object;
      validate = ajv.compile(schema);
    }
    cache.set(key, validate);
  }
  return validate;
}

export interface SchemaFinding {
  /** Path of keys to the offending value; the last may be the offending key itself. */
  path: (string | number)[];
  /** Whether `path` points at a key (additional or missing property) rather than a value. */
  atKey: boolean;
  message: string;
}

/** One finding per distinct problem, worded "expected X, found Y". */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined, data: unknown): SchemaFinding[] {
  const findings: SchemaFinding[] = [];
  const seen = new Set<string>();
  // anyOf produces one error per branch plus its own; keep the anyOf summary.
  const anyOfPaths = new Set((errors ?? []).filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const error of errors ?? []) {
    if (error.keyword !== 'anyOf' && anyOfPaths.has(error.instancePath)) continue;
    const path = error.instancePath.split('/').slice(1).map(decodePointer);
    let atKey = false;
    let label = path.length ? `"${path.join('.')}"` : 'frontmatter';
    let expected: string;
    const found = describeValue(valueAt(data, path));
    let foundText = found;
    switch (error.keyword) {
      case 'required':
        expected = `a "${(error.params as { missingProperty: string }).missingProperty}" key`;
        foundText = 'none';
        break;
      case 'additionalProperties': {
        const key = (error.params as { additionalProperty: string }).additionalProperty;
        path.push(key);
        atKey = true;
        label = `"${path.join('.')}"`;
        expected = 'only the keys the schema defines';
        foundText = `unknown key "${key}"`;
        break;
      }
      case 'maxLength':
        expected = `at most ${(error.params as { limit: number }).limit} characters`;
        foundText = `${String(valueAt(data, path)).length}`;
        break;
      case 'minLength':
        expected = `at least ${(error.params as { limit: number }).limit} character(s)`;
        break;
      case 'enum':
        expected = `one of ${((error.params as { allowedValues: unknown[] }).allowedValues).map((v) => JSON.stringify(v)).join(', ')}`;
        break;
      case 'pattern':
        expected = `a value matching ${(error.params as { pattern: string }).pattern}`;
        break;
      case 'type':
        expected = article((error.params as { type: string }).type);
        break;
      case 'anyOf':
        expected = 'a value of one of the allowed forms';
        break;
      default:
        expected = `a value that ${error.message ?? 'matches the schema'}`;
    }
    const message = `${label}: expected ${expected}, found ${foundText}`;
    const key = `${path.join('/')}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push({ path, atKey, message });
  }
  return findings;
}

function decodePointer(segment: string): string | number {
  const text = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  return /^\d+$/.test(text) ? Number(text) : text;
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}
