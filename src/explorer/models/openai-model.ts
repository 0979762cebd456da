import { createOpenAIRolloutModel } from '../../models/openai/client.ts';
import { OpenAIModelConfigSchema } from '../../models/openai/config.ts';
import { loadTokenizer } from '../../models/tokenizer-load.ts';
import { defineModel } from './model-definition.ts';

/** Any OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp); see docs/model-servers.md. */
export const openaiModel = defineModel({
  name: 'openai',
  description: 'an OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp); see docs/model-servers.md',
  params: OpenAIModelConfigSchema,
  create: async (p, ctx) => {
    // Loaded at build time: a bad tokenizer folder fails the config before anything is written.
    const tokenizer = p.tokenizer ? await loadTokenizer(p.tokenizer, { baseDir: ctx.baseDir }) : undefined;
    const rollout = createOpenAIRolloutModel(p, {
      path: `${ctx.path}.params`,
      ...(ctx.file ? { file: ctx.file } : {}),
      ...(tokenizer ? { tokenizer } : {}),
    });
    return { rollout, description: `OpenAI-compatible (${rollout.name})` };
  },
});
