// gsd-build keygen: an Ed25519 release signing key pair.
import { writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parse, UsageError, type Io } from './args.ts';
import { HELP } from './help.ts';

export async function runKeygen(args: string[], io: Io): Promise<number> {
  const values = parse(args, { out: { type: 'string' } });
  if (values.help) {
    io.out(HELP.keygen);
    return 0;
  }
  if (values.out === undefined) throw new UsageError('expected --out <dir>, the folder for release-signing.key and release-signing.pub');
  const { generateKeyPair } = await import('../release/signing.ts');
  const secretPath = path.join(values.out, 'release-signing.key');
  const publicPath = path.join(values.out, 'release-signing.pub');
  for (const file of [secretPath, publicPath]) {
    if (existsSync(file)) {
      io.err(`gsd-build: expected no file at ${file}, found one; keygen never overwrites a key (move it away or pick another --out); nothing was written`);
      return 1;
    }
  }
  const started = performance.now();
  const pair = generateKeyPair();
  const { mkdir } = await import('node:fs/promises');
  await mkdir(values.out, { recursive: true, mode: 0o700 });
  // 'wx': fails rather than replace a file that appeared since the check.
  await writeFile(secretPath, pair.secretKeyFile, { mode: 0o600, flag: 'wx' });
  await writeFile(publicPath, pair.publicKeyFile, { mode: 0o644, flag: 'wx' });
  io.out(`generated key id ${pair.keyId} in ${Math.round(performance.now() - started)} ms: ${secretPath} (secret, mode 0600: keep it out of the repository) and ${publicPath} (public, minisign format):`);
  io.out(pair.publicKeyFile.trimEnd());
  return 0;
}
