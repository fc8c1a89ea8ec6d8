import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

/** Debian's Chromium, or `AFW_CHROMIUM_PATH`. */
export const CHROMIUM_PATH = process.env.AFW_CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Whether the browser tests can run here. */
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);

/** A headless Chromium context in a throw-away profile directory. */
export interface ChromiumSession {
  context: BrowserContext;
  /** Closes the browser and deletes its profile directory. */
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile (no sandbox, GPU or background traffic). */
export async function launchChromium(options: { profilePrefix: string; viewport?: { width: number; height: number } }): Promise<ChromiumSession> {
  const userDataDir = await mkdtemp(join(tmpdir(), options.profilePrefix));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
      ...(options.viewport ? { viewport: options.viewport } : {}),
    });
    return {
      context,
      async close() {
        await context.close();
        await rm(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
}
