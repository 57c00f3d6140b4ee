// Package names per ecosystem, checked before any URL is built from them:
// each check walks the characters (no regex over untrusted text) and answers
// the canonical form the registry and the typo comparison use.
export type Ecosystem = 'npm' | 'pypi' | 'crates';
export const ECOSYSTEMS: readonly Ecosystem[] = ['npm', 'pypi', 'crates'];

export type NameCheck = { ok: true; name: string; canonical: string } | { ok: false; expected: string };

const EXPECTED: Record<Ecosystem, string> = {
  npm: 'an npm name: letters, digits, "-", ".", "_" or "~", not starting with "." or "_", optionally scoped as @scope/name, at most 214 characters',
  pypi: 'a PyPI project name: letters, digits, "-", "_" or ".", starting and ending with a letter or digit, at most 100 characters (no version or extras)',
  crates: 'a crate name: ASCII letters, digits, "-" or "_", starting with a letter, at most 64 characters',
};

const isLower = (c: string) => c >= 'a' && c <= 'z';
const isUpper = (c: string) => c >= 'A' && c <= 'Z';
const isDigit = (c: string) => c >= '0' && c <= '9';
const isAlnum = (c: string) => isLower(c) || isUpper(c) || isDigit(c);
const every = (s: string, ok: (c: string) => boolean) => [...s].every(ok);

/** One npm name part (scope or name): URL-safe characters, no leading "." or "_". */
function npmPart(part: string): boolean {
  return part.length > 0 && part[0] !== '.' && part[0] !== '_' && every(part, (c) => isAlnum(c) || c === '-' || c === '.' || c === '_' || c === '~');
}

function checkNpm(raw: string): NameCheck {
  if (raw.length > 214) return { ok: false, expected: EXPECTED.npm };
  let parts = [raw];
  if (raw.startsWith('@')) {
    const slash = raw.indexOf('/');
    if (slash < 0) return { ok: false, expected: EXPECTED.npm };
    parts = [raw.slice(1, slash), raw.slice(slash + 1)];
  }
  if (!parts.every(npmPart)) return { ok: false, expected: EXPECTED.npm };
  if (raw === 'node_modules' || raw === 'favicon.ico') return { ok: false, expected: EXPECTED.npm };
  return { ok: true, name: raw, canonical: raw.toLowerCase() };
}

function checkPypi(raw: string): NameCheck {
  const ok =
    raw.length > 0 &&
    raw.length <= 100 &&
    isAlnum(raw[0]!) &&
    isAlnum(raw[raw.length - 1]!) &&
    every(raw, (c) => isAlnum(c) || c === '-' || c === '_' || c === '.');
  return ok ? { ok: true, name: raw, canonical: normalisePypi(raw) } : { ok: false, expected: EXPECTED.pypi };
}

/** PEP 503 normal form: lowercase, each run of "-", "_" and "." as one "-". */
export function normalisePypi(name: string): string {
  let out = '';
  for (const c of name.toLowerCase()) {
    const sep = c === '-' || c === '_' || c === '.';
    if (sep) {
      if (!out.endsWith('-')) out += '-';
    } else out += c;
  }
  return out;
}

function checkCrate(raw: string): NameCheck {
  const ok = raw.length > 0 && raw.length <= 64 && (isLower(raw[0]!) || isUpper(raw[0]!)) && every(raw, (c) => isAlnum(c) || c === '-' || c === '_');
  // crates.io treats "-" and "_" as the same and ignores case.
  return ok ? { ok: true, name: raw, canonical: raw.toLowerCase().replaceAll('_', '-') } : { ok: false, expected: EXPECTED.crates };
}

export function checkName(ecosystem: Ecosystem, raw: string): NameCheck {
  if (ecosystem === 'npm') return checkNpm(raw);
  if (ecosystem === 'pypi') return checkPypi(raw);
  return checkCrate(raw);
}
