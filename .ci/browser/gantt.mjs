// gantt.mjs opens a schedlab Gantt page (schedlab gantt --html) in headless
// Chromium, drives it as a reader would (hover a point, wheel to zoom, drag
// to pan, a key to zoom) and prints what happened as one JSON object, so
// that a Go test (results/gantt) can check the page's behaviour.
//
// Usage: node gantt.mjs FILE.html SCREENSHOT.png [TIME LANE]
//   TIME LANE  a point to hover, in the jobs file's seconds and lanes (a lane
//              past the last is below the chart: the power panel's, when it has one)
//
// Output:
//   console_errors, page_errors, requests  as report.mjs
//   viewport      the window's width in CSS pixels
//   first_paint   ms from the script's start to its first frame drawn
//   redraw_ms     the median of 5 redraws of the first view, in ms
//   drawn         rectangles drawn in the first view
//   power_levels  levels the power panel drew in the first view (0: none)
//   view0         the first view {t0, t1, l0, l1}
//   hovered       the job number under TIME LANE (null: none), tip its text
//   after_wheel   the view after one wheel step in at the plot's centre
//   after_drag    the view after dragging 200 px left from the centre
//   after_key     the view after pressing '-' (zoom out)
//   screenshot    the PNG path and its size in bytes
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage } from './browser.mjs';

const [file, shot, hoverT, hoverL] = process.argv.slice(2);
if (!file || !shot) {
  console.error('usage: node gantt.mjs FILE.html SCREENSHOT.png [TIME LANE]');
  process.exit(2);
}
const url = pathToFileURL(resolve(file)).href;
const browser = await launch();
const out = { console_errors: [], page_errors: [], requests: [] };
try {
  const page = await openPage(browser, url, out, 120000);
  await page.waitForFunction(() => window.schedlabGantt && window.schedlabGantt.frames() > 0, { timeout: 120000 });
  Object.assign(out, await page.evaluate(() => {
    const g = window.schedlabGantt;
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      g.setView(g.view().t0, g.view().t1, g.view().l0, g.view().l1);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return { viewport: window.innerWidth, first_paint: g.firstPaint(), redraw_ms: times[2], drawn: g.drawn, power_levels: g.powerLevels, view0: g.view() };
  }));
  const box = await page.evaluate(() => {
    const g = window.schedlabGantt, r = document.getElementById('gantt').getBoundingClientRect();
    return { x: r.left + window.scrollX, y: r.top + window.scrollY, m: g.margins() };
  });
  const plot = { x: box.x + box.m.left, y: box.y + box.m.top, w: box.m.w, h: box.m.h };
  if (hoverT !== undefined) {
    const v = out.view0;
    const x = plot.x + (Number(hoverT) - v.t0) / (v.t1 - v.t0) * plot.w;
    const y = plot.y + (Number(hoverL) - v.l0) / (v.l1 - v.l0) * plot.h;
    await page.mouse.move(x, y);
    Object.assign(out, await page.evaluate(() => ({
      hovered: window.schedlabGantt.hovered,
      tip: document.getElementById('tip').style.display === 'none' ? '' : document.getElementById('tip').textContent,
    })));
  }
  const cx = plot.x + plot.w / 2, cy = plot.y + plot.h / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.wheel({ deltaY: -100 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  out.after_wheel = await page.evaluate(() => window.schedlabGantt.view());
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx - 100, cy, { steps: 4 });
  await page.mouse.move(cx - 200, cy, { steps: 4 });
  await page.mouse.up();
  out.after_drag = await page.evaluate(() => window.schedlabGantt.view());
  await page.focus('#gantt');
  await page.keyboard.press('-');
  out.after_key = await page.evaluate(() => window.schedlabGantt.view());
  await page.click('#reset');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  await page.screenshot({ path: shot, fullPage: true });
  out.screenshot = { path: shot, bytes: statSync(shot).size };
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
