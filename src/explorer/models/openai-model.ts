import { createOpenAIRolloutModel } from '../openai/client.ts';
import { OpenAIModelConfigSchema } from '../openai/config.ts';
import { defineModel } from './model-definition.ts';

/** Any OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp); see docs/model-servers.md. */
export const openaiModel = defineModel({
  name: 'openai',
  description: 'an OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp); see docs/model-servers.md',
  params: OpenAIModelConfigSchema,
  create: (p, ctx) => {
    const rollout = createOpenAIRolloutModel(p, {
      path: `${ctx.path}.params`,
      ...(ctx.file ? { file: ctx.file } : {}),
    });
    return { rollout, description: `OpenAI-compatible (${rollout.name})` };
  },
});
