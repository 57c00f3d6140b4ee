// The JSON data-file reader (load/yaml-position.ts parseJsonWithPositions):
// well-formed JSON is read with JSON.parse and positioned by `yaml` only when
// asked; a key written twice in one object, or text that is not JSON, still
// gets `yaml`'s verdict with its line and column. Each case is held against
// what `yaml` alone says of the same text.
import { LineCounter, parseDocument } from 'yaml';
import { linePosition, parseJsonWithPositions, yamlOffset } from '../load/yaml-position.ts';
import { readJsonFile } from '../util/json-file.ts';
import { suite, assert } from './harness.ts';

const json = suite('JSON data files with positions');

/** What `yaml` alone makes of the text: its data or first error, and where each path is. */
function byYaml(text: string, paths: readonly (string | number)[][]) {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const first = document.errors[0];
  return {
    data: first ? null : (document.toJS() as unknown),
    error: first ? { ...linePosition(lineCounter, first.pos[0]), message: first.message.split('\n')[0] } : null,
    places: paths.map((at) => [linePosition(lineCounter, yamlOffset(document, at)), linePosition(lineCounter, yamlOffset(document, at, true))]),
  };
}

function read(text: string, paths: readonly (string | number)[][]) {
  const parsed = parseJsonWithPositions(text);
  return { data: parsed.data, error: parsed.error, places: paths.map((at) => [parsed.locate(at), parsed.locate(at, true)]) };
}

json('should read what yaml reads, and place every path where yaml does', () => {
  const cases: [string, (string | number)[][]][] = [
    ['{"id": "codex", "scopes": {"global": {"root": ".codex"}, "local": {"root": ".codex"}}}', [['id'], ['scopes', 'local', 'root'], ['missing', 'x']]],
    ['{\n  "a": [1, {"b": "x:\\"y\\"", "c\\"": null}],\n  "d": "\\\\",\n  "e": {}\n}\n', [['a', 1, 'b'], ['a', 1, 'c"'], ['d'], ['e']]],
    ['[{"k": 1}, {"k": 2}]', [[1, 'k'], [0]]],
    ['{"colon": ":", "quote\\\\": "\\"", "x": "a\\u0022:"}', [['x'], ['quote\\']]],
    ['{"__proto__": {"polluted": true}, "n": -1.5e3}', [['n']]],
    ['"just a string"', [[]]],
  ];
  for (const [text, paths] of cases) {
    assert.equal(read(text, paths), byYaml(text, paths), text);
    assert.equal(read(text, paths).data, JSON.parse(text), text);
  }
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

json('should refuse a key written twice in one object at its place, as yaml does', () => {
  const cases = [
    '{"a": 1, "a": 2}',
    '{\n  "outer": {\n    "x": 1,\n    "x" : 1\n  }\n}',
    '[{"k": 1}, {"k": 1, "j": 2, "k": 3}]',
    '{"a\\u0062": 1, "ab": 2}',
    '{"s": "\\"a\\": 1", "s": 2}',
  ];
  for (const text of cases) {
    const parsed = parseJsonWithPositions(text);
    assert.ok(parsed.error, text);
    assert.equal(parsed.data, null, text);
    assert.equal(read(text, [['a']]), byYaml(text, [['a']]), text);
  }
  // Through the data-file reader: one diagnostic at the second key, no value.
  const twice = readJsonFile('targets/x/target.json', '{\n  "id": "x",\n  "id": "y"\n}\n', 'target-schema', 'target.schema.json');
  assert.is(twice.value, null);
  assert.equal(twice.diagnostics.map((d) => [d.file, d.line, d.column, d.code]), [['targets/x/target.json', 3, 3, 'target-schema']]);
  assert.match(twice.diagnostics[0]!.message, /^expected JSON, found .*unique/);
  // Equal keys in different objects are not repeats.
  assert.equal(parseJsonWithPositions('{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}').error, null);
});

json('should leave text that is not JSON to yaml, error or data, as before', () => {
  for (const text of ['{"a": 1,}', '{a: 1}', '{"a": 1', '', '\uFEFF{"a": 1}', '{"a": 1} # note', '{"a": "unterminated}']) {
    assert.equal(read(text, [['a']]), byYaml(text, [['a']]), JSON.stringify(text));
  }
});

json('should name a schema finding in a well-formed file at its line and column', () => {
  const text = '{\n  "id": "x",\n  "scopes": {\n    "global": { "root": 5 }\n  }\n}\n';
  const schema = 'target.schema.json';
  const file = readJsonFile('targets/x/target.json', text, 'target-schema', schema);
  assert.equal(file.value, null);
  assert.ok(file.diagnostics.length > 0);
  assert.ok(file.diagnostics.every((d) => d.file === 'targets/x/target.json' && d.line >= 1 && d.column >= 1));
  assert.ok(file.diagnostics.some((d) => d.line === 4), JSON.stringify(file.diagnostics));
});

json.run();
