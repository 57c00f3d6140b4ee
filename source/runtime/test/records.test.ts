// Captured items (todo, seed, thread), debug sessions with their knowledge
// base, stats and commits, through the bundled CLI.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { project, read, run, standardProject } from './helpers.ts';

const s = suite('runtime records');

s('should add, list and complete todos, and find one by its slug', async () => {
  const root = project({});
  let r = await run(['todo', 'add', 'Fix', 'the', 'login', '--area', 'auth'], { cwd: root });
  assert.is(r.json.id, '2025-03-04-fix-the-login');
  r = await run(['todo', 'add', 'Fix the login'], { cwd: root });
  assert.is(r.json.id, '2025-03-04-fix-the-login-2');
  r = await run(['list-todos', 'auth'], { cwd: root });
  assert.is(r.json.count, 1);
  assert.is(r.json.todos[0].title, 'Fix the login');
  r = await run(['todo', 'complete', 'nothing-like-it'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /no pending todo "nothing-like-it" in \.planning\/todos\/pending; there are: 2025-03-04-fix-the-login, 2025-03-04-fix-the-login-2/);
  r = await run(['todo', 'complete', 'fix-the-login'], { cwd: root });
  assert.is(r.json.completed, true);
  assert.is(r.json.id, '2025-03-04-fix-the-login');
  assert.match(read(root, '.planning/todos/completed/2025-03-04-fix-the-login.md'), /^completed: "2025-03-04T05:06:07\.000Z"$/m);
  assert.not.ok(fs.existsSync(path.join(root, '.planning/todos/pending/2025-03-04-fix-the-login.md')), 'moved, not copied');
  r = await run(['todo', 'list', '--completed'], { cwd: root });
  assert.is(r.json.count, 1);
  r = await run(['todo', 'add', '   '], { cwd: root });
  assert.is(r.code, 2, 'an empty title is a usage error');
});

s('should refuse an ambiguous record name and list the candidates', async () => {
  const root = project({});
  await run(['todo', 'add', 'Fix login'], { cwd: root });
  await run(['todo', 'add', 'Fix login'], { cwd: root });
  const r = await run(['todo', 'complete', '2025-03-04'], { cwd: root });
  assert.is(r.code, 2);
  assert.match(r.stderr, /matches 2 files/);
  const bad = await run(['todo', 'complete', '../../etc/passwd'], { cwd: root });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /is not a file name/);
});

