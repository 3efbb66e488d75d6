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
//   tables          [{caption, width, visible, head, swatches}] per <table>:
//                   its caption (the .tcap paragraph before its scroll box),
//                   its header cells, its colour swatches ({label, color,
//                   drawn}: the cell's text, the computed colour, whether it
//                   has a box), its full width
//                   and the width its box shows without scrolling
//   small_texts     SVG <text> elements rendered smaller than 10 CSS pixels
//                   [{figure, text, size}]
//   crossed_labels  SVG texts through which a dashed horizontal line (a
//                   baseline) runs [{figure, text}]
//   viewport        the width of the window the page was laid out in
//   screenshot      the PNG path and its size in bytes
//
// The browser is $CHROMIUM, else the first of chromium, chromium-browser,
// google-chrome found in /usr/bin (as internal/browsercheck looks for it).
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage } from './browser.mjs';

const [file, shot] = process.argv.slice(2);
if (!file || !shot) {
  console.error('usage: node report.mjs FILE.html SCREENSHOT.png');
  process.exit(2);
}

const url = pathToFileURL(resolve(file)).href;
const browser = await launch();
const out = { console_errors: [], page_errors: [], requests: [] };
try {
  const page = await openPage(browser, url, out, 60000);
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
    const tables = [...document.querySelectorAll('table')].map((t) => {
      const box = t.parentElement;
      const cap = box.previousElementSibling;
      return {
        caption: cap && cap.classList.contains('tcap') ? cap.textContent.trim() : '',
        width: Math.round(t.getBoundingClientRect().width),
        visible: Math.round(box.clientWidth),
        head: [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim()),
        // The colour swatches as drawn: each one's computed colour and
        // the text of its cell.
        swatches: [...t.querySelectorAll('.swatch')].map((sw) => {
          const r = sw.getBoundingClientRect();
          return { label: sw.parentElement.textContent.trim(), color: getComputedStyle(sw).backgroundColor,
            drawn: r.width > 0 && r.height > 0 };
        }),
      };
    });
    const figOf = (el) => el.closest('figure')?.id ?? '';
    const smallTexts = [];
    for (const t of document.querySelectorAll('svg text')) {
      const r = t.getBoundingClientRect();
      const size = parseFloat(getComputedStyle(t).fontSize) * (r.height > 0 ? 1 : 0);
      // The rendered size: the font size scaled as the SVG is.
      const svg = t.ownerSVGElement;
      const scale = svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width > 0
        ? svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : 1;
      if (r.height > 0 && size * scale < 10) smallTexts.push({ figure: figOf(t), text: t.textContent, size: +(size * scale).toFixed(1) });
    }
    const crossed = [];
    const dashed = (el) => {
      const d = el.getAttribute('stroke-dasharray') || getComputedStyle(el).strokeDasharray;
      return d && d !== 'none';
    };
    for (const label of document.querySelectorAll('svg text')) {
      const a = label.getBoundingClientRect();
      if (a.height === 0) continue;
      for (const line of label.ownerSVGElement.querySelectorAll('path, line, polyline')) {
        if (!dashed(line)) continue;
        const b = line.getBoundingClientRect();
        if (b.height > 2) continue; // not horizontal
        // A horizontal line crosses the label when it runs through the
        // label's box (the box's top and bottom rows excepted).
        // (A legend's thumbnail beside its text does not reach the text's middle.)
        const mid = (a.left + a.right) / 2;
        if (b.left < mid && b.right > mid && b.top > a.top + 1 && b.bottom < a.bottom - 1) {
          crossed.push({ figure: figOf(label), text: label.textContent });
        }
      }
    }
    return { title: document.title, svgs: svgs.length, nonempty_svgs: nonempty.length, figures, tables,
      small_texts: smallTexts, crossed_labels: crossed, viewport: window.innerWidth };
  }));
  await page.screenshot({ path: shot, fullPage: true });
  out.screenshot = { path: shot, bytes: statSync(shot).size };
} finally {
  await browser.close();
}
console.log(JSON.stringify(out, null, 2));
