// Rule kinds are plug-ins (issue 31): outside src/domain/rules/kinds/** no source file names a
// kind as a string literal, so generic code cannot switch on one. The few exceptions say why.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';

const ALLOWED: Readonly<Record<string, string>> = {
  // The dashboard's condition editor edits THRESHOLD and RATE_CHANGE configs by hand.
  'src/dashboard/web/rule-editor.ts': 'the editor of condition configs',
  // An alert's explanation of a pattern match is tagged with its kind (a response shape).
  'src/schemas/alert-responses.ts': 'the explanation of a pattern match',
  'src/domain/rules/alerts/alert.ts': 'the explanation of a pattern match',
};

const LITERAL = /'(THRESHOLD|RATE_CHANGE|ANOMALY|PATTERN)'/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === 'src/domain/rules/kinds' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

void t.test('no kind name as a literal outside kinds/', async (t) => {
  const found = sources('src').filter(
    (path) => !(path in ALLOWED) && LITERAL.test(readFileSync(path, 'utf8')),
  );
  t.same(found, [], 'files that name a rule kind: go through kinds/registry.ts');
});

void t.test('the registry serves exactly the ruleType enum', async (t) => {
  const { ruleKinds } = await import('../../../src/domain/rules/kinds/registry.ts');
  const { RULE_TYPES } = await import('../../../src/domain/rules/kinds/names.ts');
  t.same(ruleKinds().types, RULE_TYPES);
});
