// One diagnostic type for every stage, printed as
// `path:line:col: error CODE message`.

/** Every code the compiler can report, with what it means. Fixtures cover each. */
export const DIAGNOSTIC_CODES = {
  'source-encoding': 'a source file is not valid UTF-8',
  'layout-unknown': 'a file sits where no corpus family is defined',
  'layout-schema': 'a layout file (--layout FILE, compiler/data/layouts/) is not JSON matching schemas/layout.schema.json, has a pattern that is no regular expression, or keys a warning by no diagnostic code',
  'frontmatter-missing': 'a command or agent has no YAML frontmatter',
  'frontmatter-yaml': 'frontmatter is not valid YAML',
  'frontmatter-schema': 'frontmatter does not match its JSON schema',
  'marker-malformed-attributes': 'a gsd:section marker attribute list is not key="value" pairs, or repeats a key',
  'marker-unrecognized-attribute': 'a gsd:section marker has an attribute other than id and when',
  'marker-missing-id': 'a gsd:section marker has no id',
  'marker-missing-when': 'a gsd:section marker has no when',
  'marker-malformed-id': 'a gsd:section id is not lowercase kebab-case',
  'marker-unknown-when': 'a gsd:section when is not an atom of the frozen vocabulary',
  'marker-when-unevaluable': 'a gsd:section when is not a predicate of the runtime CLI the layout names',
  'marker-close-with-attributes': 'a /gsd:section close marker carries attributes',
  'marker-nested': 'a gsd:section opens while another is open',
  'marker-duplicate-id': 'a gsd:section id repeats within a file',
  'marker-unmatched-close': 'a /gsd:section close marker has no open section',
  'marker-unclosed': 'a gsd:section is still open at the end of the file',
  'only-malformed': 'a gsd:only marker is not <!-- gsd:only runtimes="id,..." --> or <!-- /gsd:only -->',
  'only-unknown-runtime': 'a gsd:only block names a runtime that has no target',
  'only-nested': 'a gsd:only block opens inside another',
  'only-unmatched-close': 'a /gsd:only close marker has no open block',
  'only-unclosed': 'a gsd:only block is still open at the end of the file',
  'loop-malformed': 'a gsd:loop marker is not <!-- gsd:loop point="..." roles="..." [produces="..."] [consumes="..."] --> with comma lists of names',
  'loop-unknown-point': 'a gsd:loop point is not one of compiler/data/loop-points.json',
  'loop-unknown-role': 'a gsd:loop marker names a role that compiler/data/loop-points.json does not define',
  'loop-duplicate-point': 'a gsd:loop point appears twice in one file',
  'loop-misplaced': 'a gsd:loop point sits outside the workflow that hosts it',
  'loop-missing-point': 'a host workflow lacks one of its loop points (in a corpus that declares loop points)',
  'loop-role-unspawned': 'a gsd:loop role is played by an agent its workflow never spawns',
  'build-config': "the project's gsd-build.json is not JSON matching schemas/build-config.schema.json, or names a capability that is neither a folder nor an installed npm package",
  'capability-schema': 'a capability folder has no capability.json, or it is not JSON matching schemas/capability.schema.json',
  'capability-id': "a capability's id is not its folder name",
  'capability-engines': "a capability's engines.gsd is not a version range, or does not admit this gsd-build version",
  'capability-config': 'a capability config key has a default of another type, disagrees with the config schema, or is declared by two capabilities',
  'capability-when': "a contribution's when is not a boolean key of its capability's config",
  'capability-path': 'a capability path leaves its folder (absolute, "..", a symlink leading out) or the folder is too deep or too large',
  'capability-fragment-missing': 'a fragment or file a capability names is not in its folder, or is empty or not UTF-8',
  'capability-fragment-size': 'a fragment or capability.json is larger than compiler/data/capabilities.json allows',
  'capability-fragment-marker': 'a fragment carries frontmatter or gsd:section / gsd:loop markers',
  'capability-clash': 'a capability id is taken (a third-party one cannot replace a first-party one), its section id collides at a loop point, or a command, agent, template or hook of its own takes a name the corpus or another capability has',
  'capability-cycle': 'contributions at one loop point produce and consume each other\'s artifacts in a cycle',
  'capability-hook': "a capability's hook names an event outside the hook registry's vocabulary, or an event or tool a target built for does not have",
  'capability-moved': "a warning: a capability's contribution inline would push its host workflow past its byte ceiling, so it went to a lazily read step file behind a stub",
  'capability-over-budget': "a capability's contribution would push a host workflow past its byte ceiling even as a stub in front of a step file",
  'ref-include-unresolved': 'an @-include names no corpus file',
  'ref-read-unresolved': 'a path into the installed tree names no corpus or generated file',
  'ref-command-unknown': 'a /gsd-<name> mention, Skill call or table cell naming gsd-<name> names no command',
  'ref-code-command-unknown': 'a message of the runtime CLI or a hook names a /gsd-<name> command (or builds one from parts) that the corpus does not ship',
  'ref-agent-unknown': 'a spawned subagent_type names no agent',
  'ref-requires-unknown': 'a requires: entry names no command',
  'ref-requires-missing': 'a command mentions another command it does not list in requires:',
  'cli-unknown-command': 'a runtime-CLI call names a verb or subcommand its command table lacks',
  'cli-unknown-flag': 'a runtime-CLI call passes a flag its verb does not take',
  'cli-bad-argument': 'a runtime-CLI call passes a literal value its verb does not accept: not one of an enum, or not a config key or template that exists',
  'shell-literal-value': 'a fenced shell example in an agent or workflow writes a phase number, phase folder, plan id, commit scope or commit hash as a literal instead of a placeholder',
  'step-file-missing': 'a gsd:section has no steps/<id>.md file',
  'step-file-orphan': 'a steps/ or modes/ file is reached from nowhere',
  'variant-drift': 'a compact variant (a .compact.md sibling) has no canonical file, or names a gsd:section, file, agent or command its canonical file does not',
  'budget-exceeded': 'a file or eager-load closure is larger than its ceiling',
  'budget-loosened': 'a ceiling is above its tier cap or above the committed baseline',
  'budget-slack': 'a ceiling sits further above the file than its grace allows',
  'budgets-schema': 'budgets.json does not match schemas/budgets.schema.json',
  'profiles-schema': 'profiles.json does not match schemas/profiles.schema.json, or names a command or profile that does not exist',
  'profile-outside': "a file a skill profile ships mentions a command the profile leaves out, outside any list item or table row it could drop",
  'target-schema': 'a target definition does not match schemas/target.schema.json',
  'target-facts': "a target's facts.json does not match schemas/facts.schema.json, or its definition names an event, tool, key, permission or limit the facts do not document",
  'hooks-schema': 'hooks/hooks.json does not match schemas/hooks.schema.json, or names a missing script',
  'config-key-unread': 'a config-schema key that no workflow, agent, runtime-CLI or hook source names (warning)',
  'when-atom-unused': 'a when= atom of the runtime predicate table that no gsd:section marker uses (warning)',
  'ref-orphan': 'a reference that no command, workflow, agent or other reference loads (warning)',
  'runtime-build': "the corpus's runtime code (runtime/build.ts and what it bundles) does not bundle or build",
  'golden-entry': 'an entry of the golden folder (gsd-build check) is neither a file, a link to a file, nor a folder: a link to a folder or to nothing, a FIFO, a socket or a device',
  'emit-foreign-path': "emitted text names another runtime's root",
  'emit-path-collision': 'two paths of a bundle (files, or folders on the way) are one file where case or Unicode form is not told apart (macOS, Windows): Notes.md and notes.md, é composed and decomposed',
  'limit-exceeded': "an emitted file or frontmatter value breaks a limit the runtime documents (a size, a value pattern, text it would rewrite)",
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export interface Diagnostic {
  /** POSIX path relative to the tree it came from (source dir, targets dir, ...). */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units of the line. */
  column: number;
  code: DiagnosticCode;
  message: string;
  /** Errors block the build; warnings (a layout's declared corpus defects) are printed and counted. */
  severity?: 'error' | 'warning';
}

export function diagnostic(
  file: string,
  line: number,
  column: number,
  code: DiagnosticCode,
  message: string,
): Diagnostic {
  return { file, line, column, code, message };
}

export function formatDiagnostic(d: Diagnostic, displayPrefix = ''): string {
  const file = displayPrefix ? `${displayPrefix.replace(/\/+$/, '')}/${d.file}` : d.file;
  return `${file}:${d.line}:${d.column}: ${d.severity ?? 'error'} ${d.code} ${d.message}`;
}

/** Stable order: by file, then position, then code. */
export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return [...list].sort(
    (a, b) =>
      compareText(a.file, b.file) || a.line - b.line || a.column - b.column || compareText(a.code, b.code),
  );
}

/** Code-unit comparison: independent of the machine's locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
