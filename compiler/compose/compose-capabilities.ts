// Capabilities into loop points, at build time. Each contribution is spliced
// into its host workflow right after the loop marker, in a gsd:section whose
// when= is the capability's config key (`config:<key>`): the runtime CLI's
// section selection turns it on or off per project, with no registry at run
// time. A contribution whose text would push the host past its byte ceiling
// goes, whole, into a step file of the host (read only when its section is
// selected) behind a short stub instead; when even the stub does not fit, the
// build fails naming the capability, the point and the bytes.
// Order at a point: producers before consumers of an artifact, capability id
// (then manifest order) as the tiebreak; a cycle is an error naming both ends.
// Which contribution goes inline is decided in that order, points in the
// core loop's order (within a host, its line order): the first that fit stay inline.
// Pure: first-pass IR and capabilities in, source files to rebuild from out.
import { compareText, diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { ComposedEntry, IrNode } from '../ir/types.ts';
import { ownCorpusPath, OWN_FILE_HOMES, type Capability, type CapabilityContribution } from '../load/load-capabilities.ts';
import { LOOP_POINTS, LOOP_ROLES } from '../load/parse-loop-points.ts';
import { splitLines } from '../load/scan-lines.ts';
import type { SourceFile } from '../load/read-source-tree.ts';

/** Where composed text came from, to put diagnostics on the files people edit. */
export interface LineOrigin {
  /**
   * Host: inserted after `afterLine` (original numbering), `lines` lines for the entry at `line`:`column` of
   * `file` (its capability.json); an inline entry's fragment is lines `fragment.from` to `fragment.from +
   * fragment.lines - 1` of the insertion (1-based), line 1 of `fragment.file` at the first.
   */
  insertions: Map<string, Insertion[]>;
  /** Step file → the fragment it carries, below `headerLines` generated lines. */
  steps: Map<string, { headerLines: number; fragmentFile: string; manifestFile: string; line: number; column: number }>;
  /** A capability's own command, agent or template at its corpus path → the file in the capability folder. */
  own: Map<string, string>;
}

export interface Insertion {
  afterLine: number;
  lines: number;
  file: string;
  line: number;
  column: number;
  fragment?: { file: string; from: number; lines: number };
}

export interface Composition {
  /** Loop point → its entries in composition order (points in loop-points.json order, only those with entries). */
  points: Record<string, ComposedEntry[]>;
  /** The source files with hosts replaced and step files added. */
  files: SourceFile[];
  /** when= atoms the composed sections use. */
  atoms: string[];
  origins: LineOrigin;
  diagnostics: Diagnostic[];
}

export function composeCapabilities(
  files: readonly SourceFile[],
  nodes: readonly IrNode[],
  capabilities: readonly Capability[],
  ceilingOf: (path: string) => number | null,
): Composition {
  const diagnostics: Diagnostic[] = [];
  const origins: LineOrigin = { insertions: new Map(), steps: new Map(), own: new Map() };
  const hosts = new Map<string, { node: IrNode; line: number; roles: string[] }>();
  for (const node of nodes) for (const point of node.loopPoints ?? []) if (node.kind === 'workflow') hosts.set(point.point, { node, line: point.line, roles: point.roles });
  const existing = new Set(nodes.map((node) => node.path));
  const manifestOf = (capability: Capability) => `${capability.display}/capability.json`;

  // Group by point; a point no host declares composes nothing (a corpus without loop points).
  const byPoint = new Map<string, { capability: Capability; entry: CapabilityContribution }[]>();
  for (const capability of capabilities) {
    for (const entry of capability.contributions) {
      const host = hosts.get(entry.point);
      if (!host) continue;
      // The orchestrator is the workflow itself: it acts at every point.
      if (entry.kind === 'contribution' && entry.into !== 'orchestrator' && !host.roles.includes(entry.into!)) {
        diagnostics.push(diagnostic(manifestOf(capability), entry.line, entry.column, 'loop-unknown-role', `expected a role that acts at ${entry.point} (${host.roles.join(', ')}), found "${entry.into}"`));
        continue;
      }
      const list = byPoint.get(entry.point) ?? [];
      list.push({ capability, entry });
      byPoint.set(entry.point, list);
    }
  }

  const points: Record<string, ComposedEntry[]> = {};
  const added: SourceFile[] = [];
  const hostText = new Map<string, { node: IrNode; inserts: { afterLine: number; text: string }[]; bytes: number }>();
  // Points in loop-points.json order (the core loop's, and within a host its line order).
  const rank = new Map(LOOP_POINTS.map((spec, index) => [spec.point, index]));
  const orderedPoints = [...byPoint.keys()].sort((a, b) => rank.get(a)! - rank.get(b)! || hosts.get(a)!.line - hosts.get(b)!.line);
  for (const point of orderedPoints) {
    const { node: host, line } = hosts.get(point)!;
    const ordered = orderAtPoint(byPoint.get(point)!, manifestOf, diagnostics);
    const state = hostText.get(host.path) ?? { node: host, inserts: [], bytes: host.bytes };
    hostText.set(host.path, state);
    const texts: string[] = [];
    const composed: ComposedEntry[] = [];
    const insertions = origins.insertions.get(host.path) ?? [];
    origins.insertions.set(host.path, insertions);
    const perCapability = new Map<string, number>();
    const sectionIds = new Set(host.sections.map((section) => section.id));
    for (const { capability, entry } of ordered) {
      const count = (perCapability.get(capability.id) ?? 0) + 1;
      perCapability.set(capability.id, count);
      const section = `${capability.id}-${point.replace(/:/g, '-')}${count > 1 ? `-${count}` : ''}`;
      const step = `gsd-core/workflows/${host.name}/steps/${section}.md`;
      if (sectionIds.has(section) || existing.has(step)) {
        diagnostics.push(diagnostic(manifestOf(capability), entry.line, entry.column, 'capability-clash', `expected section "${section}" free in ${host.path}, found a section or step file of that name`));
        continue;
      }
      const when = `config:${entry.when}`;
      const ceiling = ceilingOf(host.path);
      const inline = inlineText(section, when, capability, entry, point);
      const inlineBytes = insertedBytes(inline.text);
      const fits = (bytes: number) => ceiling === null || state.bytes + bytes <= ceiling;
      const where = { file: manifestOf(capability), line: entry.line, column: entry.column };
      let placed: { text: string; hostBytes: number; step?: { path: string; bytes: number } };
      if (fits(inlineBytes)) {
        placed = { text: inline.text, hostBytes: inlineBytes };
        // The fragment's first line comes after the blank line and the header.
        const fragment = { file: `${capability.display}/${entry.fragment}`, from: inline.headerLines + 2, lines: entry.text.replace(/\n$/, '').split('\n').length };
        insertions.push({ afterLine: line, lines: lineCount(inline.text), ...where, fragment });
      } else {
        const stub = stubText(section, when, step, capability.id, point);
        const stubBytes = insertedBytes(stub);
        if (!fits(stubBytes)) {
          diagnostics.push(
            diagnostic(
              where.file,
              where.line,
              where.column,
              'capability-over-budget',
              `expected ${host.path} within its ${ceiling}-byte ceiling, found ${state.bytes + inlineBytes} bytes with capability ${capability.id} at ${point} inline (${inlineBytes} bytes) and ${state.bytes + stubBytes} with it moved to a step file (its ${stubBytes}-byte stub)`,
            ),
          );
          continue;
        }
        diagnostics.push({
          ...diagnostic(
            where.file,
            where.line,
            where.column,
            'capability-moved',
            `expected capability ${capability.id} at ${point} inline in ${host.path}, found ${state.bytes + inlineBytes} bytes that way, past its ${ceiling}-byte ceiling: moved to ${step}, read only when its section is selected (${stubBytes}-byte stub)`,
          ),
          severity: 'warning',
        });
        const { text, headerLines } = stepText(capability, entry, point);
        added.push({ path: step, bytes: new TextEncoder().encode(text) });
        origins.steps.set(step, { headerLines, fragmentFile: `${capability.display}/${entry.fragment}`, manifestFile: where.file, line: where.line, column: where.column });
        placed = { text: stub, hostBytes: stubBytes, step: { path: step, bytes: Buffer.byteLength(text, 'utf8') } };
        insertions.push({ afterLine: line, lines: lineCount(stub), ...where });
      }
      state.bytes += placed.hostBytes;
      texts.push(placed.text);
      composed.push({
        capability: capability.id,
        kind: entry.kind,
        point,
        workflow: host.name,
        section,
        when,
        placement: placed.step ? 'step' : 'inline',
        ...(placed.step ? { step: placed.step.path } : {}),
        ...(entry.into !== undefined ? { into: entry.into } : {}),
        ...(entry.run !== undefined ? { run: entry.run } : {}),
        ...(entry.blocking !== undefined ? { blocking: entry.blocking } : {}),
        produces: entry.produces,
        consumes: entry.consumes,
        onError: entry.onError,
        fragment: entry.fragment,
        hostBytes: placed.hostBytes,
        inlineBytes,
        stepBytes: placed.step?.bytes ?? 0,
      });
    }
    if (texts.length === 0) continue;
    points[point] = composed;
    // Each entry after a blank line of its own; the blank line that followed the marker still follows the last.
    state.inserts.push({ afterLine: line, text: texts.map((text) => `\n${text}\n`).join('') });
  }

  const replaced = new Map<string, SourceFile>();
  for (const [file, state] of hostText) {
    if (state.inserts.length === 0) continue;
    replaced.set(file, { path: file, bytes: new TextEncoder().encode(`${state.node.bom ? '\uFEFF' : ''}${insertAfterLines(state.node.text, state.inserts)}`) });
  }
  const atoms = [...new Set(Object.values(points).flatMap((entries) => entries.map((entry) => entry.when)))].sort(compareText);
  const composedFiles = [...files.map((file) => replaced.get(file.path) ?? file), ...added].sort((a, b) => compareText(a.path, b.path));
  return { points, files: composedFiles, atoms, origins, diagnostics };
}

/** Topological order by produces/consumes; ready entries by capability id, then manifest order. */
function orderAtPoint(
  entries: { capability: Capability; entry: CapabilityContribution }[],
  manifestOf: (capability: Capability) => string,
  diagnostics: Diagnostic[],
): { capability: Capability; entry: CapabilityContribution }[] {
  const key = (item: { capability: Capability; entry: CapabilityContribution }) => `${item.capability.id}\u0000${String(item.entry.index).padStart(4, '0')}`;
  const sorted = [...entries].sort((a, b) => compareText(key(a), key(b)));
  const before = (a: (typeof sorted)[number], b: (typeof sorted)[number]) => a !== b && a.entry.produces.some((artifact) => b.entry.consumes.includes(artifact));
  const done: typeof sorted = [];
  const remaining = new Set(sorted);
  while (remaining.size > 0) {
    const ready = sorted.find((item) => remaining.has(item) && ![...remaining].some((other) => before(other, item)));
    if (!ready) {
      // Every remaining entry waits on another: report the first and one it waits on, and drop the rest of the cycle.
      const first = sorted.find((item) => remaining.has(item))!;
      const other = [...remaining].find((candidate) => before(candidate, first))!;
      const artifact = other.entry.produces.find((name) => first.entry.consumes.includes(name));
      const back = first.entry.produces.find((name) => other.entry.consumes.includes(name));
      diagnostics.push(
        diagnostic(
          manifestOf(first.capability),
          first.entry.line,
          first.entry.column,
          'capability-cycle',
          `expected an order at ${first.entry.point} where producers come first, found a cycle: ${first.capability.id} consumes ${artifact} from ${other.capability.id}${back ? `, which consumes ${back} from ${first.capability.id}` : ' (through others)'}`,
        ),
      );
      break;
    }
    done.push(ready);
    remaining.delete(ready);
  }
  return done;
}

function stubText(section: string, when: string, step: string, capability: string, point: string): string {
  return [
    `<!-- gsd:section id="${section}" when="${when}" -->`,
    `When \`section_manifest\` is null or lists \`${section}\` as included, read and`,
    `follow \`~/.claude/${step}\` (capability ${capability}, ${point});`,
    'otherwise skip it and do not read the file.',
    '<!-- /gsd:section -->',
  ].join('\n');
}

/**
 * The contribution in its host: the section, a tag naming where it came from,
 * the selection rule in words (bundles drop the marker lines), what to do, the fragment.
 */
function inlineText(section: string, when: string, capability: Capability, entry: CapabilityContribution, point: string): { text: string; headerLines: number } {
  const header = [
    `<!-- gsd:section id="${section}" when="${when}" -->`,
    `<capability id="${capability.id}" version="${capability.version}" point="${point}">`,
    `Only when \`section_manifest\` is null or lists \`${section}\` as included, do what this block says; otherwise skip to its end.`,
    instructionText(entry),
    '',
  ];
  return { text: [...header, entry.text.replace(/\n$/, ''), '</capability>', '<!-- /gsd:section -->'].join('\n'), headerLines: header.length };
}

/** Bytes a composed text adds to its host: it and the blank line before it, each ending in a line feed. */
function insertedBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8') + 2;
}

