import { WinnowError } from './errors.ts';

/** A bad command line or query (a flag, a --where filter, a Studio query): one line on stderr, exit 2. */
export class UsageError extends WinnowError {
  override name = 'UsageError';
}
