import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The project's own lint rules (eslint.config.js), each proven on a planted violation: a rule that matches
 * nothing passes every file, so only a test of what it must catch shows it works.
 */
const eslint = new ESLint();
const messagesOf = async (code: string, filePath: string) =>
  (await eslint.lintText(code, { filePath }))[0]!.messages.map((m) => m.message);

describe('the cache-key rule (every key from queryKeys, web/src/api/keys.ts)', () => {
  const file = 'web/src/features/planted/api.ts';
  const header = "import { queryKeys } from '../../api/keys';\ndeclare function other(): string[];\n";

  it.each([
    ["{ queryKey: ['custom-fields'] }", 'a plain array'],
    ["{ queryKey: ['custom-fields'] as const }", "an array 'as const'"],
    ["{ queryKey: ['integrations'] satisfies readonly string[] }", "an array 'satisfies'"],
    ["{ queryKey: [...other(), 'usage'] as const }", 'an array extending a key not from queryKeys'],
  ])('refuses %s (%s)', async (value) => {
    const messages = await messagesOf(`${header}export const q = ${value};\n`, file);
    expect(messages).toContain('Take the cache key from queryKeys (api/keys.ts), or extend one of its keys.');
  });

  it.each([
    '{ queryKey: queryKeys.me() }',
    "{ queryKey: [...queryKeys.project('A'), 'members'] as const }",
    "{ queryKey: [...queryKeys.statuses(), 'usage'] }",
  ])('allows %s', async (value) => {
    const messages = await messagesOf(`${header}export const q = ${value};\n`, file);
    expect(messages.filter((m) => m.includes('queryKeys'))).toEqual([]);
  });
});
