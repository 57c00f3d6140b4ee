// Bash and PowerShell parsers (tree-sitter grammars on web-tree-sitter),
// loaded once per process from the bytes wasm.ts gives.
import v8 from 'node:v8';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import { wasmBytes } from './wasm.ts';

export type Shell = 'bash' | 'powershell';

const SHELLS: readonly Shell[] = ['bash', 'powershell'];
const loaded: Partial<Record<Shell, Parser>> = {};
const loading: Partial<Record<Shell, Promise<void>>> = {};
let runtime: Promise<void> | undefined;

/** Loads the parsers of `shells` (both by default), each once per process; the compiler needs only Bash. */
export async function loadParsers(shells: readonly Shell[] = SHELLS): Promise<void> {
  runtime ??= (async () => {
    // Baseline (Liftoff) code only. Left to itself V8 recompiles the hot parts
    // of the 1 MB PowerShell grammar with its optimizing tier on background
    // threads, and the process waits for that work before it exits: tens of
    // seconds on a busy machine, for a parse that takes milliseconds.
    v8.setFlagsFromString('--liftoff-only');
    await Parser.init({ wasmBinary: wasmBytes('runtime') });
  })();
  await runtime;
  await Promise.all(
    shells.map((shell) =>
      (loading[shell] ??= (async () => {
        const parser = new Parser();
        parser.setLanguage(await Language.load(wasmBytes(shell)));
        loaded[shell] = parser;
      })()),
    ),
  );
}

/** Parse with loaded parsers (loadParsers first); null when the parser gives up after its time budget. */
export function parseNow(shell: Shell, text: string): Tree | null {
  const parser = loaded[shell];
  if (!parser) throw new Error(`the ${shell} parser is not loaded (loadParsers first)`);
  const started = Date.now();
  const options = { progressCallback: () => Date.now() - started > 3000 } as unknown as Parameters<Parser['parse']>[2];
  return parser.parse(text, null, options);
}
