"use strict";
(function () {
  const t0 = performance.now();
  const D = JSON.parse(document.getElementById("gantt-data").textContent);
  const canvas = document.getElementById("gantt");
  const tip = document.getElementById("tip");
  const ctx = canvas.getContext("2d");
  // P is the power panel under the chart (a run with a power file): its
  // steps as [start, end, watts, cap or -1], and its height with the gap.
  const P = D.power || null, PH = 150, PG = 14, PB = P ? PH + PG : 0;
  const M = { left: 90, right: 10, top: 10, bottom: 40 + PB };
  if (P) canvas.style.height = (620 + PB) + "px";
  const first = { t0: D.from, t1: D.to, l0: 0, l1: D.lanes };
  let v = Object.assign({}, first);
  let frames = 0, firstPaint = -1, queued = false;
  const J = D.jobs;
  // colours holds each category's colour as a pixel of ImageData (RGBA
  // bytes, little-endian).
  const colours = D.cats.map((c) => {
    const h = parseInt(c[1].slice(1), 16);
    return (0xff << 24 | (h & 0xff) << 16 | (h >> 8 & 0xff) << 8 | h >> 16) >>> 0;
  });

  function unitOf(span) {
    if (span >= 3 * 86400) return [86400, "days"];
    if (span >= 3 * 3600) return [3600, "hours"];
    if (span >= 180) return [60, "minutes"];
    return [1, "seconds"];
  }
  function ticks(lo, hi, n) {
    const raw = (hi - lo) / n;
    let step = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) { if (step * m >= raw) { step *= m; break; } }
    const out = [];
    for (let x = Math.ceil(lo / step) * step; x <= hi; x += step) out.push(x);
    return out;
  }
  // size matches the canvas's pixels to its box; setting a canvas's size
  // reallocates it, so only when the box changed.
  function size() {
    const r = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    const w = Math.round(r.width * dpr), h = Math.round(r.height * dpr);
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w; canvas.height = h;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return [r.width, r.height];
  }
  let W = 0, H = 0;
  function draw() {
    queued = false;
    [W, H] = size();
    const pw = W - M.left - M.right, ph = H - M.top - M.bottom;
    const sx = pw / (v.t1 - v.t0), sy = ph / (v.l1 - v.l0);
    ctx.clearRect(0, 0, W, H);
    // The jobs are rasterised by hand into the plot's pixels: a canvas
    // fillRect per job costs about 3 µs in a browser without a GPU, which
    // is seconds for a whole log's million rectangles, while the jobs'
    // rectangles never overlap, so filling pixels costs the rectangles
    // plus the plot's pixels.
    const dpr = window.devicePixelRatio || 1;
    const iw = Math.max(1, Math.round(pw * dpr)), ih = Math.max(1, Math.round(ph * dpr));
    const img = ctx.createImageData(iw, ih);
    const px = new Uint32Array(img.data.buffer);
    px.fill(0xfffafafa);
    const fx = iw / (v.t1 - v.t0), fy = ih / (v.l1 - v.l0);
    let drawn = 0;
    for (let k = 0; k < D.spans.length; k++) {
      const sp = D.spans[k], c = colours[k];
      for (let i = 0; i < sp.length; i += 3) {
        const j = sp[i], s = J.start[j], e = J.end[j];
        if (e <= v.t0 || s >= v.t1) continue;
        const lo = sp[i + 1], hi = lo + sp[i + 2];
        if (hi <= v.l0 || lo >= v.l1) continue;
        // At least one pixel each way, so that no job vanishes when
        // zoomed out.
        const x0 = Math.max(0, Math.round((s - v.t0) * fx)), y0 = Math.max(0, Math.round((lo - v.l0) * fy));
        const x1 = Math.min(iw, Math.max(Math.round((e - v.t0) * fx), x0 + 1));
        const y1 = Math.min(ih, Math.max(Math.round((hi - v.l0) * fy), y0 + 1));
        if (x1 - x0 > 16) {
          for (let y = y0; y < y1; y++) px.fill(c, y * iw + x0, y * iw + x1);
        } else {
          // Narrow, as most jobs are when zoomed out: a call per row
          // costs more than the pixels.
          for (let o = y0 * iw + x0, end = y1 * iw; o < end; o += iw) {
            for (let x = 0; x < x1 - x0; x++) px[o + x] = c;
          }
        }
        drawn++;
      }
    }
    ctx.putImageData(img, Math.round(M.left * dpr), Math.round(M.top * dpr));
    ctx.save();
    ctx.beginPath(); ctx.rect(M.left, M.top, pw, ph); ctx.clip();
    // Outages of nodes over their rows, translucent: failed grey,
    // draining orange, in maintenance blue, drained by the policy violet;
    // a red tick where an outage ended a job's run, on the node it hit.
    const fills = [null, "rgba(0,0,0,0.45)", "rgba(224,138,0,0.25)", "rgba(31,78,156,0.35)", "rgba(138,43,226,0.25)"];
    for (const o of D.outages || []) {
      if (o[2] <= v.t0 || o[1] >= v.t1 || o[3] + o[4] <= v.l0 || o[3] >= v.l1) continue;
      ctx.fillStyle = fills[o[0]];
      ctx.fillRect(M.left + (o[1] - v.t0) * sx, M.top + (o[3] - v.l0) * sy, Math.max(1, (o[2] - o[1]) * sx), o[4] * sy);
    }
    ctx.strokeStyle = "#d00"; ctx.lineWidth = 2;
    ctx.beginPath();
    for (const r of D.interrupts || []) {
      if (r[0] < v.t0 || r[0] > v.t1 || r[1] + r[2] <= v.l0 || r[1] >= v.l1) continue;
      const x = M.left + (r[0] - v.t0) * sx;
      ctx.moveTo(x, M.top + (r[1] - v.l0) * sy); ctx.lineTo(x, M.top + (r[1] + r[2] - v.l0) * sy);
    }
    ctx.stroke();
    // Reservations, once zoomed in enough to tell them apart: a dashed
    // line at the start promised to a job that started at another time,
    // across the lanes it ran on.
    if (drawn <= 20000) {
      ctx.strokeStyle = "#000"; ctx.lineWidth = 1; ctx.setLineDash([3, 2]);
      ctx.beginPath();
      for (let k = 0; k < D.spans.length; k++) {
        const sp = D.spans[k];
        for (let i = 0; i < sp.length; i += 3) {
          const j = sp[i], p = J.promised[j];
          if (p < 0 || p === J.start[j] || p < v.t0 || p > v.t1) continue;
          const lo = sp[i + 1], hi = lo + sp[i + 2];
          if (hi <= v.l0 || lo >= v.l1) continue;
          const x = M.left + (p - v.t0) * sx;
          ctx.moveTo(x, M.top + (Math.max(lo, v.l0) - v.l0) * sy);
          ctx.lineTo(x, M.top + (Math.min(hi, v.l1) - v.l0) * sy);
        }
      }
      ctx.stroke();
      ctx.setLineDash([]);
    }
    // Rows (nodes, or a pool's clusters): a line between them when they
    // are at least 3 px apart, their names when there is room.
    const rows = D.rows;
    ctx.strokeStyle = "rgba(60,60,60,0.6)"; ctx.lineWidth = 0.6;
    ctx.beginPath();
    let visible = 0;
    for (const r of rows) { if (r[1] + r[2] > v.l0 && r[1] < v.l1) visible++; }
    if (visible > 1 && ph / visible >= 3) {
      for (const r of rows) {
        if (r[1] <= v.l0 || r[1] >= v.l1) continue;
        const y = M.top + (r[1] - v.l0) * sy;
        ctx.moveTo(M.left, y); ctx.lineTo(M.left + pw, y);
      }
    }
    ctx.stroke();
    ctx.restore();
    ctx.strokeStyle = "#888"; ctx.strokeRect(M.left, M.top, pw, ph);
    ctx.fillStyle = "#222"; ctx.font = "12px sans-serif"; ctx.textBaseline = "middle"; ctx.textAlign = "right";
    if (rows.length > 1 && visible <= 40) {
      for (const r of rows) {
        const mid = r[1] + r[2] / 2;
        if (mid <= v.l0 || mid >= v.l1) continue;
        ctx.fillText(r[0], M.left - 4, M.top + (mid - v.l0) * sy);
      }
    } else {
      for (const l of ticks(v.l0, v.l1, 8)) ctx.fillText(String(Math.round(l)), M.left - 4, M.top + (l - v.l0) * sy);
    }
    ctx.save(); ctx.translate(12, M.top + ph / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = "center";
    ctx.fillText(D.unit === "core" ? rows.length + " nodes (cores down each row)" : D.lanes + " processors", 0, 0); ctx.restore();
    if (P) drawPower(pw, M.top + ph + PG, sx);
    const [u, uname] = unitOf(v.t1 - v.t0);
    ctx.fillStyle = "#222"; ctx.textAlign = "center"; ctx.textBaseline = "top";
    for (const t of ticks(v.t0 / u, v.t1 / u, 8)) {
      const x = M.left + (t * u - v.t0) * sx;
      ctx.fillRect(x, M.top + ph + PB, 1, 5);
      ctx.fillText(String(+t.toPrecision(6)), x, M.top + ph + PB + 7);
    }
    ctx.fillText("time (" + uname + ", from the trace's time 0)", M.left + pw / 2, M.top + ph + PB + 23);
    frames++;
    if (firstPaint < 0) firstPaint = performance.now() - t0;
    document.getElementById("view").textContent =
      "time " + v.t0.toFixed(0) + " to " + v.t1.toFixed(0) + " s; " + D.unit + "s " + v.l0.toFixed(0) + " to " + v.l1.toFixed(0) + " of " + D.lanes + "; " + drawn + " rectangles";
    api.drawn = drawn;
  }
  // firstStep returns the index of the first power step that ends after t.
  function firstStep(t) {
    let lo = 0, hi = P.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (P[m][1] <= t) lo = m + 1; else hi = m; }
    return lo;
  }
  // drawPower draws the platform's power over the view as a step line
  // (at the most within each pixel when steps are denser than pixels) and
  // the cap as a dashed red one, in a panel of width pw at y0.
  function drawPower(pw, y0, sx) {
    const a = firstStep(v.t0);
    let b = a;
    while (b < P.length && P[b][0] < v.t1) b++;
    // Levels: [from, to, watts, cap], merged per pixel when dense into
    // [from, to, most watts, least cap, least watts].
    let L = [];
    if (b - a <= 2 * pw) {
      for (let i = a; i < b; i++) L.push(P[i]);
    } else {
      let cur = null;
      for (let i = a; i < b; i++) {
        const col = Math.floor((Math.max(P[i][0], v.t0) - v.t0) * sx);
        if (cur && cur.col === col) {
          cur.l[1] = P[i][1]; cur.l[2] = Math.max(cur.l[2], P[i][2]); cur.l[4] = Math.min(cur.l[4], P[i][2]);
          if (P[i][3] >= 0 && (cur.l[3] < 0 || P[i][3] < cur.l[3])) cur.l[3] = P[i][3];
        } else {
          cur = { col: col, l: P[i].concat([P[i][2]]) };
          L.push(cur.l);
        }
      }
    }
    let top = 1;
    for (const l of L) top = Math.max(top, l[2], l[3]);
    const [pu, puname] = top >= 1e6 ? [1e6, "MW"] : top >= 1e4 ? [1e3, "kW"] : [1, "W"];
    const hi = top * 1.05;
    const y = (w) => y0 + PH - w / hi * PH;
    const X = (t) => M.left + (Math.min(Math.max(t, v.t0), v.t1) - v.t0) * sx;
    ctx.fillStyle = "#fafafa"; ctx.fillRect(M.left, y0, pw, PH);
    ctx.strokeStyle = "#888"; ctx.lineWidth = 1; ctx.strokeRect(M.left, y0, pw, PH);
    ctx.fillStyle = "#222"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (const w of ticks(0, hi / pu, 4)) ctx.fillText(String(+w.toPrecision(6)), M.left - 4, y(w * pu));
    ctx.save(); ctx.translate(12, y0 + PH / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = "center";
    ctx.fillText("power (" + puname + ")", 0, 0); ctx.restore();
    ctx.save();
    ctx.beginPath(); ctx.rect(M.left, y0, pw, PH); ctx.clip();
    ctx.fillStyle = "rgba(153,153,153,0.5)";
    for (const l of L) {
      if (l.length > 4 && l[4] < l[2]) ctx.fillRect(X(l[0]), y(l[2]), X(l[1]) - X(l[0]), y(l[4]) - y(l[2]));
    }
    for (const [k, colour] of [[2, "#000"], [3, "#d00"]]) {
      ctx.strokeStyle = colour; ctx.lineWidth = 1.2; ctx.setLineDash(k === 3 ? [5, 3] : []);
      ctx.beginPath();
      let prev = null;
      for (const l of L) {
        if (l[k] < 0) { prev = null; continue; }
        if (prev === l[0]) ctx.lineTo(X(l[0]), y(l[k])); else ctx.moveTo(X(l[0]), y(l[k]));
        ctx.lineTo(X(l[1]), y(l[k]));
        prev = l[1];
      }
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.restore();
    api.powerLevels = L.length;
  }
  // powerAt returns the power step at time t, or null.
  function powerAt(t) {
    if (!P) return null;
    const i = firstStep(t);
    return i < P.length && P[i][0] <= t ? P[i] : null;
  }
  function redraw() { if (!queued) { queued = true; requestAnimationFrame(draw); } }
  function clampView() {
    const tspan = D.to - D.from, pad = tspan;
    const w = Math.min(Math.max(v.t1 - v.t0, 1), tspan + 2 * pad);
    v.t0 = Math.min(Math.max(v.t0, D.from - pad), D.to + pad - w); v.t1 = v.t0 + w;
    const h = Math.min(Math.max(v.l1 - v.l0, 1), D.lanes);
    v.l0 = Math.min(Math.max(v.l0, 0), D.lanes - h); v.l1 = v.l0 + h;
  }
  // zoom scales the view by f about the fraction (fx, fy) of the plot.
  function zoom(f, fx, fy, lanes) {
    if (lanes) {
      const c = v.l0 + fy * (v.l1 - v.l0);
      v.l0 = c - (c - v.l0) * f; v.l1 = c + (v.l1 - c) * f;
    } else {
      const c = v.t0 + fx * (v.t1 - v.t0);
      v.t0 = c - (c - v.t0) * f; v.t1 = c + (v.t1 - c) * f;
    }
    clampView(); redraw();
  }
  // pan moves the view by fractions of its size.
  function pan(dx, dy) {
    const w = v.t1 - v.t0, h = v.l1 - v.l0;
    v.t0 += dx * w; v.t1 += dx * w; v.l0 += dy * h; v.l1 += dy * h;
    clampView(); redraw();
  }
  function frac(ev) {
    const r = canvas.getBoundingClientRect();
    return [(ev.clientX - r.left - M.left) / (r.width - M.left - M.right), (ev.clientY - r.top - M.top) / (r.height - M.top - M.bottom)];
  }
  // jobAt returns the index of the job drawn at plot fractions (fx, fy).
  function jobAt(fx, fy) {
    if (fx < 0 || fx > 1 || fy < 0 || fy > 1) return -1;
    const t = v.t0 + fx * (v.t1 - v.t0), l = v.l0 + fy * (v.l1 - v.l0);
    for (let k = 0; k < D.spans.length; k++) {
      const sp = D.spans[k];
      for (let i = 0; i < sp.length; i += 3) {
        const j = sp[i];
        if (J.start[j] <= t && t < J.end[j] && sp[i + 1] <= l && l < sp[i + 1] + sp[i + 2]) return j;
      }
    }
    return -1;
  }
  function describe(j) {
    return "job " + J.id[j] + " (" + D.cats[J.cat[j]][0] + ")\nuser " + J.user[j] + ", " + J.procs[j] + " " + D.unit + "s\n" +
      "submit " + J.submit[j] + ", start " + J.start[j] + ", end " + J.end[j] + "\nwait " + (J.start[j] - J.submit[j]) +
      " s, ran " + (J.end[j] - J.start[j]) + " s" + (J.promised[j] >= 0 ? ", promised start " + J.promised[j] : "") + "\n" + J.where[j];
  }
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const [fx, fy] = frac(ev);
    zoom(ev.deltaY > 0 ? 1.25 : 0.8, Math.min(Math.max(fx, 0), 1), Math.min(Math.max(fy, 0), 1), ev.shiftKey);
  }, { passive: false });
  let drag = null;
  canvas.addEventListener("pointerdown", (ev) => { drag = [ev.clientX, ev.clientY]; canvas.setPointerCapture(ev.pointerId); canvas.classList.add("dragging"); });
  canvas.addEventListener("pointerup", (ev) => { drag = null; canvas.releasePointerCapture(ev.pointerId); canvas.classList.remove("dragging"); });
  canvas.addEventListener("pointermove", (ev) => {
    const r = canvas.getBoundingClientRect();
    if (drag) {
      pan(-(ev.clientX - drag[0]) / (r.width - M.left - M.right), -(ev.clientY - drag[1]) / (r.height - M.top - M.bottom));
      drag = [ev.clientX, ev.clientY];
      tip.style.display = "none";
      return;
    }
    const [fx, fy] = frac(ev);
    const ph = r.height - M.top - M.bottom;
    if (P && fx >= 0 && fx <= 1 && fy * ph >= ph + PG && fy * ph <= ph + PB) {
      // Over the power panel: the draw at that time.
      const t = v.t0 + fx * (v.t1 - v.t0), s = powerAt(t);
      api.hovered = null;
      if (!s) { tip.style.display = "none"; return; }
      tip.textContent = "time " + Math.floor(t) + ": " + s[2].toFixed(1) + " W over [" + s[0] + ", " + s[1] + ")" + (s[3] >= 0 ? "\ncap " + s[3].toFixed(1) + " W" : "");
      tip.style.display = "block";
      tip.style.left = Math.min(ev.clientX - r.left + 14, r.width - 260) + "px";
      tip.style.top = (ev.clientY - r.top + 14) + "px";
      return;
    }
    const j = jobAt(fx, fy);
    api.hovered = j < 0 ? null : J.id[j];
    if (j < 0) { tip.style.display = "none"; return; }
    tip.textContent = describe(j);
    tip.style.display = "block";
    tip.style.left = Math.min(ev.clientX - r.left + 14, r.width - 260) + "px";
    tip.style.top = (ev.clientY - r.top + 14) + "px";
  });
  canvas.addEventListener("pointerleave", () => { tip.style.display = "none"; });
  canvas.addEventListener("keydown", (ev) => {
    const keys = { "+": () => zoom(0.8, 0.5, 0.5, false), "=": () => zoom(0.8, 0.5, 0.5, false), "-": () => zoom(1.25, 0.5, 0.5, false),
      ArrowLeft: () => pan(-0.1, 0), ArrowRight: () => pan(0.1, 0), ArrowUp: () => pan(0, -0.1), ArrowDown: () => pan(0, 0.1) };
    if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
  });
  document.getElementById("reset").addEventListener("click", () => { v = Object.assign({}, first); redraw(); });
  window.addEventListener("resize", redraw);
  const legend = document.getElementById("legend");
  D.cats.slice(0, 24).forEach((c) => {
    const e = document.createElement("span");
    const sw = document.createElement("span");
    sw.className = "sw"; sw.style.background = c[1];
    e.appendChild(sw); e.appendChild(document.createTextNode(c[0] + " (" + c[2] + " jobs)"));
    legend.appendChild(e);
  });
  if (D.cats.length > 24) legend.appendChild(document.createTextNode("and " + (D.cats.length - 24) + " more, colours repeating"));
  // What a test (or a curious reader, in the console) can ask the page.
  const api = {
    view: () => Object.assign({}, v),
    setView: (a, b, c, d) => { v = { t0: a, t1: b, l0: c, l1: d }; clampView(); draw(); },
    zoom, pan,
    firstPaint: () => firstPaint,
    // margins returns the plot's box within the canvas, in CSS pixels.
    margins: () => ({ left: M.left, top: M.top, w: W - M.left - M.right, h: H - M.top - M.bottom }),
    frames: () => frames,
    hovered: null,
    drawn: 0,
    // powerLevels is the number of levels the power panel drew last.
    powerLevels: 0,
  };
  window.schedlabGantt = api;
  draw();
})();
