// A target.json says what both scopes share once ("shared") and only what
// differs under scopes.global / scopes.local. This is the merge, pure: objects
// key by key, lists shared items first, a value set on both sides an error
// (say it once). After it, the placeholders only a scope can fill: {scope} in
// a preamble's file name, {root} in a limit's pattern, and the scope's own
// `names` (a folder that differs per scope, written once in shared).
import { escapeRegExp } from '../util/text.ts';
import type { ScopeId } from './target-types.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type KeyPath = (string | number)[];

export interface MergedScope {
  value: Record<string, Json>;
  /** Paths (inside the scope) set both in shared and in the scope. */
  conflicts: KeyPath[];
}

const isObject = (value: Json | undefined): value is { [key: string]: Json } => typeof value === 'object' && value !== null && !Array.isArray(value);

export function mergeScope(shared: Record<string, Json> | undefined, own: Record<string, Json>, scope: ScopeId): MergedScope {
  const conflicts: KeyPath[] = [];
  // A copy: the merge shares shared's objects between the scopes, and the placeholders differ per scope.
  const value = structuredClone(mergeValue(shared ?? {}, own, [], conflicts)) as Record<string, Json>;
  fillPlaceholders(value, scope);
  return { value, conflicts };
}

function mergeValue(base: Json | undefined, over: Json | undefined, at: KeyPath, conflicts: KeyPath[]): Json | undefined {
  if (base === undefined) return over;
  if (over === undefined) return base;
  if (isObject(base) && isObject(over)) {
    const out: { [key: string]: Json } = {};
    for (const key of new Set([...Object.keys(base), ...Object.keys(over)])) out[key] = mergeValue(base[key], over[key], [...at, key], conflicts)!;
    return out;
  }
  if (Array.isArray(base) && Array.isArray(over)) return [...base, ...over];
  conflicts.push(at);
  return over;
}

function fillPlaceholders(scope: Record<string, Json>, id: ScopeId): void {
  const root = typeof scope.root === 'string' ? scope.root : '';
  const names = Object.entries(isObject(scope.names) ? scope.names : {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  delete scope.names;
  const named = (text: string, escape: (value: string) => string) => names.reduce((out, [key, value]) => out.replaceAll(`{${key}}`, escape(value)), text);
  // The scope's names, in every string of the scope (limits' patterns escaped, with {root} too).
  const walk = (value: Json, inLimit: boolean): Json => {
    if (typeof value === 'string') return inLimit ? named(value.replaceAll('{root}', escapeRegExp(root)), escapeRegExp) : named(value, (text) => text);
    if (Array.isArray(value)) return value.map((item) => walk(item, inLimit));
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inLimit && key !== 'files' ? item : walk(item, inLimit)]));
    return value;
  };
  for (const key of Object.keys(scope)) scope[key] = walk(scope[key]!, key === 'limits');
  for (const surface of Array.isArray(scope.commands) ? scope.commands : []) {
    if (isObject(surface) && typeof surface.preamble === 'string') surface.preamble = surface.preamble.replaceAll('{scope}', id);
  }
}

/**
 * Where a path of the merged scope was written: in the scope's own block or
 * in shared (a list index past shared's items is the scope's).
 */
export function originOf(shared: Json | undefined, own: Json | undefined, path: KeyPath, scope: ScopeId): KeyPath {
  let a = shared;
  let b = own;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const head = path.slice(0, i);
    if (typeof key === 'number') {
      const n = Array.isArray(a) ? a.length : 0;
      return key < n ? ['shared', ...head, key, ...path.slice(i + 1)] : ['scopes', scope, ...head, key - n, ...path.slice(i + 1)];
    }
    const inA = isObject(a) && key in a;
    const inB = isObject(b) && key in b;
    if (inA && !inB) return ['shared', ...path];
    if (!inA) return ['scopes', scope, ...(inB ? path : head)];
    a = (a as { [key: string]: Json })[key];
    b = (b as { [key: string]: Json })[key];
  }
  return ['scopes', scope, ...path];
}