/** Host lines a composed text adds: the blank line before it and its own. */
function lineCount(text: string): number {
  return text.split('\n').length + 1;
}

/** What to do with the fragment, and what to do when that cannot be done. */
function instructionText(entry: CapabilityContribution): string {
  const onError = entry.onError === 'halt' ? 'If this cannot be done, stop the workflow and say why.' : 'If this cannot be done (a tool or file is missing), say so and go on.';
  return `${leadText(entry)} ${onError}`;
}

/** The step file: a provenance line, what to do with the fragment, the fragment. */
function stepText(capability: Capability, entry: CapabilityContribution, point: string): { text: string; headerLines: number } {
  const header = `<!-- From capability ${capability.id} ${capability.version} (${entry.fragment}), composed at ${point} by gsd-build. -->\n${instructionText(entry)}\n\n`;
  return { text: header + entry.text, headerLines: header.split('\n').length - 1 };
}

function leadText(entry: CapabilityContribution): string {
  switch (entry.kind) {
    case 'contribution': {
      const agent = LOOP_ROLES[entry.into!];
      return agent ? `When you spawn ${agent} at this point, add what follows to its prompt, after its \`<objective>\`.` : 'Do what follows yourself, at this point of the workflow.';
    }
    case 'step':
      return entry.run?.agent
        ? `Spawn ${entry.run.agent} now (\`subagent_type="${entry.run.agent}"\`, model from init or \`resolve-model\`) with what follows as its prompt, and wait for its return.`
        : `Run \`/gsd-${entry.run!.command}\` now as described below, then come back here.`;
    case 'gate':
      return entry.blocking ? 'A blocking gate: check what follows; when it fails, stop and report what failed.' : 'A warning gate: check what follows; when it fails, say so and go on.';
  }
}

