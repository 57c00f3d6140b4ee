// The file through which the status line hands the remaining-context figure
// to the context monitor: one small JSON file per session in the temp folder.
import os from 'node:os';
import path from 'node:path';

export function bridgeFile(session: string, tmp = os.tmpdir()): string {
  return path.join(tmp, `claude-ctx-${session}.json`);
}
