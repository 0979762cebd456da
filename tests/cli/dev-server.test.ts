import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readScript } from '../../src/cli/dev-server/dev-server-command.ts';
import { OpenAiDevServer } from '../../src/cli/dev-server/openai-dev-server.ts';
import { tempDir } from '../helpers/tmp.ts';

const post = async (url: string, body: unknown) => {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
};

/** `winnow dev-server`'s model server under /v1/… (its default behaviours), in process on loopback. */
describe('winnow dev-server: the default routes under /v1', () => {
  const lora = new OpenAiDevServer();
  const scripted = new OpenAiDevServer();
  beforeAll(async () => {
    await lora.start();
    scripted.script('default', [
      { content: 'four', tokenIds: [7, 8], logprobs: [-0.5, -0.25] },
      { content: 'five', tokenIds: [9], logprobs: [-1] },
    ]);
    scripted.defaultBehaviour = 'script';
    await scripted.start();
  });
  afterAll(async () => {
    await lora.stop();
    await scripted.stop();
  });

  it('binds 127.0.0.1; LoRA loads and unloads show in /v1/models and in onLora', async () => {
    expect(lora.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const events: string[] = [];
    lora.onLora = (e) => events.push(`${e.op} ${e.name} ${e.status}`);
    expect(
      (await post(`${lora.baseUrl}/load_lora_adapter`, { lora_name: 'r-v1', lora_path: '/ckpt/v1' })).status,
    ).toBe(200);
    expect(
      (await post(`${lora.baseUrl}/load_lora_adapter`, { lora_name: 'r-v1', lora_path: '/ckpt/v1' })).status,
    ).toBe(400);
    const models = (await (await fetch(`${lora.baseUrl}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['base-model', 'r-v1']);
    const c = await post(`${lora.baseUrl}/chat/completions`, {
      model: 'r-v1',
      messages: [{ role: 'user', content: 'q' }],
      n: 2,
      logprobs: true,
      return_token_ids: true,
    });
    const choices = c.json.choices as Array<{
      index: number;
      message: { content: string };
      token_ids: number[];
    }>;
    expect(choices.map((x) => [x.index, x.message.content, x.token_ids])).toEqual([
      [1, '2', [101, 5001]],
      [0, '1', [100, 5001]],
    ]);
    expect((await post(`${lora.baseUrl}/unload_lora_adapter`, { lora_name: 'r-v1' })).status).toBe(200);
    expect(events).toEqual(['load r-v1 200', 'load r-v1 400', 'unload r-v1 200']);
  });

  it('--script answers in request order, then 404', async () => {
    const ask = () =>
      post(`${scripted.baseUrl}/chat/completions`, { messages: [{ role: 'user', content: 'q' }] });
    const contents = [];
    for (let i = 0; i < 2; i++) {
      const r = await ask();
      contents.push((r.json.choices as Array<{ message: { content: string } }>)[0]!.message.content);
    }
    expect(contents).toEqual(['four', 'five']);
    expect((await ask()).status).toBe(404);
  });

  it('a bad script line is one error naming the file, the line and the field', () => {
    const dir = tempDir('winnow-dev-script-');
    const file = join(dir, 'answers.jsonl');
    writeFileSync(
      file,
      '{"content": "a", "tokenIds": [1], "logprobs": [-1]}\n{"content": "b", "tokenIds": "x", "logprobs": []}\n',
    );
    expect(() => readScript(file)).toThrow(/line 2: tokenIds: /);
    writeFileSync(file, '\n');
    expect(() => readScript(file)).toThrow('the script has no answers');
    expect(() => readScript(join(dir, 'missing.jsonl'))).toThrow('cannot read the script: ENOENT');
  });
});
