import { z } from 'zod';

/**
 * The TensorFlow.js backend names, kept apart from backend.ts so config schemas can name a backend
 * without loading TensorFlow.
 */
export const TF_BACKEND_NAMES = ['tfjs-node-gpu', 'tfjs-node', 'wasm', 'cpu'] as const;
export const TfBackendNameSchema = z.enum(TF_BACKEND_NAMES);
export type TfBackendName = z.infer<typeof TfBackendNameSchema>;

/** The environment variable that overrides auto-detection (one of TF_BACKEND_NAMES, or `auto`). */
export const TF_BACKEND_ENV = 'WINNOW_TF_BACKEND';
