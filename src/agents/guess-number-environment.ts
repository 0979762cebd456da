import { z } from 'zod';
import { Rng } from '../core/rng.ts';
import { defineEnvironment, type StepResultInput } from './environment.ts';

const paramsSchema = z
  .strictObject({
    min: z.number().int().default(1).describe('Smallest possible secret.'),
    max: z.number().int().default(100).describe('Largest possible secret.'),
    maxGuesses: z.number().int().positive().default(7).describe('Guesses before the game is lost.'),
    invalidReward: z.number().default(0).describe('Reward of a turn that names no number.'),
  })
  .refine((p) => p.min <= p.max, { message: 'min must not exceed max', path: ['min'] });

/**
 * A guessing game with a verifiable goal: find the secret number. Each guess is answered
 * `higher`, `lower` or `correct`; the secret is `task.meta.secret` when the task gives one, else
 * drawn from the episode's seed, so an episode is deterministic. Reward 1 for finding it.
 */
export const guessNumberEnvironment = defineEnvironment({
  name: 'guess_number',
  description: 'find a secret number in [min, max] from higher/lower hints (deterministic given the seed)',
  params: paramsSchema,
  create: (p) => {
    let secret = 0;
    let guesses = 0;
    return {
      reset(task, seed) {
        const given = task.meta.secret;
        secret = typeof given === 'number' ? given : p.min + new Rng(seed).int(p.max - p.min + 1);
        guesses = 0;
        return `${task.prompt ?? 'Guess my number.'} It is between ${p.min} and ${p.max}; you have ${p.maxGuesses} guesses.`;
      },
      step(action): StepResultInput {
        const m = /-?\d+/.exec(action.text);
        guesses++;
        const out = guesses >= p.maxGuesses;
        if (!m)
          return {
            observation: 'Say a number.',
            reward: p.invalidReward,
            done: out,
            info: { valid: false },
          };
        const guess = Number(m[0]);
        if (guess === secret) return { observation: 'correct', reward: 1, done: true, info: { guess } };
        return {
          observation: guess < secret ? 'higher' : 'lower',
          reward: 0,
          done: out,
          info: { guess },
        };
      },
    };
  },
});
