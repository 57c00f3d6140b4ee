// The per-turn cost of a bundle: the names and descriptions of the commands
// and skills the runtime lists in every turn's context. Measured on the
// emitted tree, so it is what the runtime reads: the files at a command
// surface's top level (a nested layout's routed commands sit below them and
// are not listed), each counted as its frontmatter name (else the file's stem)
// plus its description. Pure.
import path from 'node:path';
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { TargetDefinition, TargetScope } from '../targets/target-types.ts';
import { escapeRegExp } from '../util/text.ts';
import { emittedFrontmatter, frontmatterScalar } from '../emit/emitted-frontmatter.ts';
import { factsOf, isTextFile, keptFact, renderedText, type ListedEntry, type TreeFile, type VirtualTree } from '../emit/virtual-tree.ts';
import type { Budgets } from '../check/check-budgets.ts';

/** The ratio `~tokens` uses: about four UTF-8 bytes per token for English prose. */
export const BYTES_PER_TOKEN = 4;

export interface ListingCost {
  /** nested: the runtime lists only routers and unrouted commands. */
  shape: 'flat' | 'nested';
  listings: number;
  bytes: number;
  chars: number;
  tokens: number;
  /** The listed file with the longest entry, where a diagnostic points. */
  largest: string | null;
}

/** The files a scope's runtime lists every turn: those at a command surface's top level, outside GSD's own folder. */
export function listedFiles(scope: TargetScope): RegExp[] {
  // GSD's own folder holds copies a runtime reads on demand, never lists.
  return scope.commands
    .filter((surface) => !surface.path.startsWith('{root}/gsd-core/'))
    .map((surface) => new RegExp(`^${escapeRegExp(surface.path.replaceAll('{root}', scope.root)).replace(escapeRegExp('{name}'), '[^/]+')}$`));
}

/** A listed text file's entry, read once (a reused file keeps it in its facts, and so does an encoded one). */
export function listedOf(file: TreeFile): ListedEntry {
  return file.reused || file.encoded ? keptFact(file, 'listed') : (factsOf(file).listed = listedEntry(renderedText(file)));
}

export function listingCost(tree: VirtualTree, scope: TargetScope): ListingCost {
  let listings = 0;
  let bytes = 0;
  let chars = 0;
  let largest: { file: string; bytes: number } | null = null;
  for (const pattern of listedFiles(scope)) {
    for (const [file, entry] of tree) {
      if (!pattern.test(file) || !isTextFile(entry)) continue;
      const listed = listedOf(entry);
      // Without a name, the runtime lists the file's stem.
      const stem = listed.named ? '' : path.posix.basename(file).replace(/\.[^.]+$/, '');
      const entryBytes = listed.bytes + Buffer.byteLength(stem);
      listings += 1;
      bytes += entryBytes;
      chars += listed.chars + [...stem].length;
      if (!largest || entryBytes > largest.bytes) largest = { file, bytes: entryBytes };
    }
  }
  return { shape: scope.commands.some((surface) => surface.nested) ? 'nested' : 'flat', listings, bytes, chars, tokens: Math.ceil(bytes / BYTES_PER_TOKEN), largest: largest?.file ?? null };
}

function listedEntry(text: string): ListedEntry {
  const frontmatter = emittedFrontmatter(text);
  const value = (key: string) => {
    const scalar = frontmatterScalar(frontmatter, key);
    return scalar ? String(scalar.value) : undefined;
  };
  const name = value('name');
  const entry = `${name ?? ''}${value('description') ?? ''}`;
  return { named: name !== undefined, bytes: Buffer.byteLength(entry), chars: [...entry].length };
}

/** The budget (source/budgets.json `listing.<profile>.<shape>`) and the runtime's own limit (target.json `listing`), as diagnostics. */
export function checkListing(bundle: string, cost: ListingCost, profile: string, target: TargetDefinition, budgets: Budgets | null): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const at = `${bundle}/${cost.largest ?? ''}`;
  const ceiling = budgets?.listing?.[profile]?.[cost.shape];
  const found = `found ${cost.bytes} bytes (~${cost.tokens} tokens) over ${cost.listings} listings`;
  if (ceiling !== undefined && cost.bytes > ceiling) {
    diagnostics.push(diagnostic(at, 1, 1, 'budget-exceeded', `expected the ${profile} profile's per-turn listing within ${ceiling} bytes (budgets.json listing.${profile}.${cost.shape}), ${found}`));
  }
  const limit = target.listing;
  if (limit?.maxChars !== undefined && cost.chars > limit.maxChars) {
    diagnostics.push(diagnostic(at, 1, 1, 'limit-exceeded', `expected the per-turn listing within ${limit.maxChars} characters (${limit.reason}), found ${cost.chars} over ${cost.listings} listings`));
  }
  if (limit?.maxTokens !== undefined && cost.tokens > limit.maxTokens) {
    diagnostics.push(diagnostic(at, 1, 1, 'limit-exceeded', `expected the per-turn listing within ~${limit.maxTokens} tokens (${limit.reason}), ${found}`));
  }
  return diagnostics;
}
