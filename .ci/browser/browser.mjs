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

// openPage opens url in a new page 1,280 CSS pixels wide (a laptop's
// window, the width the pages are made for), recording into out the
// console errors, failed requests, uncaught exceptions and the requests
// for anything but the page itself.
export async function openPage(browser, url, out, timeout) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
  page.on('console', (m) => {
    if (m.type() === 'error') out.console_errors.push(m.text());
  });
  page.on('pageerror', (e) => out.page_errors.push(String(e && e.message ? e.message : e)));
  page.on('requestfailed', (r) => out.console_errors.push('request failed: ' + r.url() + ' ' + (r.failure()?.errorText ?? '')));
  page.on('request', (r) => {
    if (r.url() !== url) out.requests.push(r.url());
  });
  const resp = await page.goto(url, { waitUntil: 'load', timeout });
  if (resp && !resp.ok()) out.console_errors.push('load status ' + resp.status());
  return page;
}