s('should plant numbered seeds and list dormant ones first', async () => {
  const root = project({ '.planning/seeds/SEED-007-old.md': '---\nid: SEED-007\ntitle: Old\ntrigger: never\nstatus: surfaced\n---\n\n# Old\n' });
  let r = await run(['seed', 'add', 'Billing', 'portal', '--trigger', 'when we add paid plans', '--body', 'Stripe customer portal'], { cwd: root });
  assert.equal(r.json, { added: true, id: 'SEED-008', path: '.planning/seeds/SEED-008-billing-portal.md', title: 'Billing portal', trigger: 'when we add paid plans' });
  assert.match(read(root, r.json.path), /^status: dormant$/m);
  assert.match(read(root, r.json.path), /\n# Billing portal\n\nStripe customer portal\n$/);
  r = await run(['seed', 'list'], { cwd: root });
  assert.equal(r.json.seeds.map((x: { id: string }) => x.id), ['SEED-008', 'SEED-007']);
  r = await run(['seed', 'add', 'No trigger'], { cwd: root });
  assert.is(r.code, 2, '--trigger is required');
});

s('should open a thread, append dated notes and close it into resolved/', async () => {
  const root = project({});
  let r = await run(['thread', 'open', 'Auth', 'rewrite', '--body', 'Sessions instead of JWT'], { cwd: root });
  assert.is(r.json.slug, 'auth-rewrite');
  r = await run(['thread', 'note', 'auth', '--body', 'Cookie flags decided:\nSameSite=Lax'], { cwd: root });
  assert.is(r.json.noted, true);
  r = await run(['thread', 'note', 'auth-rewrite', '--body', 'Second entry'], { cwd: root });
  const text = read(root, '.planning/threads/auth-rewrite.md');
  assert.match(text, /## Log\n\n### 2025-03-04T05:06:07\.000Z\n\nCookie flags decided:\nSameSite=Lax\n\n### 2025-03-04T05:06:07\.000Z\n\nSecond entry\n$/);
  r = await run(['thread', 'list'], { cwd: root });
  assert.equal(r.json.threads.map((t: { slug: string }) => t.slug), ['auth-rewrite']);
  r = await run(['thread', 'close', 'auth-rewrite', '--outcome', 'shipped in phase 3'], { cwd: root });
  assert.is(r.json.path, '.planning/threads/resolved/auth-rewrite.md');
  assert.match(read(root, r.json.path), /^status: resolved$/m);
  assert.match(read(root, r.json.path), /^outcome: shipped in phase 3$/m);
  r = await run(['thread', 'list', '--resolved'], { cwd: root });
  assert.is(r.json.count, 1);
  r = await run(['thread', 'note', 'auth-rewrite', '--body', 'late'], { cwd: root });
  assert.is(r.code, 1, 'a closed thread takes no notes');
});

s('should keep a debug session current, archive it on resolve and find it in the knowledge base', async () => {
  const root = project({});
  let r = await run(['debug', 'open', 'Login fails after password reset', '--actual', '500 on POST /login', '--errors', 'TypeError: hash is undefined', '--raw'], { cwd: root });
  assert.is(r.stdout, 'login-fails-after-password-reset');
  const active = '.planning/debug/login-fails-after-password-reset.md';
  assert.match(read(root, active), /^status: gathering$/m);
  r = await run(['debug', 'update', 'login', '--status', 'investigating', '--hypothesis', 'reset writes a null hash', '--evidence', 'users.hash is NULL after reset'], { cwd: root });
  assert.is(r.json.status, 'investigating');
  assert.is(r.json.hypothesis, 'reset writes a null hash');
  r = await run(['debug', 'update', 'login', '--eliminated', 'stale session cache', '--next', 'read the reset handler'], { cwd: root });
  assert.is(r.json.evidence_count, 1);
  assert.is(r.json.eliminated_count, 1);
  assert.is(r.json.next_action, 'read the reset handler');
  r = await run(['debug', 'update', 'login'], { cwd: root });
  assert.is(r.code, 2, 'an update that changes nothing is a usage error');
  r = await run(['debug', 'update', 'login', '--status', 'resolved'], { cwd: root });
  assert.is(r.code, 2, 'resolving goes through debug resolve');
  r = await run(['debug', 'resolve', 'login', '--root-cause', 'reset handler saved the password before hashing', '--fix', 'hash before save', '--files', 'src/reset.ts,src/user.ts'], { cwd: root });
  assert.equal(r.json, { resolved: true, slug: 'login-fails-after-password-reset', path: '.planning/debug/resolved/login-fails-after-password-reset.md', knowledge_base: '.planning/debug/knowledge-base.md' });
  assert.not.ok(fs.existsSync(path.join(root, active)));
  const archived = read(root, r.json.path);
  assert.match(archived, /^status: resolved$/m);
  assert.match(archived, /\*\*Files changed:\*\* src\/reset\.ts, src\/user\.ts/);
  assert.match(read(root, '.planning/debug/knowledge-base.md'), /## login-fails-after-password-reset: Login fails after password reset\n\n- \*\*Resolved:\*\* 2025-03-04\n- \*\*Symptoms:\*\* 500 on POST \/login \/ TypeError: hash is undefined\n/);
  r = await run(['debug', 'update', 'login-fails-after-password-reset', '--next', 'x'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /is resolved/);
  r = await run(['debug', 'search', 'TypeError', 'undefined', 'after', 'signup'], { cwd: root });
  assert.is(r.json.count, 1);
  assert.equal(r.json.matches[0].matched_words, ['typeerror', 'undefined']);
  assert.equal(r.json.matches[0].files, ['src/reset.ts', 'src/user.ts']);
  r = await run(['debug', 'search', 'checkout', 'totals'], { cwd: root });
  assert.is(r.json.count, 0);
  r = await run(['debug', 'status', 'login-fails-after-password-reset'], { cwd: root });
  assert.is(r.json.status, 'resolved', 'status also finds archived sessions');
  r = await run(['init', 'debug', 'checkout', 'totals', 'wrong'], { cwd: root });
  assert.is(r.json.knowledge_base_entries, 1);
  assert.is(r.json.active_count, 0);
  assert.is(r.json.slug, 'checkout-totals-wrong');
});

s('should ask init debug for a diagnosis only when --diagnose is given', async () => {
  const root = project({});
  let r = await run(['init', 'debug', 'Login fails after reset', '--diagnose'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal([r.json.diagnose_only, r.json.flags, r.json.description, r.json.slug], [true, ['--diagnose'], 'Login fails after reset', 'login-fails-after-reset'], 'the flag is not part of the description');
  r = await run(['init', 'debug', 'Login fails after reset'], { cwd: root });
  assert.equal([r.json.diagnose_only, r.json.flags], [false, []], 'find and fix is the default');
  r = await run(['init', 'debug', '--diagnose=false'], { cwd: root });
  assert.equal([r.json.diagnose_only, r.json.flags, r.json.description], [false, [], null]);
  r = await run(['init', 'debug', 'Login fails', '--diagnose=yes'], { cwd: root });
  assert.is(r.code, 2);
  assert.is(r.stderr, 'Error: init debug: --diagnose is a switch; found "=yes"\n');
});

s('should leave the session active when the knowledge base cannot be written', async () => {
  const root = project({});
  await run(['debug', 'open', 'Crash on start'], { cwd: root });
  // A folder where the knowledge-base file goes makes that write fail.
  fs.mkdirSync(path.join(root, '.planning/debug/knowledge-base.md'));
  const r = await run(['debug', 'resolve', 'crash', '--root-cause', 'x', '--fix', 'y'], { cwd: root });
  assert.is(r.code, 1);
  assert.ok(fs.existsSync(path.join(root, '.planning/debug/crash-on-start.md')), 'the active session stays');
  assert.not.ok(fs.existsSync(path.join(root, '.planning/debug/resolved/crash-on-start.md')), 'the archive copy is rolled back');
});

s('should refuse to change a record whose frontmatter is broken, name its line, and leave it as it was', async () => {
  const broken = '---\ntitle: x\nstatus: [unclosed\n---\n\n# Debug: x\n';
  const root = project({ '.planning/debug/bad.md': broken, '.planning/todos/pending/2025-01-01-bad.md': '---\ntitle: t\n  oops: 1\n---\n' });
  let r = await run(['debug', 'update', 'bad', '--next', 'look'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /\.planning\/debug\/bad\.md:3: /);
  assert.is(read(root, '.planning/debug/bad.md'), broken, 'nothing half-written');
  r = await run(['debug', 'list'], { cwd: root });
  assert.is(r.code, 0, 'a listing still answers');
  assert.match(r.stderr, /warning: \.planning\/debug\/bad\.md:3: /);
  r = await run(['todo', 'complete', 'bad'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /\.planning\/todos\/pending\/2025-01-01-bad\.md:3: /);
  assert.ok(fs.existsSync(path.join(root, '.planning/todos/pending/2025-01-01-bad.md')), 'not moved');
  assert.not.ok(fs.existsSync(path.join(root, '.planning/todos/completed')), 'no half move');
});

s('should report a malformed knowledge-base entry with its line', async () => {
  const root = project({ '.planning/debug/knowledge-base.md': '# KB\n\n## ok-slug: fine\n\n- **Fix:** a\n\n## not a slug heading\n' });
  const r = await run(['debug', 'search', 'anything'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /\.planning\/debug\/knowledge-base\.md:7: knowledge-base entry heading "not a slug heading"/);
});

function gitRepo(root: string): (msg: string, file: string, text: string) => void {
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' };
  execFileSync('git', ['init', '-q'], { cwd: root, env });
  return (msg, file, text) => {
    fs.appendFileSync(path.join(root, file), text);
    execFileSync('git', ['add', file], { cwd: root, env });
    execFileSync('git', ['commit', '-q', '-m', msg], { cwd: root, env });
  };
}

s('should list a plan\'s commits and the later ones that touch the same files', async () => {
  const root = project({});
  const commit = gitRepo(root);
  commit('feat(03-01): add a', 'a.txt', 'a\n');
  commit('feat(03-02): add b', 'b.txt', 'b\n');
  commit('fix(03-02): change a', 'a.txt', 'a2\n');
  commit('docs(03): phase summary', 'c.md', 'c\n');
  commit('chore: unrelated', 'd.txt', 'd\n');
  let r = await run(['commits', '--plan', '3-1'], { cwd: root });
  assert.equal(r.json.scope, { plan: '03-01' });
  assert.equal(r.json.commits.map((c: { subject: string }) => c.subject), ['feat(03-01): add a']);
  assert.equal(r.json.later_touching.map((c: { subject: string }) => c.subject), ['fix(03-02): change a']);
  assert.is(r.json.working_tree_clean, true);
  r = await run(['commits', '--phase', '3'], { cwd: root });
  assert.equal(r.json.commits.map((c: { subject: string }) => c.subject), ['docs(03): phase summary', 'fix(03-02): change a', 'feat(03-02): add b', 'feat(03-01): add a']);
  assert.equal(r.json.later_touching, []);
  r = await run(['commits', '--last', '2'], { cwd: root });
  assert.equal(r.json.commits.map((c: { subject: string }) => c.subject), ['docs(03): phase summary', 'fix(03-02): change a'], 'only GSD-scoped commits count');
  fs.appendFileSync(path.join(root, 'a.txt'), 'dirty\n');
  r = await run(['commits', '--plan', '03-02'], { cwd: root });
  assert.is(r.json.working_tree_clean, false);
  r = await run(['commits', '--plan', '03-02', '--last', '1'], { cwd: root });
  assert.is(r.code, 2);
  r = await run(['commits', '--plan', 'three'], { cwd: root });
  assert.is(r.code, 2);
});

s('should answer an empty list in a repository with no commit, and refuse outside git', async () => {
  const root = project({});
  let r = await run(['commits', '--last', '3'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /is not inside a git repository/);
  execFileSync('git', ['init', '-q'], { cwd: root });
  r = await run(['commits', '--last', '3'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal([r.json.count, r.json.commits, r.json.later_touching], [0, [], []]);
});

s('should count the project in stats', async () => {
  const root = standardProject();
  await run(['todo', 'add', 'one'], { cwd: root });
  await run(['seed', 'add', 'idea', '--trigger', 'later'], { cwd: root });
  await run(['debug', 'open', 'bug'], { cwd: root });
  const r = await run(['stats'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.todos, { pending: 1, completed: 0 });
  assert.is(r.json.seeds, 1);
  assert.equal(r.json.debug, { active: 1, resolved: 0 });
  assert.is(r.json.git, null, 'not a git repository');
  assert.ok(r.json.phases.total >= 1);
  assert.ok(r.json.requirements.total >= 1);
});

s.run();
