// Shared test helpers: the bundled CLI built once per process, scratch
// projects in os.tmpdir() (only directories created here are ever removed),
// and a runner for the CLI as a child process.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleRuntime } from '../build.ts';

const created: string[] = [];
process.on('exit', () => {
  if (process.env.GSD_KEEP_TMP) return;
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true });
});

export function tmpDir(prefix = 'gsd-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return fs.realpathSync(dir);
}

let bundleDir: Promise<string> | undefined;

/** Directory holding `gsd-core/bin/gsd-tools.cjs` and `hooks/*.js`, built once per process. */
export function bundle(): Promise<string> {
  bundleDir ??= (async () => {
    const dir = tmpDir('gsd-bundle-');
    for (const f of await bundleRuntime()) {
      const p = path.join(dir, f.path);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, f.contents);
    }
    return dir;
  })();
  return bundleDir;
}

export async function cliPath(): Promise<string> {
  return path.join(await bundle(), 'gsd-core', 'bin', 'gsd-tools.cjs');
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export const FIXED_NOW = '2025-03-04T05:06:07.000Z';

let cacheHome: string | undefined;
/** One V8 code-cache directory for every CLI run of this test process. */
export function codeCacheHome(): string {
  cacheHome ??= tmpDir('gsd-cache-');
  return cacheHome;
}

/** Run the bundled CLI as a child process. */
export async function run(args: string[], opts: { cwd: string; env?: Record<string, string>; input?: string } = { cwd: os.tmpdir() }): Promise<Run> {
  const cli = await cliPath();
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, [cli, ...args], {
    cwd: opts.cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: opts.cwd, XDG_CACHE_HOME: codeCacheHome(), GSD_NOW: FIXED_NOW, ...opts.env },
    input: opts.input,
    timeout: 60_000,
  });
  return runOf(r);
}

/** A finished child process as a Run: exit code, output, and stdout parsed as JSON when it is. */
export function runOf(r: SpawnSyncReturns<string>): Run {
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

/** Create a scratch project from a map of relative path → contents. */
export function project(files: Record<string, string>): string {
  const root = tmpDir('gsd-proj-');
  fs.mkdirSync(path.join(root, '.planning'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  return root;
}

export function read(root: string, rel: string): string {
  return fs.readFileSync(path.join(root, rel), 'utf8');
}

export const STATE_MD = `---
gsd_state_version: "1.0"
milestone: v1.0
milestone_name: MVP
status: planning
custom_key: keep me
---
# Project State

## Project Reference

**Core value:** Ship it
**Current focus:** Phase 1

## Current Position

Phase: 1 of 3 (Foundation)
Plan: 1 of 2 in current phase
Status: Ready to execute
Last activity: 2025-01-01 — Roadmap created

Progress: [░░░░░░░░░░] 0%

## Accumulated Context

### Decisions

None yet.

### Blockers/Concerns

None yet.

## Session Continuity

Last session: 2025-01-01
Stopped at: Roadmap created
Resume file: None
`;

export const ROADMAP_MD = `# Roadmap: Demo

## Overview

A demo project.

## Phases

- [ ] **Phase 1: Foundation** - set up
- [ ] **Phase 2: Features** - build
- [ ] **Phase 3: Polish** - finish

## Phase Details

### Phase 1: Foundation

**Goal**: A working skeleton
**Depends on**: Nothing
**Requirements**: CORE-01, CORE-02
**Success Criteria** (what must be TRUE):
  1. It builds
  2. It runs
**Plans**: 2 plans

Plans:
- [ ] 01-01: Scaffold
- [ ] 01-02: CI

### Phase 2: Features

**Goal**: The features
**Depends on**: Phase 1
**Requirements**: FEAT-01
**Mode:** mvp
**Plans**: TBD

### Phase 3: Polish

**Goal**: Shine
**Depends on**: Phase 2
**Requirements**: TBD
**Plans**: TBD

## Progress

| Phase | Plans Complete | Status | Completed |
|-------|----------------|--------|-----------|
| 1. Foundation | 0/2 | Not started | - |
| 2. Features | 0/0 | Not started | - |
| 3. Polish | 0/0 | Not started | - |
`;

export const REQUIREMENTS_MD = `# Requirements: Demo

## v1 Requirements

### Core

- [ ] **CORE-01**: It builds
- [ ] **CORE-02**: It runs

### Features

- [ ] **FEAT-01**: It does things

## Traceability

| Requirement | Phase | Status |
|-------------|-------|--------|
| CORE-01 | Phase 1 | Pending |
| CORE-02 | Phase 1 | Pending |
| FEAT-01 | Phase 2 | Pending |
`;

export function plan(phase: string, planNo: string, extra = ''): string {
  return `---
phase: ${phase}
plan: "${planNo}"
type: execute
wave: 1
depends_on: []
files_modified: [src/a.ts]
autonomous: true
requirements: [CORE-01]
must_haves:
  truths:
    - it works
  artifacts:
    - path: src/a.ts
      provides: the thing
${extra}---

<objective>
Build part ${planNo}
</objective>

<tasks>
<task type="auto">
  <name>Task one</name>
  <files>src/a.ts</files>
  <action>Write it</action>
  <verify>npm test</verify>
  <done>It works</done>
</task>
</tasks>
`;
}

export function summary(phase: string, planNo: string): string {
  return `---
phase: ${phase}
plan: "${planNo}"
subsystem: core
tags: [a, b]
duration: 5min
completed: 2025-01-02
key-files:
  created: [src/a.ts]
  modified: [package.json]
tech-stack:
  added: [zod]
  patterns: [result types]
key-decisions:
  - "Use zod — schemas at the edge"
requirements-completed: [CORE-01]
---

# Phase ${phase} Plan ${planNo}: Summary

**Scaffold with zod validation in place**

More text.
`;
}

/** A standard project: STATE, ROADMAP, REQUIREMENTS, phase 1 with two plans. */
export function standardProject(extra: Record<string, string> = {}): string {
  return project({
    '.planning/STATE.md': STATE_MD,
    '.planning/ROADMAP.md': ROADMAP_MD,
    '.planning/REQUIREMENTS.md': REQUIREMENTS_MD,
    '.planning/PROJECT.md': '# Demo Project\n\nWhat it is.\n',
    '.planning/phases/01-foundation/01-01-PLAN.md': plan('01-foundation', '01'),
    '.planning/phases/01-foundation/01-02-PLAN.md': plan('01-foundation', '02', 'depends_on_note: x\n'),
    ...extra,
  });
}
