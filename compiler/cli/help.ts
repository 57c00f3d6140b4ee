// Every verb's --help text. Light on purpose: printed without loading the verb.

export const HELP = {
  build: `Usage: gsd-build --target <id> [--scope global|local] | --all [options]

Builds bundles into <out>/<target>/<scope>/. Nothing is written when any check fails.

Options:
  --target <id>     a target in targets/ (repeatable)
  --scope <scope>   global or local (default: both the target defines)
  --all             every target and scope
  --source <dir>    a GSD-layout source tree (default: ./source, else the corpus
                    that ships with gsd-build)
  --out <dir>       output root (default: ./dist)
  --targets <dir>   target definitions (default: the project's targets/)
  --layout <name>   how to read the source tree: a built-in layout (compiler/data/layouts;
                    detected by default) or a layout file (schemas/layout.schema.json)
  --capability <folder|npm package>
                    compose a third-party capability in (repeatable; every verb that builds takes it;
                    added to the capabilities of gsd-build.json in the current folder)
  --profile <names> the skill profile(s) to ship, comma-separated (source/profiles.json:
                    core, standard, full; an add-on such as review only with another:
                    core,review); default full
  --cache <dir>     the build cache (default: $GSD_BUILD_CACHE, else $XDG_CACHE_HOME/gsd-build,
                    else ~/.cache/gsd-build)
  --no-cache        build from scratch and write every file, storing nothing
  --version         print gsd-build's version

Other verbs: watch, check, ir, budgets, matrix, site, release, plugin, keygen, install (gsd-build <verb> --help).`,
  watch: `Usage: gsd-build watch [--target <id> [--scope global|local] | --all] [options]

Builds (every target and scope unless --target says), then rebuilds on every
change under the source tree and the target definitions, a moment after the
last change. Each rebuild prints its diagnostics and writes only the files
whose bytes changed; a rebuild that fails writes nothing, so the last good
output stays in place. Options as for a build (--source, --out, --targets,
--layout, --cache, --no-cache). Ctrl-C stops.`,
  check: `Usage: gsd-build check [--update] [--source <dir>] [--golden <dir>] [--cache <dir> | --no-cache]

Builds every bundle and compares it with the goldens (default ./golden),
printing a unified diff for each differing file. Exits 1 on any difference, on
a file whose mode differs (executable or not), and on any missing or orphaned
golden file. --update makes the goldens match instead: it writes only the files
that differ and removes the ones the build no longer makes.
With the build cache (--cache, as for a build), a check after an edit parses,
renders and compares again only what the edit changed, and a check with the same
inputs as the last one that passed, against goldens untouched since, passes
again without building; --no-cache reads and checks everything afresh, storing
nothing.`,
  ir: `Usage: gsd-build ir [--json] [--source <dir>]

Prints the corpus IR: a summary table, or with --json the full IR
(schemas/ir.schema.json).`,
  matrix: `Usage: gsd-build matrix [--update]

Prints the support matrix (runtime × scope × surface, with install roots)
generated from the target definitions. --update rewrites the copy in README.md
between its gsd:support-matrix markers.`,
  budgets: `Usage: gsd-build budgets [--source <dir>] [--baseline <budgets.json>]

Prints every file's bytes next to its ceiling, each command's eager-load
closure, and per target × scope × profile the per-turn listing: the bytes and
approximate tokens (bytes / 4) of the names and descriptions the runtime lists
in every turn, against budgets.json "listing" and the runtime's own limit
(target.json "listing"). Fails, with a diagnostic per bundle, when any
standalone profile's listing is over its ceiling or a runtime's limit, not
only the profiles a build or release ships. --baseline compares the corpus's budgets.json with an older one and
fails if any cap or ceiling went up (ceilings only tighten).`,
  install: `Usage: gsd-build install --target <id> [--scope global|local] [options]
       gsd-build install --zip <gsd-…zip> [options]

Installs one bundle, built afresh from the sources (or read from a release
zip, which is refused whole if any entry could land outside its folder):
global bundles under your home, local ones into the current project. Over an
existing install it updates. Same installer as 'gsd-tools install' in an
unzipped bundle; uninstall with the installed copy:
  node <root>/gsd-core/bin/gsd-tools.cjs uninstall

Options:
  --scope <scope>      global (default when the target has it) or local
  --config-dir <dir>   global only: the runtime's folder goes here
  --dry-run            print the plan; write nothing
  --force              back up and replace files that are not from a GSD install
  --public-key <key>   --zip: check the zip's gsd-file-manifest.json.minisig against
                       this minisign public key (a .pub file, or its RW… line)
                       instead of the project's key (compiler/data/release-signing.pub)
  --require-signature  --zip: refuse a zip without gsd-file-manifest.json.minisig
  --profile <names>    the skill profile to install (core, full, ...). An update
                       keeps the installed profile: --target builds it, and a zip
                       of another profile is refused unless --profile names it
  --allow-capability <id>
                       a third-party capability whose hooks or code may be
                       installed (repeat the flag for each; asked on every
                       install and update)
  --raw                a readable summary instead of JSON

A zip's signature is checked before anything is written: a bad one, or one
by another key, refuses the install whole.`,
  release: `Usage: gsd-build release [--out <dir>] [--source <dir>] [--sign-key <file>]

Builds every target and scope and writes one reproducible zip per bundle into
<out> (default ./dist/release): gsd-<target>-<scope>-<version>.zip (the full
profile), gsd-<target>-<scope>-<profile>-<version>.zip for each profile the
corpus's profiles.json releases ("release": ["core"]), the Claude Code
marketplace of 'gsd-build plugin' as gsd-claude-plugin-<version>.zip, plus
SHA256SUMS and release-manifest.json (per zip: file count, bytes, sha256).
Same sources give the same bytes: sorted entries, a fixed timestamp, fixed
modes (executables 0755). Nothing is written when any check fails.

Signed when given a secret key (gsd-build keygen): --sign-key <file>, or the
key's text in the GSD_SIGNING_KEY environment variable. Then SHA256SUMS.minisig
is written and each zip's folder holds gsd-file-manifest.json.minisig
(minisign format, Ed25519; the same key gives the same bytes). Without a key
the release is unsigned and says so.`,
  keygen: `Usage: gsd-build keygen --out <dir>

Generates an Ed25519 key pair for signing releases: <dir>/release-signing.key
(the secret key, PKCS#8 PEM, mode 0600) and <dir>/release-signing.pub (the
public key in minisign's format). Never overwrites a file. Keep the secret key
out of the repository; publish the public key.`,
  plugin: `Usage: gsd-build plugin [--out <dir>] [--source <dir>]

Writes the Claude Code plugin and a marketplace that lists it into <out>
(default ./dist/claude-plugin), from the claude/global bundle:
.claude-plugin/marketplace.json, and plugins/gsd/ with .claude-plugin/plugin.json,
skills/, agents/, hooks/hooks.json (each script at "\${CLAUDE_PLUGIN_ROOT}/hooks/…")
and the payload folder with the runtime CLI. Its first SessionStart hook,
hooks/gsd-plugin-link.cjs, links ~/.claude/<payload> (where the prompts read it)
to the plugin's copy, leaving a user's own install there alone. The tree can be
committed to a marketplace repository as it is (claude plugin marketplace add
<repo or folder>).`,
  site: `Usage: gsd-build site [--source <dir>] [--out <dir>] [--profile <names>]

Renders the docs site from the corpus IR into <out> (default ./dist/site): an
index, a page per command, workflow, agent, reference and template, the runtime
matrix, the byte budgets as charts, and search. Static HTML with relative links
only and no request outside its own files: open <out>/index.html from disk or
serve the folder from any static host. --profile documents only what those skill
profiles ship (default full).`,
} as const;

export type Verb = keyof typeof HELP;
