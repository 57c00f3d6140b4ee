// config-key-unread (check/check-dead-settings.ts): which texts count as a
// reader of a config-schema key. The dotted key counts only whole; its leaf
// alone only as code names it (quoted, a property access, a key), never as a
// word of prose. Keys the schema marks deprecated, and sections of keys, are
// not reported.
import { checkUnreadConfigKeys } from '../check/check-dead-settings.ts';
import { suite, assert } from './harness.ts';

const unread = suite('config-key-unread');

const SCHEMA = JSON.stringify(
  {
    type: 'object',
    properties: {
      effort: { type: 'string' },
      workflow: {
        type: 'object',
        properties: {
          code_review: { type: 'boolean' },
          code_review_depth: { type: 'string' },
        },
      },
      gates: { type: 'object', deprecated: true, description: 'Accepted from upstream configs; GSD does not act on it.' },
      agent_skills: { type: 'object' },
    },
  },
  null,
  2,
);

/** The keys reported unread when `text` is the only reader. */
function unreadKeys(text: string): string[] {
  const diagnostics = checkUnreadConfigKeys({ schema: { file: 'config.schema.json', text: SCHEMA }, readers: new Map([['reader.md', text]]), predicates: null });
  return diagnostics.map((d) => /config key "([^"]+)"/.exec(d.message)![1]!);
}

unread('should not count a key as read because a longer key begins with it (code_review in code_review_depth)', () => {
  const keys = unreadKeys('Depth: `workflow.code_review_depth`, read with getPath(cfg, "workflow.code_review_depth"). effort: \'effort\' agent_skills: 1');
  assert.equal(keys, ['workflow.code_review']);
});

unread('should count a dotted key that stands whole, also at the end of a sentence', () => {
  assert.equal(unreadKeys('Set workflow.code_review. Also workflow.code_review_depth, `effort`, `agent_skills`.'), []);
});

unread('should not count a leaf that is only a word of prose', () => {
  const keys = unreadKeys('A best effort pass; the review (code_review_depth aside) is done by hand. `workflow.code_review`, `agent_skills`.');
  assert.equal(keys, ['effort', 'workflow.code_review_depth']);
});

unread('should count a quoted leaf, in any quote', () => {
  for (const quoted of ["'effort'", '"effort"', '`effort`']) {
    assert.equal(unreadKeys(`read ${quoted}; wf('code_review'), wf("code_review_depth"), 'agent_skills'`), [], quoted);
  }
});

unread('should count a leaf as a property access or an object key', () => {
  assert.equal(unreadKeys('const e = cfg.effort; wf.code_review ?? true; const o = { code_review_depth: 1 }; x.agent_skills'), []);
});

unread('should count a quoted path that opens with the key and goes on into its entries', () => {
  const keys = unreadKeys('getPath(resolved, `agent_skills.${agent}`); cfg.effort; cfg.workflow.code_review; `workflow.code_review_depth`');
  assert.equal(keys, []);
});

unread('should not report a key the schema marks deprecated, nor a section of keys', () => {
  // `gates` and `workflow` are named nowhere: gates is deprecated, workflow only holds keys.
  assert.equal(unreadKeys('`effort`, `workflow.code_review`, `workflow.code_review_depth`, `agent_skills`'), []);
});

unread.run();
