// Median wall time of `gsd-tools state json` and `gsd-tools init plan-phase 1`
// against `node -e 0`, measured interleaved in one run on a scratch project,
// printed as ratios. Usage: node scripts/bench-cli.mjs [runs=30]
import './../compiler/bin/register.mjs';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const runs = Number(process.argv[2] ?? 30);
const { bundleRuntime } = await import('../source/runtime/build.ts');
const helpers = await import('../source/runtime/test/helpers.ts');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gsd-bench-'));
try {
  for (const f of await bundleRuntime()) {
    const p = path.join(dir, 'bundle', f.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.contents);
  }
  const cli = path.join(dir, 'bundle', 'gsd-core', 'bin', 'gsd-tools.cjs');
  const root = helpers.standardProject({ '.planning/config.json': '{"model_profile": "balanced"}\n' });
  const cache = { ...process.env, XDG_CACHE_HOME: path.join(dir, 'cache') };
  const noCache = { ...cache, GSD_NO_CODE_CACHE: '1' };
  const cases = {
    'node -e 0': [process.execPath, ['-e', '0'], cache],
    'state json': [process.execPath, [cli, 'state', 'json'], cache],
    'init plan-phase 1': [process.execPath, [cli, 'init', 'plan-phase', '1'], cache],
    'state json (no code cache)': [process.execPath, [cli, 'state', 'json'], noCache],
    'init plan-phase 1 (no code cache)': [process.execPath, [cli, 'init', 'plan-phase', '1'], noCache],
  };
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, 0]));
  // CPU time of finished children (user + system), from /proc on Linux; null elsewhere.
  const childCpuMs = () => {
    try {
      const fields = fs.readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
      return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
    } catch {
      return null;
    }
  };
  const once = (name) => {
    const [cmd, args, env] = cases[name];
    const c0 = childCpuMs();
    const t = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    const c1 = childCpuMs();
    if (c0 !== null && c1 !== null) cpu[name] += c1 - c0;
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}`);
    return ms;
  };
  for (const name of Object.keys(cases)) once(name); // warm-up
  for (const name of Object.keys(cases)) cpu[name] = 0;
  for (let i = 0; i < runs; i++) for (const name of Object.keys(cases)) times[name].push(once(name));
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const base = median(times['node -e 0']);
  const baseCpu = cpu['node -e 0'] / runs;
  console.log(`gsd-tools.cjs: ${fs.statSync(cli).size} bytes; ${runs} runs each, interleaved; load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const name of Object.keys(cases)) {
    const m = median(times[name]);
    const c = cpu[name] / runs;
    const cpuText = baseCpu > 0 ? `   cpu mean ${c.toFixed(1).padStart(6)} ms  ratio ${(c / baseCpu).toFixed(2)}x` : '';
    console.log(`${name.padEnd(34)} wall median ${m.toFixed(1).padStart(7)} ms  ratio ${(m / base).toFixed(2)}x${cpuText}`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
