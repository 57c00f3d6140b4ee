// The runtime-CLI calls of a Markdown text as the shell parser reads them:
// each word as the program receives it, at its file line and column.
import { cliCalls, loadShellParser } from '../load/cli-calls.ts';
import { suite, assert } from './harness.ts';

const calls = suite('cli-calls');
const TOOLS = 'node "$HOME/.claude/gsd-core/bin/gsd-tools.cjs"';
const words = (text: string) => cliCalls(text).map((call) => call.words.map((word) => `${word.text}@${word.line}:${word.column}`));

calls.before(async () => {
  await loadShellParser();
});

calls('should keep an escaped quote inside a double-quoted word, not split the word there', () => {
  assert.equal(words(`\`\`\`bash\n${TOOLS} commit "say \\"hi --to\\" all" --files a.md\n\`\`\`\n`), [['commit@2:49', 'say "hi --to" all@2:56', '--files@2:78', 'a.md@2:86']]);
});

calls('should follow a line continuation to the words on the next lines', () => {
  assert.equal(words(`\`\`\`sh\n${TOOLS} commit "m" \\\n  --files a.md\n\`\`\`\n`), [['commit@2:49', 'm@2:56', '--files@3:3', 'a.md@3:11']]);
});

calls('should find every call of a line: inside $(...) and after &&', () => {
  assert.equal(words(`\`\`\`bash\nS=$(${TOOLS} state json) && ${TOOLS} commit "z"\n\`\`\`\n`), [['state@2:53', 'json@2:59'], ['commit@2:116', 'z@2:123']]);
});

calls('should leave a heredoc body, a pipe and a redirection out of the words', () => {
  assert.equal(words(`\`\`\`bash\n${TOOLS} state patch <<'EOF' | cat > out.txt\n--x\nEOF\n\`\`\`\n`), [['state@2:49', 'patch@2:55']]);
});

calls('should read a call in an inline code span and in a quoted YAML string', () => {
  assert.equal(words(`Run \`${TOOLS} roadmap analyze\`, then stop.\n`), [['roadmap@1:54', 'analyze@1:62']]);
  assert.equal(words(`# command: "node \\"$HOME/.claude/gsd-core/bin/gsd-tools.cjs\\" roadmap analyze"\n`), [['roadmap@1:63', 'analyze@1:71']]);
});

calls('should keep expansions as written and find nothing where the program is only named', () => {
  assert.equal(words(`\`\`\`bash\n${TOOLS} init plan-phase "$PHASE" \${flags} $ARGUMENTS\n\`\`\`\n`), [['init@2:49', 'plan-phase@2:54', '$PHASE@2:65', '${flags}@2:74', '$ARGUMENTS@2:83']]);
  assert.equal(words('The CLI (`gsd-tools.cjs`) owns STATE.md.\n'), [[]]);
  assert.equal(words('No call here.\n'), []);
});

calls.run();
