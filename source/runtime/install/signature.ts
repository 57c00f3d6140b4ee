// Release signatures, checked: minisign's public-key and signature file
// formats (Ed25519), read and verified with Node's own crypto, nothing else.
//
//   public key file   untrusted comment: <text>
//                     base64("Ed" || key id (8 bytes) || Ed25519 public key (32 bytes))
//   signature file    untrusted comment: <text>
//                     base64(algorithm (2 bytes) || key id (8 bytes) || signature (64 bytes))
//                     trusted comment: <text>
//                     base64(global signature (64 bytes))
//
// Algorithm "ED" signs the BLAKE2b-512 digest of the file (minisign's
// default since 0.8), "Ed" the file's bytes themselves (its legacy form);
// both are accepted. The global signature covers signature || trusted
// comment, so the comment cannot be changed without the key either. A key
// id is shown as minisign shows it: the 8 bytes read as a little-endian
// number, in upper-case hex.
//
// Pure: bytes and text in, a verdict out. The installer (commands/install.ts)
// and `gsd-build install --zip` decide what to do with it.
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { refused, usage } from '../core/errors.ts';
import { MANIFEST_FILE } from './bundle.ts';
import builtInKeyText from '../../../compiler/data/release-signing.pub';

export const SIGNATURE_SUFFIX = '.minisig';
/** The bundle's signature: of its gsd-file-manifest.json, which lists every file's sha256. */
export const MANIFEST_SIGNATURE_FILE = `${MANIFEST_FILE}${SIGNATURE_SUFFIX}`;

export const UNTRUSTED_PREFIX = 'untrusted comment: ';
export const TRUSTED_PREFIX = 'trusted comment: ';
export const KEY_ALGORITHM = 'Ed';
export const PREHASHED_ALGORITHM = 'ED';
export const LEGACY_ALGORITHM = 'Ed';
const KEY_ID_BYTES = 8;
const PUBLIC_KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;
/** minisign's own limit for a trusted comment line, prefix included. */
const TRUSTED_COMMENT_MAX = 8192 - TRUSTED_PREFIX.length - 1;

export interface PublicKey {
  /** As minisign prints it: 16 upper-case hex digits. */
  keyId: string;
  keyIdBytes: Buffer;
  /** The 32 raw bytes of the Ed25519 key. */
  raw: Buffer;
  /** The base64 line, as `minisign -P` takes it. */
  base64: string;
  key: KeyObject;
}

/** Key id bytes → minisign's display form (a little-endian 64-bit number in hex). */
export function keyIdText(bytes: Uint8Array): string {
  return Buffer.from(bytes).reverse().toString('hex').toUpperCase();
}

export const blake2b512 = (bytes: Uint8Array) => createHash('blake2b512').update(bytes).digest();

/** Canonical base64 only: the alphabet, padding at the end, and re-encoding gives the same text. */
function decodeBase64(text: string, expectedBytes: number, what: string): Buffer {
  if (text === '') throw new FormatError(`expected ${what} as base64, found an empty line`);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) throw new FormatError(`expected ${what} as base64, found ${quote(text)}`);
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) throw new FormatError(`expected ${what} as canonical base64, found ${quote(text)}`);
  if (bytes.length !== expectedBytes) throw new FormatError(`expected ${what} of ${expectedBytes} bytes, found ${bytes.length}`);
  return bytes;
}

const quote = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

export class FormatError extends Error {}

