// A look at code handed to an interpreter (node -e, python -c, awk '...'):
// a secret name in it is caught by the pattern scan; this catches code that
// reads files and builds the name it reads at run time ('.e' + 'nv',
// String.fromCharCode, base64), or loads dotenv. Plain substring tests.

const READS = ['readfile', 'createreadstream', 'opensync', 'open(', 'read_text', 'read_bytes', 'file.read', 'io.read', 'file.open', 'readlines', 'file_get_contents', 'fopen', 'readtextfile', 'bun.file', 'slurp', 'getline', 'system(', 'exec(', 'execsync', 'spawn', 'popen', 'subprocess', 'child_process', 'os.system', '`', 'shell_exec', 'passthru', 'io.popen', 'readallbytes', 'readalltext', 'file(', 'deno.run', 'deno.command', 'readdir', 'listdir', 'scandir', 'os.walk', 'glob', 'dir[', 'dir.', 'opendir', 'pathlib', 'path('];
const BUILDS = ["'+", "' +", '"+', '" +', "+'", "+ '", '+"', '+ "', '.join', 'join(', 'fromcharcode', 'chr(', 'atob', 'b64decode', 'base64', 'buffer.from', 'reverse', '\\x', '\\u', '\\0', '%c', 'replace(', 'concat', '${', 'f"', "f'", '.format', 'sprintf', '.pack', 'unhexlify', 'fromhex', 'decode(', 'rot13', 'codecs', 'charcodeat', 'process.env', 'os.environ', 'getenv', 'env[', 'argv', 'stdin', 'readdir', 'listdir', 'scandir', 'os.walk', 'glob', 'dir[', 'opendir', '..', "'.'", '"."', 'input('];

export function codeHeuristic(code: string): string | null {
  const c = code.toLowerCase();
  if (c.includes('dotenv')) return 'loads dotenv, which reads .env';
  const read = READS.find((r) => c.includes(r));
  if (!read) return null;
  const build = BUILDS.find((b) => c.includes(b));
  if (!build) return null;
  return `reads files (${read.replace(/[(`]$/, '')}) with a file name built at run time (${build.trim()})`;
}
