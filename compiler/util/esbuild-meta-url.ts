// An esbuild plugin that keeps each module's own import.meta.url when several
// files are bundled into one: every file computes paths from where it sits
// (../schemas, ../../targets, ...), and in a bundle they would all see the
// bundle's URL instead. Each loaded file gets a module-local constant holding
// `urlOf(file)` (an expression), put at the start of its first line (after a
// shebang) so that line numbers stay, and import.meta.url is defined as that
// constant, which esbuild renames per module. The URL is the file itself for
// a corpus builder loaded in place, or an expression relative to the bundle
// for the compiler's ahead-of-time build, which ships beside its data files.
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

const LOCAL = '__gsd_import_meta_url';

export function preserveImportMetaUrl(filter: RegExp, urlOf: (file: string) => string): Plugin {
  return {
    name: 'gsd-import-meta-url',
    setup(build) {
      build.initialOptions.define = { ...build.initialOptions.define, 'import.meta.url': LOCAL };
      build.onLoad({ filter }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const at = text.startsWith('#!') ? text.indexOf('\n') + 1 : 0;
        const declaration = `const ${LOCAL} = ${urlOf(args.path)}; `;
        return { contents: `${text.slice(0, at)}${declaration}${text.slice(at)}`, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
      });
    },
  };
}
