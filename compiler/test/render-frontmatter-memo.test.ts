// renderFrontmatter keeps the YAML text of each node tree it serialised and
// reuses it for an equal tree: every rendering must still be what a fresh
// serialisation gives, for values that look alike but are not.
import { Document } from 'yaml';
import { renderFrontmatter, type FrontmatterInput } from '../emit/render-frontmatter.ts';
import type { FrontmatterRule } from '../targets/target-types.ts';
import { suite, assert } from './harness.ts';

const memo = suite('frontmatter memo');

const input = (data: Record<string, unknown>): FrontmatterInput => ({ data, name: 'plan', version: '1.0.0', toolMaps: {}, renderValue: (text) => text });
/** What yaml itself writes for these pairs, no memo involved. */
const fresh = (pairs: Record<string, unknown>) => new Document(pairs).toString({ lineWidth: 0, minContentWidth: 0 });

memo('should give each look-alike value its own text, first and again', () => {
  const rules: FrontmatterRule[] = [{ key: 'value', from: 'value' }];
  const values: unknown[] = [0, -0, NaN, Infinity, -Infinity, '0', 'null', true, 'true', '', 1.5, '1.5', 'a: b', 'multi\nline'];
  for (let round = 0; round < 2; round += 1) {
    for (const value of values) {
      assert.is(renderFrontmatter(rules, input({ value })), fresh({ value }), `round ${round}: ${String(value)} (${typeof value})`);
    }
  }
  assert.is.not(renderFrontmatter(rules, input({ value: -0 })), renderFrontmatter(rules, input({ value: 0 })));
  assert.is.not(renderFrontmatter(rules, input({ value: NaN })), renderFrontmatter(rules, input({ value: Infinity })));
});

memo('should keep quoting and list forms apart', () => {
  const data = { description: 'Plans a phase', tools: ['Read', 'Write'] };
  const forms: FrontmatterRule[][] = [
    [{ key: 'description', from: 'description' }],
    [{ key: 'description', from: 'description', quote: 'double' }],
    [{ key: 'description', from: 'description', quote: 'single' }],
    [{ key: 'tools', from: 'tools', list: 'block' }],
    [{ key: 'tools', from: 'tools', list: 'flow' }],
    [{ key: 'tools', from: 'tools', list: 'comma' }],
    [{ key: 'tools', from: 'tools', list: 'map' }],
  ];
  const first = forms.map((rules) => renderFrontmatter(rules, input(data)));
  assert.is(new Set(first).size, forms.length, 'every form its own text');
  assert.equal(forms.map((rules) => renderFrontmatter(rules, input(data))), first, 'the same again');
  assert.is(first[1], 'description: "Plans a phase"\n');
  assert.is(first[4], 'tools: [ Read, Write ]\n');
  assert.is.not(renderFrontmatter(forms[0]!, input({ ...data, description: 'Plans a phase.' })), first[0], 'a changed value, a changed text');
});

memo.run();