/** Inserts text after whole lines (1-based, original numbering), in the line's own line ending; every other byte kept. */
function insertAfterLines(text: string, inserts: readonly { afterLine: number; text: string }[]): string {
  const byLine = new Map(inserts.map((insert) => [insert.afterLine, insert.text]));
  return splitLines(text)
    .map((line, index) => {
      const insert = byLine.get(index + 1);
      if (insert === undefined) return line.content + line.eol;
      const eol = line.eol === '\r\n' ? '\r\n' : '\n';
      return line.content + (line.eol || '\n') + insert.replace(/\n/g, eol);
    })
    .join('');
}

/**
 * A capability's own commands, agents and templates, placed where the corpus
 * keeps its own (commands/gsd/, agents/, gsd-core/templates/), so that every
 * check the corpus's files meet meets them too. A name the corpus or an
 * earlier capability has is an error: a capability adds, it never replaces.
 */
export function placeOwnFiles(files: readonly SourceFile[], capabilities: readonly Capability[]): { files: SourceFile[]; own: Map<string, string>; diagnostics: Diagnostic[] } {
  const taken = new Set(files.map((file) => file.path));
  const placed: SourceFile[] = [];
  const own = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  for (const capability of capabilities) {
    for (const family of Object.keys(OWN_FILE_HOMES) as (keyof typeof OWN_FILE_HOMES)[]) {
      for (const file of capability.own[family]) {
        const corpusPath = ownCorpusPath(family, file);
        const display = `${capability.display}/${file}`;
        if (taken.has(corpusPath)) {
          diagnostics.push(diagnostic(display, 1, 1, 'capability-clash', `expected a ${family.slice(0, -1)} name the corpus and other capabilities leave free, found ${corpusPath} taken${own.has(corpusPath) ? ` by ${own.get(corpusPath)}` : ''}`));
          continue;
        }
        taken.add(corpusPath);
        own.set(corpusPath, display);
        placed.push({ path: corpusPath, bytes: capability.files.find((entry) => entry.path === file)!.bytes });
      }
    }
  }
  return { files: [...files, ...placed].sort((a, b) => compareText(a.path, b.path)), own, diagnostics };
}

