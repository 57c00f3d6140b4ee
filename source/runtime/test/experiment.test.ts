// Spikes and sketches: numbered folders, a wrap-up that needs FINDINGS.md and
// writes the verdict into .planning/FINDINGS.md, through the bundled CLI.
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { project, read, run } from './helpers.ts';

const s = suite('runtime experiment');

s('should number spikes per kind, list them and wrap one up into FINDINGS.md', async () => {
  const root = project({ '.planning/spikes/004-old-try/README.md': '---\nid: "004"\nkind: spike\ntitle: Old try\nstatus: open\n---\n\n# Old try\n' });
  let r = await run(['experiment', 'add', 'spike', 'Stream', 'big', 'CSV', '--question', 'Can we parse 1 GB under 2 s?'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.id, '005');
  assert.is(r.json.dir, '.planning/spikes/005-stream-big-csv');
  assert.match(read(root, '.planning/spikes/005-stream-big-csv/README.md'), /^question: Can we parse 1 GB under 2 s\?$/m);
  r = await run(['experiment', 'add', 'sketch', 'Settings page', '--question', 'Tabs or one long page?'], { cwd: root });
  assert.is(r.json.id, '001', 'sketches are numbered apart from spikes');
  r = await run(['experiment', 'list'], { cwd: root });
  assert.equal(r.json.experiments.map((e: { kind: string; id: string }) => `${e.kind}-${e.id}`), ['spike-004', 'spike-005', 'sketch-001']);
  assert.is(r.json.open, 3);

  r = await run(['experiment', 'wrap', 'spike', '5', '--verdict', 'Yes, with a streaming parser.'], { cwd: root });
  assert.is(r.code, 1, 'no findings written yet');
  assert.match(r.stderr, /\.planning\/spikes\/005-stream-big-csv\/FINDINGS\.md is missing/);
  assert.not.ok(fs.existsSync(path.join(root, '.planning/FINDINGS.md')), 'a refused wrap-up writes nothing');

  fs.writeFileSync(path.join(root, '.planning/spikes/005-stream-big-csv/FINDINGS.md'), '# Findings\n\n1.4 s with csv-parse streaming.\n');
  r = await run(['experiment', 'wrap', 'spike', '005', '--verdict', 'Yes, with a streaming parser.'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.status, 'wrapped');
  const index = read(root, '.planning/FINDINGS.md');
  assert.match(index, /^## spike 005: Stream big CSV\n\nYes, with a streaming parser\.\nDetails: \.planning\/spikes\/005-stream-big-csv\/FINDINGS\.md$/m);
  assert.match(read(root, '.planning/spikes/005-stream-big-csv/README.md'), /^status: wrapped$/m);
  r = await run(['experiment', 'wrap', 'spike', '5', '--verdict', 'again'], { cwd: root });
  assert.is(r.code, 1, 'a second wrap-up is refused');
  assert.is(read(root, '.planning/FINDINGS.md'), index, 'and leaves the index alone');
  r = await run(['experiment', 'list', 'spike'], { cwd: root });
  assert.equal(r.json.experiments.map((e: { status: string }) => e.status), ['open', 'wrapped']);
});

s('should refuse an unknown kind, an empty question and a missing experiment', async () => {
  const root = project({});
  let r = await run(['experiment', 'add', 'prototype', 'X', '--question', 'q'], { cwd: root });
  assert.is(r.code, 2);
  assert.match(r.stderr, /kind "prototype" must be one of: spike, sketch/);
  r = await run(['experiment', 'add', 'spike', 'X', '--question', '  '], { cwd: root });
  assert.is(r.code, 2);
  assert.not.ok(fs.existsSync(path.join(root, '.planning/spikes')), 'nothing created');
  r = await run(['experiment', 'wrap', 'sketch', '9', '--verdict', 'v'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /no sketch "9" in \.planning\/sketches/);
});

s.run();
