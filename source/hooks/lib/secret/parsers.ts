// Bash and PowerShell parsers (tree-sitter grammars on web-tree-sitter),
// loaded once per process from the bytes wasm.ts gives.
import v8 from 'node:v8';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import { wasmBytes } from './wasm.ts';

export type Shell = 'bash' | 'powershell';

let loaded: Record<Shell, Parser> | undefined;
let loading: Promise<Record<Shell, Parser>> | undefined;

export function loadParsers(): Promise<Record<Shell, Parser>> {
  loading ??= (async () => {
    // Baseline (Liftoff) code only. Left to itself V8 recompiles the hot parts
    // of the 1 MB PowerShell grammar with its optimizing tier on background
    // threads, and the process waits for that work before it exits: tens of
    // seconds on a busy machine, for a parse that takes milliseconds.
    v8.setFlagsFromString('--liftoff-only');
    await Parser.init({ wasmBinary: wasmBytes('runtime') });
    const out = {} as Record<Shell, Parser>;
    for (const shell of ['bash', 'powershell'] as const) {
      const p = new Parser();
      p.setLanguage(await Language.load(wasmBytes(shell)));
      out[shell] = p;
    }
    loaded = out;
    return out;
  })();
  return loading;
}

/** Parse with loaded parsers (loadParsers first); null when the parser gives up after its time budget. */
export function parseNow(shell: Shell, text: string): Tree | null {
  if (!loaded) throw new Error('parsers not loaded');
  const started = Date.now();
  const options = { progressCallback: () => Date.now() - started > 3000 } as unknown as Parameters<Parser['parse']>[2];
  return loaded[shell].parse(text, null, options);
}
