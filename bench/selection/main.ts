/**
 * Script entry: `npx node bench/selection/main.ts --scenario default --seeds 5` prints the table.
 */
import { selectionBenchMain } from './cli.ts';

process.exitCode = await selectionBenchMain(process.argv.slice(2));
