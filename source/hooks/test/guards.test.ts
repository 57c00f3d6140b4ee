// The workflow guard reads only what the workflows leave on disk (an active
// STATE.md status, an open quick task), and the Conventional Commits check
// is opt-in (hooks.conventional_commits, default false).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { bundle, project, runOf, tmpDir, type Run } from '../../runtime/test/helpers.ts';
import { ACTIVE_STATUSES, openQuickTask, QUICK_STALE_MS } from '../workflow-guard.ts';
import vocabulary from '../../runtime/planning/state-status.json' with { type: 'json' };
import { configDefaults } from '../../runtime/config/config.ts';
import hooksJson from '../hooks.json' with { type: 'json' };
import schema from '../../../schemas/config.schema.json' with { type: 'json' };

const s = suite('hooks: workflow guard and commit check');

async function hook(id: string, event: unknown): Promise<Run> {
  const file = path.join(await bundle(), 'hooks', `${id}.cjs`);
  const tmp = tmpDir();
  const r = spawnSync(process.execPath, [file], { input: JSON.stringify(event), encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, TMP: tmp, TEMP: tmp }, timeout: 20_000 });
  return runOf(r);
}

const ON = '{"hooks": {"workflow_guard": true}}';
const state = (status: string) => `---\nstatus: ${status}\n---\n# State\n`;
const edit = (root: string) => ({ cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'src/x.ts', content: '' } });
const advised = (r: Run) => r.json?.hookSpecificOutput?.code === 'WORKFLOW_ADVISORY';

s('should stay quiet while a status the vocabulary marks active is recorded, and advise otherwise', async () => {
  assert.equal([...ACTIVE_STATUSES].sort(), vocabulary.statuses.filter((row) => row.active).map((row) => row.status).sort(), 'the guard knows the active statuses of state-status.json');
  for (const [status, quiet] of [['executing', true], ['planning', true], ['verifying', true], ['discussing', true], ['ready_to_execute', false], ['ready_to_plan', false], ['completed', false], ['paused', false]] as [string, boolean][]) {
    const root = project({ '.planning/STATE.md': state(status), '.planning/config.json': ON });
    const r = await hook('gsd-workflow-guard', edit(root));
    assert.is(r.code, 0);
    assert.is(advised(r), !quiet, status);
  }
});

s('should count a quick task as open from its PLAN.md until its SUMMARY.md, and not once it is stale', async () => {
  const root = project({ '.planning/STATE.md': state('completed'), '.planning/config.json': ON, '.planning/quick/.keep': '' });
  const dir = path.join(root, '.planning/quick/004-fix-typo');
  fs.mkdirSync(dir);
  assert.ok(advised(await hook('gsd-workflow-guard', edit(root))), 'a folder alone (discussing, researching) is no code change yet');
  fs.writeFileSync(path.join(dir, '004-PLAN.md'), '# plan\n');
  assert.is(openQuickTask(root), '.planning/quick/004-fix-typo');
  let r = await hook('gsd-workflow-guard', edit(root));
  assert.is(r.stdout, '', 'executing the quick plan: quiet');
  fs.writeFileSync(path.join(dir, '004-SUMMARY.md'), '# summary\n');
  assert.is(openQuickTask(root), null);
  assert.ok(advised(await hook('gsd-workflow-guard', edit(root))), 'the task is done');
  fs.rmSync(path.join(dir, '004-SUMMARY.md'));
  const old = new Date(Date.now() - QUICK_STALE_MS - 60_000);
  fs.utimesSync(path.join(dir, '004-PLAN.md'), old, old);
  assert.is(openQuickTask(root), null, 'an abandoned plan does not count');
  r = await hook('gsd-workflow-guard', edit(root));
  assert.ok(advised(r));
  // The old marker nothing ever created means nothing now.
  fs.writeFileSync(path.join(dir, '.active'), '');
  assert.ok(advised(await hook('gsd-workflow-guard', edit(root))));
});

s('should leave the workflow guard off unless opted in', async () => {
  const root = project({ '.planning/STATE.md': state('completed') });
  assert.is((await hook('gsd-workflow-guard', edit(root))).stdout, '');
});

const commit = (cwd: string, message: string) => ({ tool_name: 'Bash', hook_event_name: 'PreToolUse', cwd, tool_input: { command: `git commit -m "${message}"` } });

s('should leave commit messages alone by default and check them only with hooks.conventional_commits: true', async () => {
  assert.is((configDefaults().hooks as Record<string, unknown>).conventional_commits, false);
  assert.is((schema as { properties: { hooks: { properties: { conventional_commits: { default: boolean } } } } }).properties.hooks.properties.conventional_commits.default, false);
  const entry = hooksJson.find((h) => h.id === 'gsd-validate-commit')!;
  assert.match(entry.description, /^Opt-in \(hooks\.conventional_commits: true\)/);
  let r = await hook('gsd-validate-commit', commit(tmpDir(), 'wip'));
  assert.is(r.code, 0, 'no project: off');
  assert.is(r.stdout, '');
  r = await hook('gsd-validate-commit', commit(project({}), 'wip'));
  assert.is(r.code, 0, 'a project without the setting: off');
  const on = project({ '.planning/config.json': '{"hooks": {"conventional_commits": true}}' });
  r = await hook('gsd-validate-commit', commit(on, 'wip'));
  assert.is(r.code, 2);
  assert.match(r.json.hookSpecificOutput.permissionDecisionReason, /"wip" is not a Conventional Commit header/);
  r = await hook('gsd-validate-commit', commit(on, 'chore(deps): bump'));
  assert.is(r.code, 0);
  const off = project({ '.planning/config.json': '{"hooks": {"conventional_commits": false}}' });
  r = await hook('gsd-validate-commit', commit(off, 'wip'));
  assert.is(r.code, 0);
});

s.run();
