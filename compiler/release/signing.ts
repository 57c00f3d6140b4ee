// Release signing: Ed25519 keys and minisign-format signatures made with
// Node's own crypto (the formats and the verifier are in
// source/runtime/install/signature.ts, which the installer bundles).
//
// The secret key is an Ed25519 private key as PKCS#8 PEM, after one line
// saying what it is. The key id is not stored: it is the first 8 bytes of
// the BLAKE2b-512 digest of the 32-byte public key, so the PEM alone defines
// the pair. Ed25519 signatures are deterministic and the trusted comments
// fixed, so the same key signs the same release to the same bytes.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  blake2b512,
  formatPublicKey,
  keyIdText,
  LEGACY_ALGORITHM,
  parsePublicKey,
  PREHASHED_ALGORITHM,
  TRUSTED_PREFIX,
  UNTRUSTED_PREFIX,
  type PublicKey,
} from '../../source/runtime/install/signature.ts';

export interface Signer {
  keyId: string;
  publicKey: PublicKey;
  /** minisign's public key file for this key. */
  publicKeyFile: string;
  /** A minisign signature file of `message` ("ED": the BLAKE2b-512 digest is signed; legacy "Ed": the bytes). */
  sign(message: Uint8Array, trustedComment: string, options?: { untrustedComment?: string; legacy?: boolean }): string;
}

export class SigningKeyError extends Error {}

const PEM_BLOCK = /-----BEGIN PRIVATE KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PRIVATE KEY-----/;

/** The key id of a public key: the first 8 bytes of its BLAKE2b-512 digest. */
export const keyIdFor = (raw: Uint8Array) => Buffer.from(blake2b512(raw).subarray(0, 8));

const rawPublicKey = (key: KeyObject) => Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url');

/** A signer from the secret key file's text (gsd-build keygen). */
export function loadSigningKey(text: string, label: string): Signer {
  const block = PEM_BLOCK.exec(text)?.[0];
  if (!block) {
    const found = text.trim() === '' ? 'nothing' : text.includes('minisign') ? 'a minisign secret key (not read here: use gsd-build keygen)' : `${text.trim().split('\n')[0]!.slice(0, 40)}…`;
    throw new SigningKeyError(`${label}: expected an Ed25519 private key as PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----", as gsd-build keygen writes it), found ${found}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(block);
  } catch (error) {
    throw new SigningKeyError(`${label}: expected a readable PKCS#8 private key, found one OpenSSL cannot decode (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new SigningKeyError(`${label}: expected an Ed25519 key, found a ${key.asymmetricKeyType} key`);
  const raw = rawPublicKey(key);
  const keyIdBytes = keyIdFor(raw);
  const publicKeyFile = formatPublicKey(keyIdBytes, raw);
  const publicKey = parsePublicKey(publicKeyFile);
  return {
    keyId: publicKey.keyId,
    publicKey,
    publicKeyFile,
    sign(message, trustedComment, options = {}) {
      if (/[\0-\x08\x0a-\x1f\x7f]/.test(trustedComment)) throw new SigningKeyError(`expected a one-line printable trusted comment, found ${JSON.stringify(trustedComment)}`);
      const algorithm = options.legacy ? LEGACY_ALGORITHM : PREHASHED_ALGORITHM;
      const signature = sign(null, options.legacy ? Buffer.from(message) : blake2b512(message), key);
      const global = sign(null, Buffer.concat([signature, Buffer.from(trustedComment, 'utf8')]), key);
      const untrusted = options.untrustedComment ?? `signature from gsd-build key ${publicKey.keyId}`;
      return [
        `${UNTRUSTED_PREFIX}${untrusted}`,
        Buffer.concat([Buffer.from(algorithm, 'latin1'), keyIdBytes, signature]).toString('base64'),
        `${TRUSTED_PREFIX}${trustedComment}`,
        global.toString('base64'),
        '',
      ].join('\n');
    },
  };
}

/** A new key pair: the secret key file's text and the minisign public key file's text. */
export function generateKeyPair(): { keyId: string; secretKeyFile: string; publicKeyFile: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const keyId = keyIdText(keyIdFor(rawPublicKey(privateKey)));
  const secretKeyFile = `gsd-build release signing key ${keyId} (Ed25519, PKCS#8). Keep it secret: whoever holds it can sign GSD releases.\n${pem}`;
  const signer = loadSigningKey(secretKeyFile, 'generated key');
  return { keyId, secretKeyFile, publicKeyFile: signer.publicKeyFile };
}

/** The fixed trusted comment of a release file: its name and the version, no timestamp. */
export const trustedCommentFor = (file: string, version: string) => `gsd-build release ${version} file:${file}`;
