// Writes source/hooks/injection-automaton.json: the injection rules
// (source/hooks/injection-rules.json) compiled into the phrase automaton, as
// data, so the hooks load it instead of compiling the rules on every call.
// Run after editing the rules:
//   node --import ./compiler/bin/register.mjs scripts/pack-injection-rules.ts
// source/hooks/test/injection.test.ts fails while the file is stale (the
// hooks then compile the rules themselves: correct, only slower).
import fs from 'node:fs';
import path from 'node:path';
import { packAutomaton } from '../source/hooks/lib/injection.ts';

const file = path.join(import.meta.dirname, '..', 'source', 'hooks', 'injection-automaton.json');
fs.writeFileSync(file, `${JSON.stringify(packAutomaton())}\n`);
console.log(`wrote ${path.relative(process.cwd(), file)} (${fs.statSync(file).size} bytes)`);
