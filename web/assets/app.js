// dama web view: the run page (live over server-sent events), the games
// replay and the play/analysis board. Plain JavaScript, no build step.
'use strict';

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};
const SVG = 'http://www.w3.org/2000/svg';
const sv = (tag, attrs, text) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
const fmt = (x, d) => (x === null || x === undefined || !isFinite(x)) ? '-' : Number(x).toFixed(d);

// One id per page, so that the server runs one search at a time for it.
const client = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');

async function api(path, body) {
  const opt = body === undefined ? {} : {
    method: 'POST', headers: {'Content-Type': 'application/json', 'X-Dama-Client': client}, body: JSON.stringify(body),
  };
  const r = await fetch(path, opt);
  if (!r.ok) throw new Error((await r.text()).trim() || r.statusText);
  const ct = r.headers.get('Content-Type') || '';
  return ct.startsWith('application/json') ? r.json() : r.text();
}

// ---- the time bars: hand-drawn SVG (the curves: charts.js) ----

function ticks(lo, hi, n) {
  if (!(hi > lo)) { hi = lo + 1; lo -= 1; }
  const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

// bars draws stacked bars per x: stacks [{name, color, values}].
function bars(box, xs, stacks) {
  box.replaceChildren();
  if (xs.length === 0) { box.append(el('div', {class: 'empty'}, 'no generation yet')); return; }
  const W = 600, H = 260, L = 55, R = 12, T = 24, B = 36;
  const tot = xs.map((_, i) => stacks.reduce((a, st) => a + st.values[i], 0));
  const y1 = Math.max(...tot, 1e-9), bw = (W - L - R) / xs.length;
  const Y = (y) => T + (1 - y / y1) * (H - T - B);
  const s = sv('svg', {viewBox: `0 0 ${W} ${H}`});
  for (const t of ticks(0, y1, 5)) {
    s.append(sv('line', {x1: L, x2: W - R, y1: Y(t), y2: Y(t), stroke: '#eee'}));
    s.append(sv('text', {x: L - 5, y: Y(t) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#555'}, String(t)));
  }
  xs.forEach((x, i) => {
    let acc = 0;
    for (const st of stacks) {
      const v = st.values[i];
      s.append(sv('rect', {x: L + i * bw + bw * 0.1, width: bw * 0.8, y: Y(acc + v), height: Y(acc) - Y(acc + v), fill: st.color, class: 'bar'}));
      acc += v;
    }
    if (xs.length <= 30 || i % Math.ceil(xs.length / 30) === 0) s.append(sv('text', {x: L + (i + 0.5) * bw, y: H - B + 14, 'text-anchor': 'middle', 'font-size': 10}, String(x)));
  });
  const sum = stacks.map((st) => st.values.reduce((a, b) => a + b, 0)), all = sum.reduce((a, b) => a + b, 0) || 1;
  let lx = L;
  stacks.forEach((st, k) => {
    const label = `${st.name} ${Math.round(100 * sum[k] / all)}%`;
    s.append(sv('rect', {x: lx, y: 6, width: 10, height: 10, fill: st.color}));
    s.append(sv('text', {x: lx + 14, y: 15, 'font-size': 11}, label));
    lx += 26 + 7 * label.length;
  });
  s.append(sv('text', {x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle', 'font-size': 12}, 'generation'));
  box.append(s);
}

// ---- the run page ----

const run = {};
const render = {
  summary(v) {
    $('#runname').textContent = v.name ? `— ${v.name}` : '';
    const cards = [
      ['generations', v.planned ? `${v.generations} / ${v.planned}` : v.generations], ['best', v.best || '-'],
      ['best Elo', fmt(v.best_elo, 0)], ['games', v.total_games], ['steps', v.steps], ['samples', v.samples],
      ['model', v.preset || '-'], ['updated', v.updated && !v.updated.startsWith('0001') ? new Date(v.updated).toLocaleTimeString() : '-'],
    ];
    $('#summary').replaceChildren(...cards.map(([k, x]) => el('div', {class: 'card'}, k, el('b', {}, String(x)))));
    runCharts.set(null, 'summary', v);
  },
  generations(rows) {
    const tb = $('#generations tbody');
    tb.replaceChildren(...rows.slice().reverse().map((g) => el('tr', {class: g.promoted ? 'promoted' : ''},
      ...[g.gen, g.games, g.positions, g.steps, fmt(g.policy_loss, 3), fmt(g.value_loss, 3), `${g.wins}-${g.draws}-${g.losses}`,
        fmt(g.score, 3), fmt(g.elo, 0), g.promoted ? 'yes' : 'no', `${fmt(g.chain_elo, 0)} ± ${fmt(g.chain_err, 0)}`, fmt(g.minutes, 1)]
        .map((c) => el('td', {}, String(c))))));
    runCharts.set(null, 'generations', rows);
  },
  progress(p) { runCharts.set(null, 'progress', p); },
  losses(pts) { runCharts.set(null, 'losses', pts); },
  arena(a) { runCharts.set(null, 'arena', a); },
  ladder(rows) { runCharts.set(null, 'ladder', rows); },
  times(t) {
    bars($('#chart-times'), t.gens, [
      {name: 'self-play', color: '#3498db', values: t.selfplay}, {name: 'train', color: '#e74c3c', values: t.train},
      {name: 'gating', color: '#2ecc71', values: t.gating}, {name: 'ladder', color: '#f1c40f', values: t.ladder},
    ]);
  },
  config(c) {
    $('#config').textContent = c.text || '(no config.yaml)';
    const ch = c.changes || [];
    $('#changes').replaceChildren(ch.length === 0 ? 'No recorded changes (config-changes.jsonl).' :
      el('table', {}, el('tr', {}, el('th', {}, 'from gen'), el('th', {class: 'l'}, 'key'), el('th', {class: 'l'}, 'old'), el('th', {class: 'l'}, 'new')),
        ...ch.flatMap((c1) => c1.changes.map((d) => el('tr', {}, el('td', {}, String(c1.generation)), el('td', {class: 'l'}, d.key), el('td', {class: 'l'}, d.old), el('td', {class: 'l'}, d.new))))));
  },
  chunks(c) {
    $('#chunks').replaceChildren(`${c.waiting} waiting for a generation, ${c.quarantined} quarantined.`,
      ...(c.list || []).map((q) => el('div', {class: 'error'}, `${q.name}: ${q.why}`)));
  },
  workers(ws) {
    $('#workers tbody').replaceChildren(...ws.map((w) => el('tr', {},
      el('td', {class: 'l'}, w.name), el('td', {}, String(w.chunks)), el('td', {}, w.games + (w.pending ? ` (+${w.pending} chunks)` : '')),
      el('td', {}, fmt(w.games_per_hour, 0)), el('td', {class: 'l'}, w.last), el('td', {}, new Date(w.last_time).toLocaleTimeString()))));
  },
  error(msg) {
    $('#error').textContent = msg ? `Reading the run folder: ${msg}` : '';
    $('#error').classList.toggle('hidden', !msg);
  },
};

let stream = null;
function watch() {
  if (stream) stream.close();
  const es = stream = new EventSource('api/events' + runCharts.query());
  es.addEventListener('overlay', (e) => { const o = JSON.parse(e.data); runCharts.set(o.run, o.section, o.data); });
  es.onopen = () => { $('#live').textContent = 'live'; $('#live').className = 'on'; };
  es.onerror = () => { $('#live').textContent = 'reconnecting'; $('#live').className = 'off'; };
  for (const name of Object.keys(render)) {
    es.addEventListener(name, (e) => { run[name] = JSON.parse(e.data); render[name](run[name]); });
  }
  es.addEventListener('games', (e) => gamesChanged(JSON.parse(e.data)));
}

// ---- the board ----

const sqRow = (s) => (s - 1) >> 2;
const sqFile = (s) => 2 * ((s - 1) & 3) + (sqRow(s) & 1);

// drawBoard draws a 32-character board (w b men, W B kings, '.') with the
// FID square numbers; opt: flip, marks {square: colour}, onclick(square).
function drawBoard(svg, board, opt) {
  opt = opt || {};
  svg.replaceChildren();
  for (let r = 0; r < 8; r++) for (let f = 0; f < 8; f++) {
    if ((r + f) % 2 === 1) svg.append(sv('rect', {x: f * 50, y: r * 50, width: 50, height: 50, fill: '#f0d9b5'}));
  }
  for (let s = 1; s <= 32; s++) {
    let r = sqRow(s), f = sqFile(s);
    if (opt.flip) { r = 7 - r; f = 7 - f; }
    const g = sv('g', {class: 'sq', 'data-square': s});
    g.append(sv('rect', {x: f * 50, y: r * 50, width: 50, height: 50, fill: (opt.marks && opt.marks[s]) || '#8b5a2b'}));
    g.append(sv('text', {x: f * 50 + 3, y: r * 50 + 11, 'font-size': 10, fill: '#f5e6c8'}, String(s)));
    const p = board[s - 1];
    if (p !== '.') {
      const white = p === 'w' || p === 'W';
      g.append(sv('circle', {cx: f * 50 + 25, cy: r * 50 + 27, r: 18, fill: white ? '#fbf7ee' : '#222', stroke: white ? '#555' : '#000', 'stroke-width': 1.5, class: 'piece'}));
      if (p === 'W' || p === 'B') g.append(sv('circle', {cx: f * 50 + 25, cy: r * 50 + 27, r: 9, fill: 'none', stroke: '#d4a017', 'stroke-width': 3, class: 'king'}));
    }
    if (opt.onclick) g.addEventListener('click', () => opt.onclick(s));
    svg.append(g);
  }
}

function pathMarks(path, captured) {
  const m = {};
  for (const s of captured || []) m[s] = '#a04040';
  for (const s of path || []) m[s] = '#5b7f3a';
  return m;
}

// ---- games ----

const replay = {game: null, ply: 0};

const pageSize = 200;
let gamesOffset = 0;

async function listGames() {
  const f = new FormData($('#game-filter'));
  const q = new URLSearchParams();
  for (const [k, v] of f) if (v !== '' && !(k === 'gen' && v === '-1')) q.set(k, v);
  q.set('limit', String(pageSize));
  q.set('offset', String(gamesOffset));
  const r = await api('api/games?' + q);
  const shown = r.games.length ? `${gamesOffset + 1}-${gamesOffset + r.games.length} of ` : '';
  $('#games-count').textContent = `${shown}${r.matched} (of ${r.total}) games, newest first` + (r.complete ? '' : ' (older chunks are still being read: List again)') +
    (r.problems.length ? `; unreadable: ${r.problems.join('; ')}` : '');
  $('#games-newer').disabled = gamesOffset === 0;
  $('#games-older').disabled = gamesOffset + pageSize >= r.matched;
  const sel = $('#game-filter select[name=gen]'), cur = sel.value;
  sel.replaceChildren(el('option', {value: '-1'}, 'all'), ...r.gens.map((g) => el('option', {value: String(g)}, g === 0 ? 'waiting' : String(g))));
  sel.value = cur;
  $('#games-new').textContent = '';
  $('#games tbody').replaceChildren(...r.games.map((g) => el('tr', {'data-id': g.id, 'data-kind': g.kind, onclick: () => openGame(g.id)},
    el('td', {}, g.id), el('td', {class: 'l'}, kindNames[g.kind] || g.kind),
    ...[g.gen || 'waiting', g.plies, g.result, g.end].map((c) => el('td', {}, String(c))),
    el('td', {class: 'l'}, g.kind === 'selfplay' ? g.model : `${g.white} vs ${g.black}`))));
}

const kindNames = {selfplay: 'self-play', arena: 'gating', ladder: 'ladder'};

// New games (a chunk, a gating match, a ladder rating) are pushed by the
// event stream: the first page of the list is listed again, a later page
// says so.
let gamesSeen = null;
function gamesChanged(v) {
  const key = JSON.stringify(v);
  const first = gamesSeen === null;
  if (first || key === gamesSeen) { gamesSeen = key; return; }
  gamesSeen = key;
  if ($('#tab-games').classList.contains('hidden')) { $('#games tbody').replaceChildren(); return; } // listed when shown
  if (gamesOffset === 0) listGames().catch(showError);
  else $('#games-new').textContent = 'new games have come: see newer';
}

async function openGame(id) {
  replay.game = await api('api/game?id=' + encodeURIComponent(id));
  replay.ply = 0;
  for (const tr of document.querySelectorAll('#games tbody tr')) tr.classList.toggle('sel', tr.dataset.id === id);
  const g = replay.game;
  $('#replay').classList.remove('hidden');
  const what = g.kind === 'selfplay' ? 'self-play' : (g.kind === 'arena' ? `gating match of generation ${g.gen}` : `ladder rating after generation ${g.gen}`) + `, ${g.white} vs ${g.black}`;
  $('#replay-title').textContent = `Game ${g.id} (${what}): ${g.result} (${g.end}), ${g.plies.length} plies`;
  $('#r-pdn').href = 'api/game.pdn?id=' + encodeURIComponent(id);
  $('#r-match').classList.toggle('hidden', g.kind === 'selfplay');
  if (g.kind !== 'selfplay') $('#r-match').href = `api/match.pdn?kind=${g.kind}&gen=${g.gen}`;
  const black0 = g.start_side === 'black';
  $('#r-moves').replaceChildren();
  let li = null;
  g.plies.forEach((p, i) => {
    const k = i + (black0 ? 1 : 0);
    if (k % 2 === 0 || li === null) { li = el('li', {}); $('#r-moves').append(li); if (black0 && i === 0) li.append('… '); }
    li.append(el('span', {'data-ply': i + 1, onclick: () => showPly(i + 1)}, p.move), ' ');
  });
  showPly(0);
}

function showPly(n) {
  const g = replay.game;
  replay.ply = Math.max(0, Math.min(n, g.plies.length));
  const p = replay.ply > 0 ? g.plies[replay.ply - 1] : null;
  drawBoard($('#replay-board'), p ? p.board : g.start, {marks: p ? pathMarks(p.path, p.captured) : {}});
  $('#r-ply').textContent = `ply ${replay.ply} / ${g.plies.length}` + (replay.ply === g.plies.length ? ` — ${g.result}` : '');
  for (const s of document.querySelectorAll('#r-moves span')) s.classList.toggle('cur', +s.dataset.ply === replay.ply);
  const info = $('#r-info');
  info.replaceChildren();
  const next = g.plies[replay.ply];
  if (!g.stats) {
    info.append(el('div', {class: 'note'}, (next ? `${next.side} to move. ` : '') +
      'No search statistics: the run keeps the moves of gating and ladder games only (W/D/L and top moves are recorded for self-play games).'));
  } else if (next) {
    const w = next.wdl;
    info.append(el('div', {}, `${next.side} to move; search W/D/L ${fmt(w[0], 3)} / ${fmt(w[1], 3)} / ${fmt(w[2], 3)}` + (next.full ? '' : ' (cheap search)')));
    if (next.top && next.top.length) {
      const pol = next.top.some((t) => t.policy);
      info.append(el('table', {class: 'kv'}, el('tr', {}, el('th', {class: 'l'}, 'move'), el('th', {}, 'visits'), el('th', {}, 'share'), ...(pol ? [el('th', {}, 'target')] : [])),
        ...next.top.map((t) => el('tr', {}, el('td', {}, t.move + (t.move === next.move ? ' (played)' : '')), el('td', {}, String(t.visits)), el('td', {}, fmt(100 * t.share, 1) + '%'),
          ...(pol ? [el('td', {}, fmt(t.policy, 3))] : [])))));
    }
  }
}
$('#r-first').onclick = () => showPly(0);
$('#r-prev').onclick = () => showPly(replay.ply - 1);
$('#r-next').onclick = () => showPly(replay.ply + 1);
$('#r-last').onclick = () => showPly(1e9);
$('#game-filter').addEventListener('submit', (e) => { e.preventDefault(); gamesOffset = 0; listGames().catch(showError); });
$('#games-newer').onclick = () => { gamesOffset = Math.max(0, gamesOffset - pageSize); listGames().catch(showError); };
$('#games-older').onclick = () => { gamesOffset += pageSize; listGames().catch(showError); };

// ---- play and analyse: board.js ----

// ---- tabs ----

function showTab() {
  const name = (location.hash || '#run').slice(1);
  for (const t of ['run', 'games', 'play']) $('#tab-' + t).classList.toggle('hidden', t !== name);
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.tab === name);
  if (name === 'games' && !$('#games tbody').children.length) listGames().catch(showError);
}

function showError(e) { $('#games-count').textContent = 'error: ' + e.message; }
window.addEventListener('hashchange', showTab);

async function start() {
  const runs = await api('api/runs');
  runCharts.init(runs.runs, () => { runCharts.reset(); watch(); });
  watch();
  showTab();
}
start().catch(showError);
