// report.mjs opens a schedlab HTML report in headless Chromium (Debian's
// package, driven by puppeteer-core, which downloads no browser) and prints
// what a reader would get, as one JSON object on stdout, so that a Go test
// can check that the page loads cleanly and its plots rendered.
//
// Usage: node report.mjs FILE.html SCREENSHOT.png
//
// Output:
//   console_errors  console messages of type error, and failed requests
//   page_errors     uncaught exceptions in the page
//   requests        URLs the page asked for other than itself (a
//                   self-contained report asks for none)
//   title           document.title
//   svgs            number of <svg> elements
//   nonempty_svgs   <svg> elements with child elements and a rendered
//                   box larger than 50x50 CSS pixels
//   figures         [{id, title, caption, svg_children, svg_texts, width, height}]
//                   per <figure>: the SVG's accessible name (its plot title),
//                   the caption text, element and <text> counts, its box
//   screenshot      the PNG path and its size in bytes
//
// The browser is $CHROMIUM, else the first of chromium, chromium-browser,
// google-chrome found in /usr/bin (as internal/browsercheck looks for it).
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const [file, shot] = process.argv.slice(2);
if (!file || !shot) {
  console.error('usage: node report.mjs FILE.html SCREENSHOT.png');
  process.exit(2);
}

function browserPath() {
  const candidates = process.env.CHROMIUM ? [process.env.CHROMIUM]
    : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    console.error('no Chromium found (looked at ' + candidates.join(', ') + '); apt-get install chromium');
    process.exit(3);
  }
  return found;
}

const url = pathToFileURL(resolve(file)).href;
const browser = await puppeteer.launch({
  executablePath: browserPath(),
  headless: true,
  // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
});
const out = { console_errors: [], page_errors: [], requests: [] };
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900, deviceScaleFactor: 1 });
  page.on('console', (m) => {
    if (m.type() === 'error') out.console_errors.push(m.text());
  });
  page.on('pageerror', (e) => out.page_errors.push(String(e && e.message ? e.message : e)));
  page.on('requestfailed', (r) => out.console_errors.push('request failed: ' + r.url() + ' ' + (r.failure()?.errorText ?? '')));
  page.on('request', (r) => {
    if (r.url() !== url) out.requests.push(r.url());
  });
  const resp = await page.goto(url, { waitUntil: 'load', timeout: 60000 });
  if (resp && !resp.ok()) out.console_errors.push('load status ' + resp.status());
  Object.assign(out, await page.evaluate(() => {
    const svgs = [...document.querySelectorAll('svg')];
    const nonempty = svgs.filter((s) => {
      const r = s.getBoundingClientRect();
      return s.childElementCount > 0 && r.width > 50 && r.height > 50;
    });
    const figures = [...document.querySelectorAll('figure')].map((f) => {
      const s = f.querySelector('svg');
      const r = s ? s.getBoundingClientRect() : { width: 0, height: 0 };
      return {
        id: f.id,
        title: s ? s.getAttribute('aria-label') : null,
        caption: (f.querySelector('figcaption')?.textContent ?? '').trim(),
        svg_children: s ? s.querySelectorAll('*').length : 0,
        svg_texts: s ? s.querySelectorAll('text').length : 0,
        width: Math.round(r.width),
        height: Math.round(r.height),
      };
    });
    return { title: document.title, svgs: svgs.length, nonempty_svgs: nonempty.length, figures };
  }));
  await page.screenshot({ path: shot, fullPage: true });
  out.screenshot = { path: shot, bytes: statSync(shot).size };
} finally {
  await browser.close();
}
console.log(JSON.stringify(out, null, 2));
