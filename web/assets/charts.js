// dama run charts: the curves of the run page drawn with uPlot (vendored
// in uPlot.iife.min.js, see uPlot.LICENSE): values on hover in the legend,
// drag to zoom (double click or "reset zoom" to undo), smoothing, a log
// scale for the losses, four x axes, and other runs overlaid. app.js hands
// it each run's sections (runCharts.set) and asks it for the event
// stream's address (runCharts.query).
'use strict';

const runCharts = (() => {
  const palette = ['#2980b9', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#16a085', '#7f8c8d'];
  const axisNames = {step: 'training steps', gen: 'generation', hours: 'wall hours from the start', cpu: 'trainer CPU-hours'};
  const st = {runs: [], shown: '', overlay: new Set(), data: {}, plots: {}, x: 'step', smooth: 0.6, log: true};
  const q = (s) => document.querySelector(s);

  // ---- x coordinates ----

  // genAxes maps a generation to its end on each axis (generation 0: the
  // start of the run).
  function genAxes(gens) {
    const m = new Map([[0, {step: 0, gen: 0, hours: 0, cpu: 0}]]);
    for (const g of gens || []) m.set(g.gen, {step: g.step_end, gen: g.gen, hours: g.hours, cpu: g.cpu_hours});
    return m;
  }

  // stepTo interpolates axis key at a training step between the ends of
  // the generations around it; null past the last one.
  function stepTo(m, key, step) {
    let prev = null;
    for (const v of m.values()) {
      if (v.step >= step && prev) {
        const f = v.step === prev.step ? 1 : (step - prev.step) / (v.step - prev.step);
        return (prev[key] === null || v[key] === null) ? null : prev[key] + f * (v[key] - prev[key]);
      }
      prev = v;
    }
    return null;
  }

  // smooth is TensorBoard's smoothing: an exponential moving average,
  // debiased at the start; nulls stay null.
  function smooth(ys, w) {
    if (!(w > 0)) return ys;
    let acc = 0, n = 0;
    return ys.map((y) => {
      if (y === null || !isFinite(y)) return null;
      acc = acc * w + (1 - w) * y;
      n++;
      return acc / (1 - Math.pow(w, n));
    });
  }

  // table sorts points [x, y...] by x, drops those without x, and gives
  // uPlot's columns.
  function table(pts, width) {
    pts = pts.filter((p) => p[0] !== null && p[0] !== undefined && isFinite(p[0])).sort((a, b) => a[0] - b[0]);
    const cols = Array.from({length: width}, () => []);
    for (const p of pts) for (let i = 0; i < width; i++) cols[i].push(p[i] === undefined ? null : p[i]);
    return cols;
  }

  // ---- the runs drawn ----

  function drawn() {
    const ids = [st.shown, ...st.runs.map((r) => r.id).filter((id) => id !== st.shown && st.overlay.has(id))];
    return ids.filter((id) => st.data[id]);
  }
  const color = (id) => palette[Math.max(0, st.runs.findIndex((r) => r.id === id)) % palette.length];
  const label = (id) => { const r = st.runs.find((x) => x.id === id); return r ? r.name + (r.name === r.id ? '' : ` (${r.id})`) : id; };
  const many = () => drawn().length > 1;

  // ---- the charts ----

  // plot draws chart name in box, or, when only its data changed (a live
  // update), gives the chart its new data: a zoom stays as it was.
  function plot(name, box, cols, series, opt) {
    const sig = JSON.stringify([series.map((s) => s.label + (s.quiet ? '~' : '')), st.x, opt.y || {}, box.clientWidth]);
    const old = st.plots[name];
    if (old && old.sig === sig && cols[0] && cols[0].length) { old.setData(cols, !old.zoomed); return; }
    if (old) { old.destroy(); delete st.plots[name]; }
    box.replaceChildren();
    if (!cols[0] || cols[0].length === 0) { box.append(Object.assign(document.createElement('div'), {className: 'empty', textContent: opt.empty})); return; }
    const width = Math.max(320, box.clientWidth || 560);
    const xgen = st.x === 'gen';
    const o = {
      width, height: 260, series: [{label: axisNames[st.x], value: (u, v) => v === null ? '-' : (xgen ? v.toFixed(v % 1 ? 2 : 0) : +v.toPrecision(6))}, ...series],
      scales: {x: {time: false}, y: opt.y || {}},
      axes: [{label: axisNames[st.x], ...(xgen ? {incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]} : {})}, {label: opt.ylabel, size: 60}],
      cursor: {drag: {x: true, y: false}},
      legend: {live: true},
      bands: opt.bands || [],
      hooks: {setSelect: [(u) => { if (u.select.width > 0) u.zoomed = true; }]},
    };
    const u = st.plots[name] = new uPlot(o, cols, box);
    u.sig = sig;
    u.over.addEventListener('dblclick', () => { u.zoomed = false; });
    // Series drawn for context (raw losses under smoothed ones, the ends
    // of an interval) stay out of the legend.
    const rows = u.root.querySelectorAll('.u-legend tr.u-series');
    series.forEach((s, i) => { if (s.quiet && rows[i + 1]) rows[i + 1].style.display = 'none'; });
  }

  const line = (id, kind, extra) => Object.assign({
    label: many() ? `${label(id)} · ${kind}` : kind, stroke: color(id), width: 1.6, spanGaps: true,
    value: (u, v) => v === null ? '-' : v.toFixed(4),
  }, extra || {});

  function drawLosses() {
    const ids = drawn(), one = ids.length === 1;
    const raw = st.smooth > 0;
    const tables = ids.map((id) => {
      const d = st.data[id], m = genAxes(d.generations);
      const pts = (d.losses || []).map((p) => {
        const x = st.x === 'step' ? p[0] : st.x === 'hours' ? p[4] : stepTo(m, st.x, p[0]);
        return [x, p[1], p[2]];
      });
      const t = table(pts, 3);
      const sm = [t[0], smooth(t[1], st.smooth), smooth(t[2], st.smooth)];
      return raw ? [...sm, t[1], t[2]] : sm;
    });
    const series = ids.flatMap((id) => {
      const pc = one ? palette[0] : color(id), vc = one ? palette[1] : color(id);
      const out = [line(id, 'policy', {stroke: pc}), line(id, 'value', {stroke: vc, dash: [6, 4]})];
      if (raw) {
        out.push(line(id, 'policy, raw', {stroke: pc + '40', width: 1, quiet: true}));
        out.push(line(id, 'value, raw', {stroke: vc + '40', width: 1, dash: [6, 4], quiet: true}));
      }
      return out;
    });
    plot('losses', q('#chart-losses'), tables.length ? uPlot.join(tables) : [[]], series,
      {ylabel: 'loss', empty: 'no training step yet', y: st.log ? {distr: 3} : {}});
  }

  // genX places a generation on the x axis.
  const genX = (m, gen) => { const v = m.get(gen); return v ? v[st.x] : null; };

  function drawArena() {
    const ids = drawn();
    const tables = [], series = [];
    let promo = null;
    for (const id of ids) {
      const d = st.data[id], m = genAxes(d.generations), a = d.arena || {matches: []};
      const pts = a.matches.map((x) => [genX(m, x.gen), x.promoted ? x.score : null, x.promoted ? null : x.score]);
      tables.push(table(pts, 3));
      series.push(line(id, 'promoted', {width: 0, paths: () => null, points: {show: true, size: 8, fill: color(id)}, value: (u, v) => v === null ? '-' : v.toFixed(3)}));
      series.push(line(id, 'rejected', {width: 0, paths: () => null, points: {show: true, size: 8, fill: '#fff'}, value: (u, v) => v === null ? '-' : v.toFixed(3)}));
      if (id === st.shown && a.promotion) promo = a;
    }
    let cols = tables.length ? uPlot.join(tables) : [[]];
    if (promo && cols[0].length) {
      cols = [...cols, cols[0].map(() => promo.promotion)];
      series.push({label: promo.label, stroke: '#e67e22', dash: [5, 4], width: 1.2, points: {show: false}, value: (u, v) => v === null ? '-' : v.toFixed(3)});
    }
    plot('arena', q('#chart-arena'), cols, series, {ylabel: 'score', empty: 'no gating match yet'});
  }

  // drawInterval draws a value with its 95% interval as a band, per run.
  function drawInterval(name, box, rowsOf, ylabel, empty) {
    const ids = drawn(), tables = [], series = [], bands = [];
    for (const id of ids) {
      const pts = rowsOf(st.data[id]);
      tables.push(table(pts, 4));
      const k = series.length + 1;
      // The hovered value comes with its interval: "294 [153, 435]".
      const value = (u, v, si, di) => v === null ? '-' : `${v.toFixed(0)} [${fmt0(u.data[si + 1][di])}, ${fmt0(u.data[si + 2][di])}]`;
      series.push(line(id, ylabel, {points: {show: true, size: 6, fill: color(id)}, value}));
      series.push({label: '95% low', stroke: color(id), width: 0.5, dash: [2, 3], spanGaps: true, points: {show: false}, quiet: true});
      series.push({label: '95% high', stroke: color(id), width: 0.5, dash: [2, 3], spanGaps: true, points: {show: false}, quiet: true});
      bands.push({series: [k + 2, k + 1], fill: color(id) + '22'});
    }
    plot(name, box, tables.length ? uPlot.join(tables) : [[]], series, {ylabel, empty, bands});
  }

  function drawElo() {
    drawInterval('elo', q('#chart-elo'), (d) => {
      const m = genAxes(d.generations);
      return (d.generations || []).map((g) => [genX(m, g.gen), g.chain_elo, g.chain_elo - g.chain_err, g.chain_elo + g.chain_err]);
    }, 'chained Elo', 'no generation yet');
  }

  function drawLadder() {
    drawInterval('ladder', q('#chart-ladder'), (d) => {
      const m = genAxes(d.generations);
      return (d.ladder || []).map((l) => [st.x === 'cpu' ? l.cpu_hours : st.x === 'hours' ? l.hours : genX(m, l.gen), l.elo, l.low, l.high]);
    }, 'ladder Elo', null);
    if (!st.plots.ladder) ladderHelp(q('#chart-ladder'));
  }

  // ladderHelp says how a run gets ladder ratings.
  function ladderHelp(box) {
    const dir = (st.data[st.shown] && st.data[st.shown].summary && st.data[st.shown].summary.dir) || 'DIR';
    box.replaceChildren(Object.assign(document.createElement('div'), {className: 'empty ladder-help'}));
    box.firstChild.append('No ladder rating yet. A run rates its best model every ladder.every generations: ',
      code(`dama train --run ${dir} --set ladder.every=5`), ' for a new run, ',
      code(`--allow-change ladder.every`), ' when resuming one; or rate a checkpoint now: ',
      code(`dama ladder --model ${dir}/accepted/NNNN.ckpt`), ' (see docs/rating.md).');
  }
  const fmt0 = (v) => (v === null || v === undefined || !isFinite(v)) ? '-' : v.toFixed(0);
  const code = (t) => Object.assign(document.createElement('code'), {textContent: t});

  function drawAll() { drawLosses(); drawArena(); drawElo(); drawLadder(); }

  // ---- the generation in progress ----

  let progress = null;
  function showProgress() {
    const box = q('#progress');
    if (!box) return;
    box.classList.toggle('hidden', !progress);
    if (!progress) return;
    const p = progress, stage = p.stage === 'ladder' ? 'ladder rating' : p.stage;
    let what = `Generation ${p.gen} in progress: ${stage}`;
    if (p.done >= 0 && p.total > 0) what += `, ${p.done} of ${p.total} ${p.unit}`;
    else if (p.done >= 0) what += `, ${p.done} ${p.unit}`;
    else if (p.total > 0) what += ` of ${p.total} ${p.unit}`;
    if (p.stage === 'training' && p.samples_per_s) what += ` (policy loss ${p.policy_loss.toFixed(3)}, value loss ${p.value_loss.toFixed(3)}, ${p.samples_per_s.toFixed(0)} samples/s)`;
    const since = Date.parse(p.since), last = Date.parse(p.last), ok = (t) => isFinite(t) && t > 0;
    const parts = [what];
    if (ok(since)) parts.push(`${duration(Date.now() - since)} so far`);
    if (ok(last) && last > since) parts.push(`last sign of work ${new Date(last).toLocaleTimeString()}`);
    q('#progress-text').textContent = parts.join(' · ');
    const bar = q('#progress-bar');
    bar.classList.toggle('hidden', !(p.done >= 0 && p.total > 0));
    if (p.total > 0) { bar.max = p.total; bar.value = Math.max(0, Math.min(p.done, p.total)); }
  }
  function duration(ms) {
    let s = Math.max(0, Math.round(ms / 1000));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    s %= 60;
    return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
  }
  setInterval(showProgress, 1000);

  // ---- controls ----

  let redraw = 0;
  function later() { clearTimeout(redraw); redraw = setTimeout(drawAll, 50); }

  function controls(onRun) {
    const sel = q('#run-select'), box = q('#overlay-runs');
    sel.replaceChildren(...st.runs.map((r) => Object.assign(document.createElement('option'), {value: r.id, textContent: label(r.id)})));
    sel.value = st.shown;
    q('#run-choice').classList.toggle('hidden', st.runs.length < 2);
    box.replaceChildren(...st.runs.filter((r) => r.id !== st.shown).map((r) => {
      const cb = Object.assign(document.createElement('input'), {type: 'checkbox', checked: st.overlay.has(r.id), value: r.id});
      cb.addEventListener('change', () => { if (cb.checked) st.overlay.add(r.id); else st.overlay.delete(r.id); onRun(); });
      const l = document.createElement('label');
      l.className = 'overlay';
      l.style.borderColor = color(r.id);
      l.append(cb, ' ' + label(r.id));
      return l;
    }));
    sel.onchange = () => { st.shown = sel.value; st.overlay.delete(st.shown); controls(onRun); onRun(); };
  }

  // init takes the runs the server shows; the page's address may choose
  // the shown run, those overlaid and the x axis: ?run=A&overlay=B,C&x=cpu.
  function init(runs, onRun) {
    st.runs = runs;
    st.shown = runs.length ? runs[0].id : '';
    const a = new URLSearchParams(location.search), known = (id) => runs.some((r) => r.id === id);
    if (known(a.get('run'))) st.shown = a.get('run');
    for (const id of (a.get('overlay') || '').split(',')) if (known(id) && id !== st.shown) st.overlay.add(id);
    if (axisNames[a.get('x')]) { st.x = a.get('x'); q('#chart-x').value = st.x; }
    controls(onRun);
    q('#chart-x').addEventListener('change', (e) => { st.x = e.target.value; drawAll(); });
    q('#chart-smooth').addEventListener('input', (e) => { st.smooth = +e.target.value; q('#chart-smooth-v').textContent = st.smooth.toFixed(2); drawLosses(); });
    q('#chart-log').addEventListener('change', (e) => { st.log = e.target.checked; drawLosses(); });
    q('#chart-reset').addEventListener('click', () => {
      for (const [k, u] of Object.entries(st.plots)) { u.destroy(); delete st.plots[k]; }
      drawAll();
    });
    window.addEventListener('resize', later);
  }

  // set stores a section of run id (null: the shown run) and redraws
  // what it feeds.
  function set(id, section, v) {
    if (section === 'error' && id) { overlayError(id, v); return; }
    id = id || st.shown;
    st.data[id] = st.data[id] || {};
    st.data[id][section] = v;
    if (section === 'progress' && id === st.shown) { progress = v; showProgress(); }
    if (['generations', 'losses', 'arena', 'ladder', 'summary'].includes(section)) later();
  }

  // overlayError shows the reading errors of overlaid runs.
  const errors = {};
  function overlayError(id, msg) {
    if (msg) errors[id] = msg; else delete errors[id];
    const box = q('#overlay-error'), ids = Object.keys(errors).filter((k) => st.overlay.has(k));
    box.textContent = ids.map((k) => `Reading run ${label(k)}: ${errors[k]}`).join('\n');
    box.classList.toggle('hidden', ids.length === 0);
  }

  // query is the event stream's address for the shown and overlaid runs.
  function query() {
    const p = new URLSearchParams();
    if (st.shown) p.set('run', st.shown);
    const ov = [...st.overlay].filter((id) => id !== st.shown);
    if (ov.length) p.set('overlay', ov.join(','));
    const s = p.toString();
    return s ? '?' + s : '';
  }

  // reset forgets the shown run's sections (another run is shown now).
  function reset() {
    for (const id of Object.keys(st.data)) delete st.data[id];
    for (const id of Object.keys(errors)) overlayError(id, '');
    progress = null;
    showProgress();
  }

  return {init, set, query, reset, drawAll, state: st};
})();
