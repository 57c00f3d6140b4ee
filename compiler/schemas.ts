// JSON Schemas of schemas/, compiled once with ajv, and a translation of ajv
// errors into positioned diagnostics. The prebuilt compiler (compiler/lib,
// scripts/build-compiler.mjs) ships every validator compiled ahead of time
// (precompiledValidators): compiling them costs about a second per start,
// more than the rest of a one-file rebuild. The checkout's bin runs the lib
// only while the schemas it was compiled from are unchanged.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
// ajv is loaded when a schema is compiled here: the prebuilt compiler's validators are compiled ahead of time.
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';

/** Defined (true) by scripts/build-compiler.mjs in the prebuilt compiler only. */
declare const GSD_BUILD_LIB: boolean | undefined;

const AJV_OPTIONS = { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true } as const;
/** The file the prebuilt compiler's validators are in, beside its modules. */
export const PRECOMPILED_FILE = 'validators.cjs';

const requireHere = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const cache = new Map<string, ValidateFunction>();
const SCHEMAS = new URL('../schemas/', import.meta.url);

/** The precompiled validators (key → function) when this is the prebuilt compiler, else null. */
const precompiled: Record<string, ValidateFunction> | null =
  typeof GSD_BUILD_LIB !== 'undefined' && GSD_BUILD_LIB ? (requireHere(`./lib/${PRECOMPILED_FILE}`) as { validators: Record<string, ValidateFunction> }).validators : null;

function readSchema(name: string): { $id?: string; definitions?: Record<string, unknown> } {
  return JSON.parse(readFileSync(new URL(name, SCHEMAS), 'utf8')) as { $id?: string };
}

/** The validator of a schema of schemas/, or of one of its definitions. */
export function schemaValidator(name: string, definition?: string): ValidateFunction {
  const key = definition ? `${name}#${definition}` : name;
  let validate = cache.get(key);
  if (!validate) {
    const ready = precompiled?.[key];
    if (ready) {
      // As ajv.compile gives it: the schema (of the whole file, or of the definition) beside the function.
      const whole = readSchema(name);
      ready.schema = (definition ? whole.definitions?.[definition] : whole) as ValidateFunction['schema'];
      validate = ready;
    } else if (definition) {
      const whole = schemaValidator(name).schema as { $id?: string };
      validate = compiler().getSchema(`${whole.$id}#/definitions/${definition}`);
      if (!validate) throw new Error(`internal: ${name} has no definition ${definition}`);
    } else {
      validate = compiler().compile(readSchema(name));
    }
    cache.set(key, validate);
  }
  return validate;
}

/** ajv's constructor, loaded on first use. */
function ajvClass(): typeof Ajv {
  return (requireHere('ajv') as { Ajv: typeof Ajv }).Ajv;
}

function compiler(): Ajv {
  ajv ??= new (ajvClass())(AJV_OPTIONS);
  return ajv;
}

/**
 * Every schema of schemas/ and each of its definitions, compiled with the
 * options above into one CommonJS module (ajv standalone code) exporting
 * `validators`: key (`name` or `name#definition`) → validator. A schema
 * or definition these options cannot compile is not in it.
 */
export async function precompiledValidators(): Promise<string> {
  // A CommonJS module: its default import is module.exports, the function itself.
  const standaloneCode = (await import('ajv/dist/standalone/index.js')).default as unknown as (ajv: Ajv, refs: Record<string, string>) => string;
  const generator = new (ajvClass())({ ...AJV_OPTIONS, code: { source: true } });
  const exports: Record<string, string> = {};
  const keys: Record<string, string> = {};
  const names = readdirSync(SCHEMAS).filter((file) => file.endsWith('.schema.json')).sort();
  for (const name of names) {
    const schema = readSchema(name);
    // A schema these options refuse (another tool validates it) is left out: schemaValidator compiles, and refuses, it as before.
    try {
      generator.compile(schema);
    } catch {
      generator.removeSchema(schema.$id);
      continue;
    }
    for (const [key, ref] of [[name, schema.$id!], ...Object.keys(schema.definitions ?? {}).sort().map((definition) => [`${name}#${definition}`, `${schema.$id}#/definitions/${definition}`])] as [string, string][]) {
      try {
        if (!generator.getSchema(ref)) continue;
      } catch {
        continue;
      }
      const exported = `v${Object.keys(exports).length}`;
      exports[exported] = ref;
      keys[key] = exported;
    }
  }
  const code = standaloneCode(generator, exports);
  return `${code}\nexports.validators = {${Object.entries(keys).map(([key, exported]) => `${JSON.stringify(key)}: exports.${exported}`).join(', ')}};\n`;
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
