// Models on the data side: tokenizers, embedding models, LLM calls, the OpenAI-compatible
// transport and the rollout-model contract (the explorer's RolloutModel).
export * from './embedding.ts';
export * from './embedding-load.ts';
export * from './embedding-tiny.ts';
export * from './llm-cache.ts';
export * from './llm-chat.ts';
export * from './openai/index.ts';
export * from './rollout-model.ts';
export * from './tokenizer.ts';
export * from './tokenizer-folder.ts';
export * from './tokenizer-load.ts';
export * from './weight-sync/index.ts';
