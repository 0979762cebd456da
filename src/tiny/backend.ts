import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ConfigError, errorMessage } from '../core/errors.ts';
import { TF_BACKEND_ENV, TF_BACKEND_NAMES, type TfBackendName, TfBackendNameSchema } from './backend-name.ts';

/**
 * Picks the TensorFlow.js backend the tiny policy and the built-in trainer run on. Native
 * bindings are optional (their install downloads libtensorflow from outside the npm registry),
 * so each candidate is tried with a dynamic import and the first that initialises wins.
 */

export interface BackendAttempt {
  name: TfBackendName;
  error: string;
}

export interface BackendSelection {
  /** Our name for the chosen candidate. */
  backend: TfBackendName;
  /** What tf.getBackend() reports (`tensorflow` for both native bindings). */
  tfBackend: string;
  /** Candidates tried before the chosen one, with why each failed. */
  tried: BackendAttempt[];
}

export interface SelectBackendOptions {
  /** `auto` (default) walks TF_BACKEND_NAMES in order; a name forces that backend only. */
  prefer?: TfBackendName | 'auto';
  /** Read WINNOW_TF_BACKEND from here (default process.env); it wins over `prefer`. */
  env?: Record<string, string | undefined>;
}

let current: Promise<BackendSelection> | undefined;
let currentKey = '';
let silenced = false;

/** tfjs's Node banner and dev-mode checks are noise here; prod mode turns both off. */
function silenceTf(): void {
  if (silenced) return;
  silenced = true;
  tf.enableProdMode();
}

function isMissingModule(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/** Import a package whose name is only known at run time (so bundlers and tsc do not resolve it). */
async function importOptional(specifier: string): Promise<unknown> {
  return import(specifier);
}

async function tryBackend(name: TfBackendName): Promise<string> {
  switch (name) {
    case 'tfjs-node-gpu':
    case 'tfjs-node': {
      try {
        await importOptional(`@tensorflow/${name}`);
      } catch (err) {
        throw new Error(isMissingModule(err) ? 'not installed' : errorMessage(err));
      }
      // Both bindings register a backend called `tensorflow` with the shared tfjs-core engine.
      if (tf.findBackendFactory('tensorflow') === null) {
        throw new Error('loaded, but registered no `tensorflow` backend (a second copy of tfjs-core?)');
      }
      if (!(await tf.setBackend('tensorflow'))) throw new Error('the `tensorflow` backend failed to start');
      return 'tensorflow';
    }
    case 'wasm': {
      try {
        await importOptional('@tensorflow/tfjs-backend-wasm');
      } catch (err) {
        throw new Error(isMissingModule(err) ? 'not installed' : errorMessage(err));
      }
      if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend failed to start');
      return 'wasm';
    }
    case 'cpu': {
      if (!(await tf.setBackend('cpu'))) throw new Error('the cpu backend failed to start');
      return 'cpu';
    }
  }
}

function resolvePreference(opts: SelectBackendOptions): TfBackendName | 'auto' {
  const env = opts.env ?? process.env;
  const fromEnv = env[TF_BACKEND_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    const parsed = TfBackendNameSchema.or(z.literal('auto')).safeParse(fromEnv);
    if (!parsed.success) {
      throw new ConfigError({
        path: TF_BACKEND_ENV,
        message: `unknown TensorFlow.js backend '${fromEnv}'`,
        hint: `expected one of auto, ${TF_BACKEND_NAMES.join(', ')}`,
      });
    }
    return parsed.data;
  }
  return opts.prefer ?? 'auto';
}

async function select(pref: TfBackendName | 'auto'): Promise<BackendSelection> {
  silenceTf();
  const order: readonly TfBackendName[] = pref === 'auto' ? TF_BACKEND_NAMES : [pref];
  const tried: BackendAttempt[] = [];
  for (const name of order) {
    try {
      const tfBackend = await tryBackend(name);
      await tf.ready();
      return { backend: name, tfBackend, tried };
    } catch (err) {
      tried.push({ name, error: errorMessage(err) });
    }
  }
  const detail = tried.map((t) => `${t.name}: ${t.error}`).join('; ');
  throw new ConfigError({
    path: pref === 'auto' ? 'trainer.backend' : `trainer.backend (${pref})`,
    message: `no TensorFlow.js backend could start (${detail})`,
  });
}

/**
 * Select (once per process) and initialise the backend. Later calls with the same preference
 * return the same selection; a different preference switches backend. Tensors made on the
 * previous backend stay readable but slow, so choose before building models.
 */
export function selectBackend(opts: SelectBackendOptions = {}): Promise<BackendSelection> {
  const pref = resolvePreference(opts);
  if (current === undefined || currentKey !== pref) {
    currentKey = pref;
    current = select(pref);
    // A failed selection must not be cached: the next call retries.
    current.catch(() => {
      if (currentKey === pref) current = undefined;
    });
  }
  return current;
}

/** The selection made so far, if any (without starting one). */
export async function currentBackend(): Promise<BackendSelection | undefined> {
  return current;
}
