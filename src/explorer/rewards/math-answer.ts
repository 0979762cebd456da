// Moved down to src/core so the llm_difficulty operator can judge answers; re-exported here.
export * from '../../core/math-answer.ts';
