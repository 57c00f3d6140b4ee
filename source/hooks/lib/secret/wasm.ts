// The WebAssembly the secret guard's parsers run on: web-tree-sitter's
// runtime and the Bash and PowerShell grammars. Read from node_modules here;
// in the bundled hook, source/runtime/build.ts swaps this module for one that
// holds the same bytes inline (compressed), so the hook stays one file.
import fs from 'node:fs';
import { createRequire } from 'node:module';

export type WasmName = 'runtime' | 'bash' | 'powershell';

const FILES: Record<WasmName, string> = {
  runtime: 'web-tree-sitter/web-tree-sitter.wasm',
  bash: 'tree-sitter-bash/tree-sitter-bash.wasm',
  powershell: 'tree-sitter-powershell/tree-sitter-powershell.wasm',
};

export function wasmBytes(name: WasmName): Uint8Array {
  return fs.readFileSync(createRequire(import.meta.url).resolve(FILES[name]));
}

export const WASM_FILES = FILES;
