// The tests' OpenAI-compatible model server is `winnow dev-server`'s (src/cli/dev-server).
export {
  type LoraEvent,
  OpenAiDevServer as FakeServer,
  type ScriptedTurn,
  type SeenRequest,
} from '../../../src/cli/dev-server/openai-dev-server.ts';