/** Whether a finding of the second pass lies in text composition wrote: a step file, or lines it spliced into a host. */
export function inComposedText(d: Diagnostic, origins: LineOrigin): boolean {
  if (origins.steps.has(d.file)) return true;
  const insertions = origins.insertions.get(d.file);
  if (!insertions) return false;
  let offset = 0;
  for (const insertion of [...insertions].sort((a, b) => a.afterLine - b.afterLine)) {
    if (d.line <= insertion.afterLine + offset) return false;
    if (d.line <= insertion.afterLine + offset + insertion.lines) return true;
    offset += insertion.lines;
  }
  return false;
}

/** Section keys (`<workflow>/<section id>`) of the entries composed inline: they have no step file. */
export function inlineSections(points: Readonly<Record<string, readonly ComposedEntry[]>> | undefined): Set<string> {
  return new Set(Object.values(points ?? {}).flatMap((entries) => entries.filter((entry) => entry.placement === 'inline').map((entry) => `${entry.workflow}/${entry.section}`)));
}

/** Diagnostics on composed text, moved to the files people edit: hosts' own lines, fragments, capability.json. */
export function remapDiagnostics(diagnostics: readonly Diagnostic[], origins: LineOrigin): Diagnostic[] {
  return diagnostics.map((d) => {
    const own = origins.own.get(d.file);
    if (own) return { ...d, file: own };
    const step = origins.steps.get(d.file);
    if (step) {
      return d.line > step.headerLines ? { ...d, file: step.fragmentFile, line: d.line - step.headerLines } : { ...d, file: step.manifestFile, line: step.line, column: step.column };
    }
    const insertions = origins.insertions.get(d.file);
    if (!insertions) return d;
    let offset = 0;
    for (const insertion of [...insertions].sort((a, b) => a.afterLine - b.afterLine)) {
      if (d.line <= insertion.afterLine + offset) break;
      if (d.line <= insertion.afterLine + offset + insertion.lines) {
        const at = d.line - insertion.afterLine - offset;
        const fragment = insertion.fragment;
        if (fragment && at >= fragment.from && at < fragment.from + fragment.lines) return { ...d, file: fragment.file, line: at - fragment.from + 1 };
        return { ...d, file: insertion.file, line: insertion.line, column: insertion.column };
      }
      offset += insertion.lines;
    }
    return { ...d, line: d.line - offset };
  });
}
