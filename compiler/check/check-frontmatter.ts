// Frontmatter of commands and agents against their JSON schemas, plus the
// one rule a schema cannot state: the name matches the file.
import { parseDocument, LineCounter } from 'yaml';
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';
import { yamlOffset } from '../load/yaml-position.ts';
import { describeSchemaErrors, schemaValidator } from '../schemas.ts';

const SCHEMA_BY_KIND: Partial<Record<IrNode['kind'], string>> = {
  command: 'command.schema.json',
  agent: 'agent.schema.json',
};

export function checkFrontmatter(nodes: readonly IrNode[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const node of nodes) {
    const schema = SCHEMA_BY_KIND[node.kind];
    const frontmatter = node.frontmatter;
    if (!schema || !frontmatter || frontmatter.data === null) continue;
    // Parsed again with positions only for a finding: most frontmatter has none.
    const at = (path: (string | number)[], atKey: boolean) => {
      const lineCounter = new LineCounter();
      const document = parseDocument(frontmatter.raw, { lineCounter });
      const { line, col } = lineCounter.linePos(yamlOffset(document, path, atKey));
      return { line: frontmatter.line + line - 1, column: col };
    };
    const validate = schemaValidator(schema);
    if (!validate(frontmatter.data)) {
      for (const finding of describeSchemaErrors(validate.errors, frontmatter.data)) {
        const { line, column } = at(finding.path, finding.atKey);
        diagnostics.push(diagnostic(node.path, line, column, 'frontmatter-schema', finding.message));
      }
      continue;
    }
    const expectedNames = node.kind === 'agent' ? [node.name] : [`gsd:${node.name}`, `gsd-${node.name}`];
    const name = frontmatter.data['name'];
    if (node.kind === 'agent' || !node.router) {
      if (!expectedNames.includes(String(name))) {
        const { line, column } = at(['name'], false);
        diagnostics.push(diagnostic(node.path, line, column, 'frontmatter-schema', `"name": expected ${expectedNames.map((n) => `"${n}"`).join(' or ')} to match the file name, found ${JSON.stringify(name)}`));
      }
    }
  }
  return diagnostics;
}
