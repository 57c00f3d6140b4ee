#!/usr/bin/env node
// The file-system floor of a build's output, for scripts/bench-build.mjs: the
// time this machine's disk takes to make the folders and files of an output
// the way the build's writer does (compiler/write/write-tree.ts: two threads,
// each file going to the thread that owns its bytes, its folders first, one
// open, write, fstat and close per distinct file, a hard link for each other
// name of it), with none of the build's own work. A cold build cannot write
// its output in less.
//   node scripts/fs-floor.mjs plan <output folder> <plan.json>   writes the output's plan
//   node scripts/fs-floor.mjs make <plan.json> <folder>           makes it under <folder> (which must not exist)
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** The writer's thread count on this machine (write-tree.ts WRITER_THREADS). */
const THREADS = Math.max(1, Math.min(2, availableParallelism()));

/** Each folder (relative, parents first), and each file: its path, size, mode and the index of the file it is a link of. */
function planOf(root) {
  const folders = [];
  const files = [];
  const firsts = new Map();
  const walk = (relative) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        folders.push(child);
        walk(child);
        continue;
      }
      const stats = lstatSync(path.join(root, child));
      const first = firsts.get(stats.ino);
      if (first === undefined) firsts.set(stats.ino, files.length);
      files.push({ path: child, size: stats.size, mode: stats.mode & 0o777, ...(first !== undefined ? { linkOf: first } : {}) });
    }
  };
  walk('');
  return { folders, files };
}

/** One thread's share: the folders its files need, then its files (a file and its links always on one thread). */
const MAKER = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { root, folders, files, paths } = workerData;
for (const folder of folders) fs.mkdirSync(path.join(root, folder), { recursive: true });
for (const file of files) {
  const target = path.join(root, file.path);
  if (file.linkOf !== undefined) {
    fs.linkSync(path.join(root, paths[file.linkOf]), target);
    continue;
  }
  const fd = fs.openSync(target, 'w', file.mode);
  try {
    fs.writeFileSync(fd, Buffer.alloc(file.size, 120));
    fs.fstatSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
parentPort.postMessage('done');
`;

async function make(plan, root) {
  if (!Array.isArray(plan?.folders) || !Array.isArray(plan?.files)) throw new Error('expected a plan of folders and files (fs-floor.mjs plan), found another JSON value');
  mkdirSync(root);
  const paths = plan.files.map((file) => file.path);
  const shares = Array.from({ length: THREADS }, () => ({ folders: new Set(), files: [] }));
  plan.files.forEach((file, index) => {
    const share = shares[(file.linkOf ?? index) % THREADS];
    share.files.push(file);
    share.folders.add(path.posix.dirname(file.path));
  });
  // A folder with no file under it is made by the first thread (a folder's parents come with it: recursive mkdir).
  const holding = new Set();
  for (const file of plan.files) for (let folder = path.posix.dirname(file.path); folder !== '.' && !holding.has(folder); folder = path.posix.dirname(folder)) holding.add(folder);
  for (const folder of plan.folders) if (!holding.has(folder)) shares[0].folders.add(folder);
  await Promise.all(
    shares.map(
      (share) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(MAKER, { eval: true, workerData: { root, folders: [...share.folders].sort(), files: share.files, paths } });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
}

const USAGE = 'usage: fs-floor.mjs plan <output folder> <plan.json> | make <plan.json> <folder>';
const [mode, first, second] = process.argv.slice(2);
try {
  if (second === undefined || !['plan', 'make'].includes(mode)) throw new Error(`expected ${USAGE}, found: ${process.argv.slice(2).join(' ') || 'no arguments'}`);
  if (mode === 'plan') writeFileSync(second, JSON.stringify(planOf(first)));
  else await make(JSON.parse(readFileSync(first, 'utf8')), second);
} catch (error) {
  // One line, no stack: a folder that is not there, a plan that does not read, a folder to make that already is.
  console.error(`fs-floor: ${error.message}`);
  process.exitCode = 2;
}
