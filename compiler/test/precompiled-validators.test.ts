// The validators the prebuilt compiler ships (compiler/schemas.ts
// precompiledValidators, written into compiler/lib by scripts/build-compiler.mjs)
// must judge every document exactly as the validators compiled at run time:
// the same verdict and the same errors, on valid and on broken data.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { REPO_ROOT } from '../pipeline.ts';
import { precompiledValidators, schemaValidator } from '../schemas.ts';
import { suite, assert } from './harness.ts';

const precompiled = suite('precompiled validators');

/** The generated module, loaded as the lib loads it (CommonJS, ajv's runtime helpers from node_modules). */
async function load(): Promise<Record<string, ValidateFunction>> {
  const code = await precompiledValidators();
  const module = { exports: {} as { validators: Record<string, ValidateFunction> } };
  const require = createRequire(path.join(REPO_ROOT, 'compiler/lib/validators.cjs'));
  new Function('exports', 'require', 'module', code)(module.exports, require, module);
  return module.exports.validators;
}

const sameVerdict = (key: string, ahead: ValidateFunction, runtime: ValidateFunction, data: unknown) => {
  const verdict = ahead(data);
  assert.is(verdict, runtime(data), `${key}: verdict on ${JSON.stringify(data).slice(0, 80)}`);
  assert.equal(ahead.errors ?? null, runtime.errors ?? null, `${key}: errors`);
  return verdict;
};

precompiled('should hold every schema the compiler validates with, each judging as the run-time validator does', async () => {
  const validators = await load();
  for (const name of ['target.schema.json', 'hooks.schema.json', 'layout.schema.json', 'capability.schema.json', 'profiles.schema.json', 'budgets.schema.json', 'command.schema.json', 'agent.schema.json', 'manifest.schema.json']) {
    assert.type(validators[name], 'function', `${name} precompiled`);
  }
  assert.type(validators['target.schema.json#scope'], 'function', 'a definition the compiler validates with');
  // Every target definition as it is, and broken: a required key removed, a key added, a value of the wrong type.
  const targets = readdirSync(path.join(REPO_ROOT, 'targets'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
  assert.ok(targets.length >= 10);
  let refused = 0;
  for (const entry of targets) {
    const definition = JSON.parse(readFileSync(path.join(REPO_ROOT, 'targets', entry.name, 'target.json'), 'utf8')) as Record<string, unknown>;
    const key = 'target.schema.json';
    assert.ok(sameVerdict(key, validators[key]!, schemaValidator(key), definition), `${entry.name}: valid`);
    const broken = [{ ...definition, scopes: undefined }, { ...definition, unknownKey: 1 }, { ...definition, id: 42 }, { ...definition, scopes: 'none' }].map((data) => JSON.parse(JSON.stringify(data)) as unknown);
    for (const data of broken) if (!sameVerdict(key, validators[key]!, schemaValidator(key), data)) refused += 1;
  }
  assert.is(refused, targets.length * 4, 'every broken definition refused by both');
  assert.not.ok(sameVerdict('hooks.schema.json', validators['hooks.schema.json']!, schemaValidator('hooks.schema.json'), [{ id: 3 }]));
});

precompiled.run();
