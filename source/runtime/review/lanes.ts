// Reviewer lanes as data (review-lanes.json, schemas/review-lanes.schema.json):
// which lanes a call selects, where each program is on PATH, the argv it gets,
// how many blocking findings an answer holds, and the merged REVIEWS.md. Pure
// apart from the PATH lookup; running a lane is run-lane.ts.
import fs from 'node:fs';
import path from 'node:path';
import lanesJson from '../review-lanes.json' with { type: 'json' };
import { usage } from '../core/errors.ts';
import type { Env } from '../core/context.ts';

export interface Lane {
  id: string;
  name: string;
  program: string;
  argv: string[];
  prompt: 'stdin' | 'file';
  output: 'stdout' | 'file';
  timeoutSeconds: number;
  selfEnv: string[];
}

export interface Limits {
  maxPromptBytes: number;
  maxOutputBytes: number;
  stderrTailBytes: number;
  maxTimeoutSeconds: number;
}

export const LANES: readonly Lane[] = lanesJson.lanes as Lane[];
export const LIMITS: Limits = lanesJson.limits;

/** What a review is of: a phase's plans (REVIEWS.md) or the code it changed (CODE-REVIEWS.md). */
export type ReviewFor = 'plans' | 'code';

/** A comma list of lane ids (`codex,claude`), each a known lane; empty entries are dropped. */
export function parseLaneList(text: string, where: string): string[] {
  const ids = text.split(',').map((s) => s.trim()).filter(Boolean);
  const known = LANES.map((l) => l.id);
  const bad = ids.find((id) => !known.includes(id));
  if (bad !== undefined) throw usage(`${where}: no reviewer lane "${bad}"; lanes are: ${known.join(', ')}`);
  return [...new Set(ids)];
}

/** The first executable file named `program` on PATH, or null. */
export function findOnPath(program: string, env: Env): string | null {
  const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean);
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean) : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const file = path.join(dir, program + ext);
      try {
        if (!fs.statSync(file).isFile()) continue;
        fs.accessSync(file, fs.constants.X_OK);
        return file;
      } catch {
        continue;
      }
    }
  }
  return null;
}

export interface LaneChoice {
  lane: Lane;
  /** Absolute path of the program, or null when it is not on PATH. */
  path: string | null;
  /** Why the lane does not run, or null when it does. */
  skip: string | null;
}

/**
 * The lanes a call asks for, in data order: the named ones (`--lanes`), else
 * the configured `review.lanes`, else every lane. A lane whose program is not
 * on PATH is skipped with a note; so is the runtime running the review (its
 * own target, or a lane's selfEnv variable set), unless it was named.
 */
export function chooseLanes(named: string[] | null, configured: string[], env: Env, selfTarget: string | null): LaneChoice[] {
  const wanted = named ?? (configured.length ? configured : null);
  return LANES.filter((lane) => wanted === null || wanted.includes(lane.id)).map((lane) => {
    const found = findOnPath(lane.program, env);
    const isSelf = lane.id === selfTarget || lane.selfEnv.some((v) => (env[v] ?? '') !== '');
    let skip: string | null = null;
    if (!found) skip = `${lane.program} is not on PATH`;
    else if (isSelf && !named?.includes(lane.id)) skip = `${lane.name} is running this review; name it in --lanes to use it anyway`;
    return { lane, path: found, skip };
  });
}

/** The lane's argv with its two placeholders filled, one word each (never re-split). */
export function laneArgv(lane: Lane, files: { prompt: string; output: string }): string[] {
  return lane.argv.map((word) => word.split('{prompt_file}').join(files.prompt).split('{output_file}').join(files.output));
}

export interface Findings {
  high: number;
  medium: number;
  low: number;
}

// A finding is a list item whose first word is its severity: `- [HIGH] …`,
// `* **MEDIUM** …`, `- LOW: …`. One anchored pass per line, no backtracking.
const FINDING = /^ {0,8}[-*+] {1,4}(?:\[|\*\*)?(high|medium|low)(?:\]|\*\*|:)/i;

/** Severity counts of a reviewer's answer; HIGH findings are the blocking ones. */
export function countFindings(text: string): Findings {
  const out: Findings = { high: 0, medium: 0, low: 0 };
  for (const line of text.split('\n')) {
    const m = FINDING.exec(line);
    if (m) out[m[1]!.toLowerCase() as keyof Findings] += 1;
  }
  return out;
}

/** Text safe to put in Markdown: control characters other than tab and newline removed, CRLF folded. */
export function cleanText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

/** Each line behind `> `, so nothing a reviewer writes can open a heading or a section of its own. */
export function quoted(text: string): string {
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}
