import { ConfigError } from '../../core/errors.ts';
import type { ModeDriver } from './driver.ts';
import { asyncDriver } from './drivers/async.ts';
import { benchDriver } from './drivers/bench.ts';
import { exploreDriver } from './drivers/explore.ts';
import { syncDriver } from './drivers/sync.ts';
import { trainDriver } from './drivers/train.ts';
import type { RftConfig } from './rft-config.ts';

type Mode = RftConfig['lifecycle']['mode'];

/** `lifecycle.mode` → the driver that runs it (one file per mode under drivers/). */
export const MODE_DRIVERS = {
  sync: syncDriver,
  async: asyncDriver,
  explore: exploreDriver,
  train: trainDriver,
  bench: benchDriver,
} satisfies Record<Mode, ModeDriver>;

export function driverFor(mode: string): ModeDriver {
  const driver = (MODE_DRIVERS as Record<string, ModeDriver>)[mode];
  if (!driver)
    throw new ConfigError({
      path: 'lifecycle.mode',
      message: `unknown mode '${mode}'`,
      hint: `expected one of ${Object.keys(MODE_DRIVERS).join(', ')}`,
    });
  return driver;
}
