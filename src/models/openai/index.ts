export { backoffDelay, parseRetryAfter, sleep } from './backoff.ts';
export { createOpenAIRolloutModel, type OpenAIClientStats, OpenAIRolloutModel } from './client.ts';
export {
  DEFAULT_BASE_URL,
  type OpenAIModelConfig,
  type OpenAIModelConfigInput,
  OpenAIModelConfigSchema,
  resolveOpenAIConfig,
} from './config.ts';
export {
  type OpenAIGeneration,
  parseChatResponse,
  parseCompletionResponse,
  ResponseShapeError,
} from './parse-response.ts';
export { RolloutError, type RolloutErrorKind } from './rollout-error.ts';
export { Semaphore } from './semaphore.ts';
