import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { selectBackend } from '../../src/tiny/backend.ts';
import { TF_BACKEND_ENV } from '../../src/tiny/backend-name.ts';

describe('selectBackend', () => {
  afterAll(async () => {
    await selectBackend({ prefer: 'wasm', env: {} });
  });

  it('walks tfjs-node-gpu → tfjs-node → wasm and reports why the native ones failed', async () => {
    const sel = await selectBackend({ env: {} });
    expect(sel).toEqual({
      backend: 'wasm',
      tfBackend: 'wasm',
      tried: [
        { name: 'tfjs-node-gpu', error: 'not installed' },
        { name: 'tfjs-node', error: 'not installed' },
      ],
    });
    expect(tf.getBackend()).toBe('wasm');
    // Cached: a second call returns the same selection.
    expect(await selectBackend({ env: {} })).toBe(sel);
  });

  it('lets WINNOW_TF_BACKEND override the preference', async () => {
    const sel = await selectBackend({ prefer: 'wasm', env: { [TF_BACKEND_ENV]: 'cpu' } });
    expect(sel).toEqual({ backend: 'cpu', tfBackend: 'cpu', tried: [] });
    expect(tf.getBackend()).toBe('cpu');
    expect(tf.tidy(() => tf.add(tf.scalar(2), tf.scalar(3)).dataSync()[0])).toBe(5);
  });

  it('fails with a config error when a forced backend is missing or the name is unknown', async () => {
    await expect(selectBackend({ prefer: 'tfjs-node', env: {} })).rejects.toThrow(ConfigError);
    await expect(selectBackend({ prefer: 'tfjs-node', env: {} })).rejects.toThrow(/tfjs-node: not installed/);
    expect(() => selectBackend({ env: { [TF_BACKEND_ENV]: 'gpu' } })).toThrow(
      /WINNOW_TF_BACKEND: unknown TensorFlow.js backend 'gpu' \(expected one of auto, tfjs-node-gpu, tfjs-node, wasm, cpu\)/,
    );
  });
});
