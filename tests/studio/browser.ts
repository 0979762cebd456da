import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's chromium (installed by scripts/test-browser-deps.sh), or WINNOW_CHROMIUM. */
export const CHROMIUM = process.env.WINNOW_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here (null: they can). Printed as a visible note when they skip. */
export function browserMissing(): string | null {
  if (!existsSync(CHROMIUM))
    return `no Chromium at ${CHROMIUM} (run scripts/test-browser-deps.sh, or set WINNOW_CHROMIUM)`;
  return null;
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium with a fresh profile folder (removed on close), driven by playwright-core. */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'winnow-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 860 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
