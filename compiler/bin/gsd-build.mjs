#!/usr/bin/env node
import './register.mjs';

const { main } = await import('../cli.ts');
process.exitCode = await main(process.argv.slice(2));
