// browser.mjs finds the Chromium the scripts drive: $CHROMIUM, else the
// first of the usual install paths (as internal/browsercheck looks).
import { existsSync } from 'node:fs';
import puppeteer from 'puppeteer-core';

export function browserPath() {
  const candidates = process.env.CHROMIUM ? [process.env.CHROMIUM]
    : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    console.error('no Chromium found (looked at ' + candidates.join(', ') + '); apt-get install chromium');
    process.exit(3);
  }
  return found;
}

// launch starts headless Chromium as the scripts drive it.
export function launch() {
  return puppeteer.launch({
    executablePath: browserPath(),
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  });
}
