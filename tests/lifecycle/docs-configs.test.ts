import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { resolveOpenAIConfig } from '../../src/explorer/openai/config.ts';
import { RftConfigSchema } from '../../src/lifecycle/rft-config.ts';
import { REPO_ROOT } from '../helpers/cli.ts';

/** The YAML examples in docs/model-servers.md are real `explorer:` blocks that validate. */
describe('docs/model-servers.md examples', () => {
  const md = readFileSync(join(REPO_ROOT, 'docs', 'model-servers.md'), 'utf8');
  const blocks = [...md.matchAll(/```yaml\n(explorer:\n[\s\S]*?)```/g)].map((m) => m[1]!);

  it('has one example per server and each validates against the run config and the client', () => {
    expect(blocks.length).toBe(4);
    for (const block of blocks) {
      const { explorer } = parse(block) as { explorer: Record<string, unknown> };
      const config = RftConfigSchema.parse({
        name: 'docs',
        kind: 'rft',
        tasks: { table: 'tasks' },
        explorer,
        trainer: { type: 'export', params: {} },
      });
      expect(config.explorer.model.type).toBe('openai');
      const model = config.explorer.model as { type: 'openai'; params: Record<string, unknown> };
      const resolved = resolveOpenAIConfig(model.params, { env: {} });
      expect(resolved.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    }
  });
});
