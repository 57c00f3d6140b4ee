#!/usr/bin/env node
// The installed package's bin (lib/gsd-build.js is this file, compiled ahead of time).
import { main } from '../cli.ts';

process.exitCode = await main(process.argv.slice(2));
