// A stand-in for one gsd-executor agent: it carries out `tasks` tasks, each a
// real file edit followed by `gsd-tools commit … --files <that file>` through
// the built CLI, and prints one JSON line per commit with the exit code and
// the CLI's answer. Used by parallel-commits.test.ts, which runs several at
// once on one repository. Argument: a JSON object
// {cli, cwd, plan, tasks, dir, env}.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const job = JSON.parse(process.argv[2]);
for (let task = 1; task <= job.tasks; task++) {
  const rel = `${job.dir}/task-${task}.txt`;
  const file = path.join(job.cwd, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `plan ${job.plan} task ${task}\n`);
  const r = spawnSync(process.execPath, [job.cli, 'commit', `feat(${job.plan}): task ${task}`, '--files', rel], {
    cwd: job.cwd,
    encoding: 'utf8',
    env: job.env,
    timeout: 180_000,
  });
  let answer = null;
  try {
    answer = JSON.parse(r.stdout);
  } catch {
    answer = null;
  }
  process.stdout.write(`${JSON.stringify({ plan: job.plan, task, file: rel, code: r.status, answer, stderr: r.stderr.slice(0, 400) })}\n`);
}