/** The lines of a minisign file: "\n" separated, one "\r" before it tolerated, one final newline allowed. */
function linesOf(text: string): string[] {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A public key from minisign's two-line file or from its base64 line alone (as `minisign -P` takes it). */
export function parsePublicKey(text: string): PublicKey {
  const lines = linesOf(text.trim());
  let line: string;
  if (lines.length === 1) line = lines[0]!.trim();
  else if (lines.length === 2 && lines[0]!.startsWith(UNTRUSTED_PREFIX)) line = lines[1]!.trim();
  else throw new FormatError(`expected a minisign public key ("${UNTRUSTED_PREFIX}…" and a base64 line, or the base64 line alone), found ${lines.length} lines starting ${quote(lines[0] ?? '')}`);
  const bytes = decodeBase64(line, 2 + KEY_ID_BYTES + PUBLIC_KEY_BYTES, 'an Ed25519 public key');
  const algorithm = bytes.subarray(0, 2).toString('latin1');
  if (algorithm !== KEY_ALGORITHM) throw new FormatError(`expected key algorithm "${KEY_ALGORITHM}" (Ed25519), found ${JSON.stringify(algorithm)}`);
  const keyIdBytes = Buffer.from(bytes.subarray(2, 2 + KEY_ID_BYTES));
  const raw = Buffer.from(bytes.subarray(2 + KEY_ID_BYTES));
  return { keyId: keyIdText(keyIdBytes), keyIdBytes, raw, base64: line, key: ed25519PublicKey(raw) };
}

/** A KeyObject from the 32 raw bytes of an Ed25519 public key. */
export function ed25519PublicKey(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

/** minisign's public key file for a key. */
export function formatPublicKey(keyIdBytes: Uint8Array, raw: Uint8Array): string {
  const line = Buffer.concat([Buffer.from(KEY_ALGORITHM, 'latin1'), Buffer.from(keyIdBytes), Buffer.from(raw)]).toString('base64');
  return `${UNTRUSTED_PREFIX}minisign public key ${keyIdText(keyIdBytes)}\n${line}\n`;
}

export interface ParsedSignature {
  untrustedComment: string;
  algorithm: typeof PREHASHED_ALGORITHM | typeof LEGACY_ALGORITHM;
  keyId: string;
  keyIdBytes: Buffer;
  signature: Buffer;
  trustedComment: string;
  globalSignature: Buffer;
}

/** Printable text as minisign accepts it in a trusted comment: tab, and no other control character. */
const printable = (text: string) => !/[\0-\x08\x0a-\x1f\x7f-\x9f]/.test(text);

export function parseSignature(text: string): ParsedSignature {
  const lines = linesOf(text);
  if (lines.length !== 4) throw new FormatError(`expected 4 lines (untrusted comment, signature, trusted comment, global signature), found ${lines.length}`);
  const [untrusted, sigLine, trusted, globalLine] = lines as [string, string, string, string];
  if (!untrusted.startsWith(UNTRUSTED_PREFIX)) throw new FormatError(`expected line 1 to start "${UNTRUSTED_PREFIX}", found ${quote(untrusted)}`);
  const sig = decodeBase64(sigLine, 2 + KEY_ID_BYTES + SIGNATURE_BYTES, 'line 2, the signature,');
  const algorithm = sig.subarray(0, 2).toString('latin1');
  if (algorithm !== PREHASHED_ALGORITHM && algorithm !== LEGACY_ALGORITHM) {
    throw new FormatError(`expected signature algorithm "${PREHASHED_ALGORITHM}" (Ed25519 of the BLAKE2b-512 digest) or "${LEGACY_ALGORITHM}" (Ed25519), found ${JSON.stringify(algorithm)}`);
  }
  if (!trusted.startsWith(TRUSTED_PREFIX)) throw new FormatError(`expected line 3 to start "${TRUSTED_PREFIX}", found ${quote(trusted)}`);
  const trustedComment = trusted.slice(TRUSTED_PREFIX.length);
  if (!printable(trustedComment)) throw new FormatError('expected a printable trusted comment, found a control character in it');
  if (Buffer.byteLength(trustedComment) > TRUSTED_COMMENT_MAX) throw new FormatError(`expected a trusted comment of at most ${TRUSTED_COMMENT_MAX} bytes, found ${Buffer.byteLength(trustedComment)}`);
  const globalSignature = decodeBase64(globalLine, SIGNATURE_BYTES, 'line 4, the global signature,');
  const keyIdBytes = Buffer.from(sig.subarray(2, 2 + KEY_ID_BYTES));
  return {
    untrustedComment: untrusted.slice(UNTRUSTED_PREFIX.length),
    algorithm,
    keyId: keyIdText(keyIdBytes),
    keyIdBytes,
    signature: Buffer.from(sig.subarray(2 + KEY_ID_BYTES)),
    trustedComment,
    globalSignature,
  };
}

export type Verdict =
  | { ok: true; keyId: string; algorithm: string; trustedComment: string }
  | { ok: false; problem: string };

/** Whether `signatureText` is a good signature of `message` by `key`; a failed check says what was expected and what was found. */
export function verifySignature(message: Uint8Array, signatureText: string, key: PublicKey): Verdict {
  let parsed: ParsedSignature;
  try {
    parsed = parseSignature(signatureText);
  } catch (error) {
    if (error instanceof FormatError) return { ok: false, problem: `not a minisign signature: ${error.message}` };
    throw error;
  }
  if (!parsed.keyIdBytes.equals(key.keyIdBytes)) return { ok: false, problem: `expected a signature by key id ${key.keyId}, found one by key id ${parsed.keyId}` };
  const signed = parsed.algorithm === PREHASHED_ALGORITHM ? blake2b512(message) : Buffer.from(message);
  if (!verify(null, signed, key.key, parsed.signature)) {
    return { ok: false, problem: `expected the signature to match the signed file's bytes, found it does not: the file or its signature was changed after signing (key id ${key.keyId})` };
  }
  if (!verify(null, Buffer.concat([parsed.signature, Buffer.from(parsed.trustedComment, 'utf8')]), key.key, parsed.globalSignature)) {
    return { ok: false, problem: `expected the global signature to cover the trusted comment ${quote(parsed.trustedComment)}, found it does not: the comment was changed after signing` };
  }
  return { ok: true, keyId: parsed.keyId, algorithm: parsed.algorithm, trustedComment: parsed.trustedComment };
}

// ---------------------------------------------------------------- the installer's check

/** The project's release key, built into the installer (compiler/data/release-signing.pub). */
export function builtInKey(): PublicKey {
  return parsePublicKey(builtInKeyText);
}

export interface SignatureReport {
  status: 'verified' | 'none';
  /** One line for --raw. */
  summary: string;
  keyId?: string;
  /** built-in: the key in this installer; pinned: --public-key. */
  key?: 'built-in' | 'pinned';
  algorithm?: string;
  signs?: string;
  trustedComment?: string;
}

/** --public-key: a minisign public key file, or the key's base64 line itself. */
export function pinnedKey(value: string, cwd: string): PublicKey {
  const inline = /^RW[A-Za-z0-9+/]{54}$/.test(value.trim());
  let text = value;
  if (!inline) {
    const file = path.resolve(cwd, value);
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw usage(`--public-key: expected a minisign public key (its base64 line, "RW…", or a file holding it), found no readable file at ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  try {
    return parsePublicKey(text);
  } catch (error) {
    if (error instanceof FormatError) throw usage(`--public-key ${inline ? 'value' : value}: ${error.message}`);
    throw error;
  }
}

export interface SignatureCheck {
  /** Names the bundle in messages: its folder or zip. */
  label: string;
  /** The manifest's bytes, exactly as the installer reads them. */
  manifestBytes: Uint8Array;
  /** gsd-file-manifest.json.minisig's text, or null when the bundle has none. */
  signatureText: string | null;
  /** --public-key, already parsed; the built-in key otherwise. */
  pinned?: PublicKey | null;
  /** --require-signature. */
  require?: boolean;
}

/**
 * The installer's verdict on a bundle's signature: a report when it is good
 * or absent (and not required), a refusal (nothing written) when it is bad,
 * by another key, or required and missing.
 */
export function checkBundleSignature(check: SignatureCheck): SignatureReport {
  const where = `${check.label}/${MANIFEST_SIGNATURE_FILE}`;
  if (check.signatureText === null) {
    if (check.require) {
      throw refused(`${check.label}: refused: --require-signature expected ${MANIFEST_SIGNATURE_FILE} beside ${MANIFEST_FILE}, found none (an unsigned bundle); nothing was written`);
    }
    return { status: 'none', summary: `signature: none — checked against its own manifest only (integrity, not origin)` };
  }
  const key = check.pinned ?? builtInKey();
  const which = check.pinned ? 'pinned' : 'built-in';
  const verdict = verifySignature(check.manifestBytes, check.signatureText, key);
  if (!verdict.ok) {
    const hint = check.pinned ? 'check --public-key' : 'download the release again from its official page, or pin your own key with --public-key';
    throw refused(`${where}: refused: bad signature of ${MANIFEST_FILE} against the ${which} key ${key.keyId}: ${verdict.problem}; ${hint}; nothing was written`, { keyId: key.keyId });
  }
  return {
    status: 'verified',
    summary: `signature: verified (key id ${verdict.keyId}${check.pinned ? ', pinned by --public-key' : ''}, signs ${MANIFEST_FILE}; every file matched its sha256)`,
    keyId: verdict.keyId,
    key: which,
    algorithm: verdict.algorithm,
    signs: MANIFEST_FILE,
    trustedComment: verdict.trustedComment,
  };
}
