#!/usr/bin/env node
// Writes a synthetic GSD-layout corpus for scale benchmarks: `scale` × the
// size of source/'s Markdown (185 files, ~590 KB at 1×) as units of five
// documents each: a command that includes its workflow and mentions the next
// command, a workflow with gsd:section markers and their steps files, an agent
// it spawns, and a reference it reads. Past 1× the units carry no command
// (runtimes list every command within a fixed budget): their workflows are
// read in a chain from the first units' workflows. Every reference resolves, so the
// corpus builds without a diagnostic. Deterministic: same scale, same bytes.
// Usage: node scripts/gen-corpus.mjs <scale> <out-dir>
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Units at 1×: 37 units × 5 files ≈ source/'s 185 Markdown files. */
const UNITS_PER_SCALE = 37;
/** Filler paragraph (~640 bytes); each file carries a few so the corpus weighs what source/ does. */
const PARAGRAPH =
  'This paragraph stands in for the prose of a real prompt: what the step is for, what it reads, what it must never do, and how it reports back. ' +
  'It names no path and no command, so it only adds weight, the way most of a corpus is instructions rather than references. ' +
  'Keep it plain: the compiler copies it byte for byte into every bundle, rewriting nothing. ' +
  'The reader is an agent with a budget of attention; every sentence here costs some of it.\n';

export function generate(scale, out) {
  const units = Math.max(1, Math.round(scale * UNITS_PER_SCALE));
  rmSync(out, { recursive: true, force: true });
  const put = (file, text) => {
    const full = path.join(out, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  };
  const filler = (count) => `\n${PARAGRAPH.repeat(count)}`;
  // Commands stay at the 1× count: a runtime lists every command each turn within a fixed budget
  // (a 10× corpus of commands fails Claude Code's listing limit), so past it the units are flows
  // a command's flow reads in a chain (flow-N reads flow-N+37), agents, steps and references.
  const commands = Math.min(units, UNITS_PER_SCALE);
  for (let unit = 0; unit < units; unit += 1) {
    const next = (unit + 1) % commands;
    const chained = unit + commands < units ? `\nThen read \`~/.claude/gsd-core/workflows/flow-${unit + commands}.md\`.\n` : '';
    if (unit < commands) put(
      `commands/gsd/cmd-${unit}.md`,
      `---\nname: gsd:cmd-${unit}\ndescription: "Synthetic command ${unit}"\nargument-hint: "[--auto]"\nallowed-tools:\n  - Read\n  - Bash\n  - Agent\n${commands > 1 ? `requires:\n  - cmd-${next}\n` : ''}---\n<objective>\nRun flow ${unit}.${commands > 1 ? ` Then suggest /gsd-cmd-${next}.` : ''}\n</objective>\n\n@~/.claude/gsd-core/workflows/flow-${unit}.md\n\nArguments: $ARGUMENTS\n`,
    );
    put(
      `gsd-core/workflows/flow-${unit}.md`,
      `<purpose>\nFlow ${unit}.\n</purpose>\n${filler(3)}\nRead \`~/.claude/gsd-core/references/ref-${unit}.md\` first.\n${chained}\n<!-- gsd:section id="auto-path" when="flag:--auto" -->\nRead \`~/.claude/gsd-core/workflows/flow-${unit}/steps/auto-path.md\`.\n<!-- /gsd:section -->\n\nSpawn the agent:\n\n\`\`\`\nTask(subagent_type="gsd-agent-${unit}", prompt="do it")\n\`\`\`\n${filler(2)}`,
    );
    put(`gsd-core/workflows/flow-${unit}/steps/auto-path.md`, `# Auto path of flow ${unit}\n${filler(2)}`);
    put(`agents/gsd-agent-${unit}.md`, `---\nname: gsd-agent-${unit}\ndescription: Synthetic agent ${unit}. Spawned by /gsd-cmd-${unit}.\ntools: Read, Grep, Bash\ncolor: blue\n---\n<role>\nAgent ${unit}.\n</role>\n${filler(5)}`);
    put(`gsd-core/references/ref-${unit}.md`, `# Reference ${unit}\n${filler(3)}`);
  }
  return { units, files: units * 4 + commands };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const [scaleArg, outArg] = process.argv.slice(2);
  if (!scaleArg || !outArg) {
    console.error('usage: node scripts/gen-corpus.mjs <scale> <out-dir>');
    process.exit(2);
  }
  const { units, files } = generate(Number(scaleArg), path.resolve(outArg));
  console.log(`wrote ${files} files (${units} units) into ${outArg}`);
}
