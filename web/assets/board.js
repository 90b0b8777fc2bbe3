// dama web view: the analysis and play board. A move tree (step back,
// play another move, the branches kept; PDN with variations), continuous
// analysis streamed by the server (top lines, arrows, an eval bar), an
// eval graph over the game, import of a PDN game or a FEN, and play
// against the engine with clocks. Uses the helpers of app.js ($, el, sv,
// api, fmt, client, drawBoard, pathMarks, replay).
'use strict';

// ---- the move tree ----

let nodeSeq = 0;
const newNode = (move, parent) => ({id: ++nodeSeq, move, parent, kids: [], pos: null, white: null});

const B = {
  start: '', root: newNode(null, null), cur: null, flip: false,
  mode: 'analyse', // or 'play'
  es: null, on: false, last: null, // the analysis stream, wanted, its last event
  evalES: null,
  game: null, // play: {side, clock: {white, black} ms, inc, running, over, drawOffer}
  busy: false,
};
B.cur = B.root;

function pathTo(n) { const out = []; for (; n && n.move; n = n.parent) out.unshift(n); return out; }
function movesTo(n) { return pathTo(n).map((x) => x.move); }
function mainLine() { const out = []; for (let n = B.root.kids[0]; n; n = n.kids[0]) out.push(n); return out; }
function lineFrom(n) { const out = []; for (; n; n = n.kids[0]) out.push(n); return out; }
function plyOf(n) { return pathTo(n).length; }

// The tree as api/pdn takes it: the main line, and the variations of each
// line (the siblings of each of its moves after the first, whose siblings
// the line above gives).
function variationsOf(line, isVar) {
  const out = [];
  line.forEach((n, i) => {
    if (isVar && i === 0) return;
    for (const alt of n.parent.kids.slice(1)) {
      const l = lineFrom(alt);
      out.push({ply: i, moves: l.map((x) => x.move), variations: variationsOf(l, true)});
    }
  });
  return out;
}

async function position(n) {
  if (!n.pos) n.pos = await api('api/position', {start: B.start, moves: movesTo(n)});
  return n.pos;
}

// goTo shows node n; the analysis follows. Of steps asked for while a
// position was being fetched, the last one wins.
let goSeq = 0;
async function goTo(n) {
  const my = ++goSeq;
  await position(n);
  if (my !== goSeq) return;
  B.cur = n;
  drawAll();
  if (B.on) startAnalysis();
}

// play adds move mv at the shown node (or follows it where the tree has it).
async function playMove(mv) {
  const at = B.cur;
  let kid = at.kids.find((k) => k.move === mv);
  if (!kid) {
    kid = newNode(mv, at);
    try { await position(kid); } catch (e) { boardError(e); return null; }
    const again = at.kids.find((k) => k.move === mv); // played twice meanwhile
    if (again) kid = again; else at.kids.push(kid);
  }
  await goTo(kid);
  return kid;
}

async function loadGame(start, moves, whites) {
  stopAnalysis(false);
  stopEvaluation();
  $('#g-progress').textContent = '';
  B.start = start || '';
  B.root = newNode(null, null);
  let n = B.root;
  for (const m of moves) { const k = newNode(m, n); n.kids.push(k); n = k; }
  if (whites) { let k = B.root; whites.forEach((w) => { if (k && w !== null && w !== undefined) k.white = w; k = k && k.kids[0]; }); }
  await position(n); // checks the whole game at once
  await goTo(B.root);
}

// ---- drawing ----

const sqXY = (s) => {
  let r = (s - 1) >> 2, f = 2 * ((s - 1) & 3) + (r & 1);
  if (B.flip) { r = 7 - r; f = 7 - f; }
  return [f * 50 + 25, r * 50 + 25];
};

function drawAll() {
  const p = B.cur.pos;
  const m = p.last ? pathMarks(p.last.path, []) : {};
  if (B.sel) { m[B.sel] = '#c79a2c'; for (const l of p.legal) if (l.path[0] === B.sel) m[l.path[l.path.length - 1]] = '#5b7f3a'; }
  drawBoard($('#play-board'), p.board, {flip: B.flip, marks: m, onclick: clickSquare});
  drawArrows();
  $('#p-legal').replaceChildren(...p.legal.map((l) => el('button', {'data-move': l.move, onclick: () => humanMove(l.move)}, l.move)));
  drawTree();
  drawGraph();
  drawTables(p.tb);
  drawLines();
  drawClocks();
  if (!B.busy) say(statusText());
}

function statusText() {
  const p = B.cur.pos, g = B.game;
  if (g && g.over) return `Game over: ${g.over}`;
  if (g && g.note && B.cur === lastOfGame()) return g.note + statusLine(p);
  return statusLine(p);
}

// statusLine says whose move it is, or how the game ended.
function statusLine(p) {
  const g = B.game;
  if (p.over) return `Game over: ${p.result} (${p.reason})`;
  const at = plyOf(B.cur), end = mainLine().length;
  if (g && at !== end) return `${p.side} to move; viewing ply ${at} of ${end}: go to the last move to play on`;
  return `${p.side} to move`;
}

function say(msg) { $('#p-status').textContent = msg; }
function boardError(e) { say('error: ' + e.message); }

// Arrows for the top lines of the analysis of the shown position: the
// best one widest.
function drawArrows() {
  const svg = $('#play-board');
  const a = B.last;
  if (!a || a.fen !== B.cur.pos.fen || !a.lines.length) return;
  const defs = sv('defs', {});
  const mk = sv('marker', {id: 'ah', viewBox: '0 0 10 10', refX: 6, refY: 5, markerWidth: 3, markerHeight: 3, orient: 'auto'});
  mk.append(sv('path', {d: 'M0,0 L10,5 L0,10 z', fill: '#1f6fb2'}));
  defs.append(mk);
  const g = sv('g', {class: 'arrows'});
  g.append(defs);
  const total = a.lines.reduce((s, l) => s + l.visits, 0) || 1;
  a.lines.slice(0, 3).forEach((l, i) => {
    const pts = l.path.map(sqXY).map(([x, y]) => `${x},${y}`).join(' ');
    g.append(sv('polyline', {points: pts, fill: 'none', stroke: '#1f6fb2', 'stroke-width': i === 0 ? 9 : 5, 'stroke-opacity': Math.max(0.35, Math.min(0.85, 0.3 + l.visits / total)),
      'stroke-linecap': 'round', 'marker-end': 'url(#ah)', class: 'arrow', 'data-move': l.moves[0]}));
  });
  svg.append(g);
}

// The eval bar: White's expected score at the shown position.
function drawBar(white) {
  const pct = white === null ? 50 : 100 * white;
  $('#evalbar-fill').style.height = `${pct}%`;
  $('#evalbar-text').textContent = white === null ? '' : fmt(white, 2);
  $('#evalbar').classList.toggle('flip', B.flip);
}

const toWhite = (side, wdl) => { const s = wdl[0] + wdl[1] / 2; return side === 'black' ? 1 - s : s; };

function drawTree() {
  const box = $('#p-tree');
  box.replaceChildren();
  const startBlack = (B.root.pos && B.root.pos.side === 'black');
  const span = (n, ply, numbered) => {
    const num = Math.floor(ply / 2) + 1;
    const label = ply % 2 === 0 ? `${num}. ${n.move}` : (numbered ? `${num}… ${n.move}` : n.move);
    return el('span', {class: 'mv' + (n === B.cur ? ' cur' : ''), 'data-node': n.id, 'data-move': n.move, onclick: () => goTo(n).catch(boardError)}, label);
  };
  // line writes the moves from node n at game ply ply into parent, each
  // move's alternatives in parentheses after it.
  const line = (parent, n, ply, first) => {
    let numbered = true;
    for (let k = n; k; k = k.kids[0], ply++) {
      parent.append(span(k, ply, numbered), ' ');
      numbered = false;
      const alts = (k === n && !first) ? [] : k.parent.kids.filter((x) => x !== k);
      for (const alt of alts) {
        const v = el('span', {class: 'var'}, '(');
        line(v, alt, ply, false);
        v.lastChild.remove(); // the space after its last move
        v.append(')');
        parent.append(v, ' ');
        numbered = true;
      }
    }
  };
  if (B.root.kids.length) line(box, B.root.kids[0], startBlack ? 1 : 0, true);
  else box.append('(no moves)');
  const cur = box.querySelector('.cur');
  if (cur) cur.scrollIntoView({block: 'nearest'});
}

// The eval graph: White's expected score along the main line, from the
// stored search values, the evaluation or the analysis; a click jumps.
function drawGraph() {
  const svg = $('#eval-graph');
  svg.replaceChildren();
  const line = [B.root, ...mainLine()];
  const W = 400, H = 120, L = 4, R = 4, T = 6, Bm = 6;
  const X = (i) => L + (line.length > 1 ? i / (line.length - 1) : 0.5) * (W - L - R), Y = (v) => T + (1 - v) * (H - T - Bm);
  svg.append(sv('rect', {x: 0, y: 0, width: W, height: H, fill: '#fff', stroke: '#ccc'}));
  svg.append(sv('line', {x1: L, x2: W - R, y1: Y(0.5), y2: Y(0.5), stroke: '#bbb', 'stroke-dasharray': '4 3'}));
  const pts = [];
  line.forEach((n, i) => { if (n.white !== null) pts.push([X(i), Y(n.white), i]); });
  if (pts.length > 1) {
    const area = `M${pts[0][0]},${Y(0.5)} ` + pts.map((p) => `L${p[0]},${p[1]}`).join(' ') + ` L${pts[pts.length - 1][0]},${Y(0.5)} z`;
    svg.append(sv('path', {d: area, fill: '#d9e4ef', stroke: 'none'}));
    svg.append(sv('polyline', {points: pts.map((p) => `${p[0]},${p[1]}`).join(' '), fill: 'none', stroke: '#2c3e50', 'stroke-width': 1.5, class: 'evalline'}));
  }
  for (const p of pts) svg.append(sv('circle', {cx: p[0], cy: p[1], r: 2, fill: '#2c3e50', class: 'evalpt', 'data-ply': p[2]}));
  const ci = line.indexOf(B.cur);
  if (ci >= 0) svg.append(sv('line', {x1: X(ci), x2: X(ci), y1: T, y2: H - Bm, stroke: '#e67e22', 'stroke-width': 2, class: 'curply'}));
  svg.onclick = (e) => {
    const r = svg.getBoundingClientRect();
    const x = (e.clientX - r.left) / r.width * W;
    const i = Math.max(0, Math.min(line.length - 1, Math.round((x - L) / (W - L - R) * (line.length - 1))));
    goTo(line[i]).catch(boardError);
  };
  $('#g-count').textContent = `${pts.length} / ${line.length} positions`;
}

function drawTables(t) {
  const box = $('#a-tb');
  if (!t) { box.replaceChildren(); return; }
  const keep = t.moves.filter((m) => m.value === t.value).map((m) => m.move);
  box.replaceChildren(el('b', {}, `Tables: ${t.value} for ${B.cur.pos.side}`), ` (${t.entry})` + (t.repeat ? '; the position occurred before, a repetition the tables do not see may draw it' : ''),
    el('div', {}, `moves that keep the ${t.value}: ${keep.join(' ') || '-'}`));
}

// ---- continuous analysis ----

function analysisURL(path, extra) {
  const f = form();
  const q = new URLSearchParams({start: B.start, moves: movesTo(B.cur).join(' '), model: f.model, client});
  for (const [k, v] of Object.entries(extra || {})) q.set(k, v);
  return `${path}?${q}`;
}

function startAnalysis() {
  stopAnalysis(true);
  B.on = true;
  $('#a-toggle').textContent = 'Stop';
  $('#a-toggle').classList.add('on');
  if (B.cur.pos.over) { B.last = null; drawLines(); $('#a-head').textContent = 'The game is over: nothing to analyse.'; return; }
  const url = analysisURL('api/analysis', {lines: String(form().lines)});
  const es = new EventSource(url);
  B.es = es;
  B.last = null;
  $('#a-head').textContent = 'analysing…';
  $('#a-head').dataset.events = '0';
  es.addEventListener('analysis', (e) => {
    if (B.es !== es) return;
    const a = JSON.parse(e.data);
    B.last = a;
    $('#a-head').dataset.events = String(+$('#a-head').dataset.events + 1);
    if (a.fen === B.cur.pos.fen) B.cur.white = toWhite(a.side, a.wdl);
    drawAll();
    if (a.done) { es.close(); B.es = null; }
  });
  es.onerror = () => {
    if (B.es !== es || es.readyState !== EventSource.CLOSED) return;
    B.es = null;
    // The stream was refused: fetch it once to read why.
    const ctl = new AbortController();
    fetch(url, {signal: ctl.signal}).then(async (r) => {
      if (!r.ok) $('#a-head').textContent = 'analysis refused: ' + (await r.text()).trim();
      ctl.abort();
    }).catch(() => {});
  };
}

// stopAnalysis closes the stream; the button says so unless keep.
function stopAnalysis(keep) {
  if (B.es) { B.es.close(); B.es = null; }
  if (!keep) {
    B.on = false;
    $('#a-toggle').textContent = 'Analyse';
    $('#a-toggle').classList.remove('on');
    if (B.last && !B.last.done) $('#a-head').textContent += ' — stopped';
  }
}

function drawLines() {
  const a = B.last, tb = $('#a-lines tbody');
  drawBar(B.cur.white);
  if (!a || a.fen !== B.cur.pos.fen) {
    tb.replaceChildren();
    $('#a-head').textContent = B.on ? 'analysing…' : 'Analyse runs the engine\'s search on the shown position until you stop it; it follows the moves.';
    $('#a-head').dataset.visits = '0';
    return;
  }
  const head = `${a.model}: ${a.visits} visits, ${fmt(a.ms / 1000, 1)} s, ${fmt(a.nps / 1000, 1)}k visits/s; W/D/L for ${a.side} ${a.wdl.map((x) => fmt(x, 2)).join(' / ')}`;
  $('#a-head').textContent = a.done ? `${head} — ended: ${a.why}` : head;
  $('#a-head').dataset.visits = String(a.visits);
  $('#a-head').dataset.done = a.done ? a.why : '';
  tb.replaceChildren(...a.lines.map((l, i) => el('tr', {'data-move': l.moves[0], onclick: () => humanMove(l.moves[0])},
    el('td', {}, String(i + 1)), el('td', {class: 'l'}, l.moves[0]), el('td', {}, l.wdl.map((x) => fmt(x, 2)).join('/') + (l.proof ? ` (${l.proof})` : '')),
    el('td', {}, String(l.visits)), el('td', {class: 'l pv'}, l.moves.slice(1).join(' ')))));
}

$('#a-toggle').onclick = () => { if (B.on) stopAnalysis(false); else startAnalysis(); };

// ---- the eval graph of a whole game ----

function stopEvaluation() { if (B.evalES) { B.evalES.close(); B.evalES = null; $('#g-progress').textContent = ''; } }

function evaluateGame() {
  stopEvaluation();
  const line = [B.root, ...mainLine()];
  const f = form();
  const q = new URLSearchParams({start: B.start, moves: line.slice(1).map((n) => n.move).join(' '), model: f.model, visits: String(f.evalVisits), client});
  const es = new EventSource(`api/evaluate?${q}`);
  B.evalES = es;
  $('#g-progress').textContent = 'evaluating…';
  es.addEventListener('point', (e) => {
    const p = JSON.parse(e.data);
    if (line[p.ply]) line[p.ply].white = p.white;
    $('#g-progress').textContent = `${p.ply + 1} / ${p.of}`;
    drawGraph();
    drawBar(B.cur.white);
  });
  es.addEventListener('done', (e) => {
    const d = JSON.parse(e.data);
    es.close();
    if (B.evalES === es) B.evalES = null;
    $('#g-progress').textContent = d.why === 'done' ? `evaluated (${d.visits} visits a position)` : d.why;
  });
  es.onerror = () => { if (es.readyState === EventSource.CLOSED && B.evalES === es) { B.evalES = null; $('#g-progress').textContent = 'evaluation refused (the server is busy?)'; } };
}
$('#g-eval').onclick = evaluateGame;

// ---- moves by the board ----

function form() {
  const f = new FormData($('#play-form'));
  return {side: f.get('side'), model: f.get('model'), by: f.get('by'), visits: +f.get('visits') || 0, ms: +f.get('ms') || 0,
    min: +f.get('tc-min') || 0, inc: +f.get('tc-inc') || 0, lines: Math.max(1, Math.min(10, +f.get('lines') || 3)), evalVisits: +f.get('eval-visits') || 100};
}

function clickSquare(s) {
  const p = B.cur.pos;
  if (p.over || B.busy) return;
  const ends = p.legal.filter((l) => l.path[0] === B.sel && l.path[l.path.length - 1] === s);
  if (B.sel && ends.length === 1) { humanMove(ends[0].move); return; }
  if (B.sel && ends.length > 1) { say(`several captures end there: pick one of ${ends.map((l) => l.move).join(', ')} below`); return; }
  B.sel = p.legal.some((l) => l.path[0] === s) ? s : 0;
  drawAll();
}

async function humanMove(mv) {
  if (B.busy) return;
  B.sel = 0;
  const g = B.game;
  try {
    if (g) {
      if (g.over) { say(`Game over: ${g.over}; New game to play again`); return; }
      if (B.cur !== lastOfGame()) { say('go to the last move to play on (the navigation buttons)'); return; }
      if (B.cur.pos.side !== g.side) { say('the engine is to move'); return; }
      clockMoved(g.side);
      if (!g.over) { // only the main line is the game
        const at = B.cur;
        let kid = at.kids.find((k) => k.move === mv);
        if (!kid) { kid = newNode(mv, at); await position(kid); at.kids.unshift(kid); }
        await goTo(kid);
      }
      if (!g.over && !B.cur.pos.over) await engineMove();
      else finishIfOver();
      return;
    }
    await playMove(mv);
  } catch (e) { boardError(e); }
}

function lastOfGame() { const l = mainLine(); return l.length ? l[l.length - 1] : B.root; }

// ---- play ----

// newGame starts a game against the engine from fen ('' the start).
function newGame(fen) {
  const f = form();
  stopEvaluation();
  if (B.game && B.game.timer) clearInterval(B.game.timer);
  B.game = {side: f.side, over: '', inc: f.inc * 1000, clock: null, turnStart: 0, timer: null, drawOffer: false};
  $('#p-status').dataset.result = '';
  if (f.by === 'clock') {
    const ms = Math.max(1000, f.min * 60000);
    B.game.clock = {white: ms, black: ms};
  }
  B.flip = f.side === 'black';
  return loadGame(fen, []).then(() => {
    startClock();
    if (B.cur.pos.side !== B.game.side) return engineMove();
  });
}

// startClock starts the clock of the side to move.
function startClock() {
  const g = B.game;
  if (!g || !g.clock || g.over) return;
  g.turnStart = performance.now();
  if (g.timer) clearInterval(g.timer);
  g.timer = setInterval(tick, 100);
  drawClocks();
}

function left(color) {
  const g = B.game;
  let ms = g.clock[color];
  if (g.timer && lastOfGame().pos && lastOfGame().pos.side === color) ms -= performance.now() - g.turnStart;
  return ms;
}

function tick() {
  const g = B.game;
  if (!g || !g.clock || g.over) return;
  const side = lastOfGame().pos.side;
  if (left(side) <= 0) {
    g.clock[side] = 0;
    // The engine's clock is kept by its own reports (clockMoved), the
    // human's by this timer; either may fall.
    endGame(side === 'white' ? '0-1' : '1-0', `${side} lost on time`);
    return;
  }
  drawClocks();
}

// clockMoved charges the mover's clock for the move and adds the increment.
function clockMoved(color, spent) {
  const g = B.game;
  if (!g || !g.clock || g.over) return;
  const used = spent !== undefined ? spent : performance.now() - g.turnStart;
  g.clock[color] -= used;
  if (g.clock[color] <= 0) { g.clock[color] = 0; endGame(color === 'white' ? '0-1' : '1-0', `${color} lost on time`); return; }
  g.clock[color] += g.inc;
  g.turnStart = performance.now();
}

function drawClocks() {
  const g = B.game;
  const show = !!(g && g.clock);
  for (const id of ['#clock-top', '#clock-bottom']) $(id).classList.toggle('hidden', !show);
  if (!show) return;
  const top = B.flip ? 'white' : 'black', bottom = B.flip ? 'black' : 'white';
  const f = (ms) => { ms = Math.max(0, ms); const s = Math.ceil(ms / 100) / 10; const m = Math.floor(s / 60); return `${m}:${(s - 60 * m).toFixed(1).padStart(4, '0')}`; };
  const toMove = lastOfGame().pos ? lastOfGame().pos.side : '';
  for (const [id, c] of [['#clock-top', top], ['#clock-bottom', bottom]]) {
    const ms = left(c);
    const who = c === g.side ? 'you' : 'engine';
    $(id).textContent = `${c} (${who}) ${f(ms)}`;
    $(id).dataset.ms = String(Math.round(ms));
    $(id).classList.toggle('run', !g.over && toMove === c);
    $(id).classList.toggle('flag', ms <= 0);
  }
}

function endGame(result, why) {
  const g = B.game;
  if (!g || g.over) return;
  g.over = `${result} (${why})`;
  g.result = result;
  g.reason = why;
  if (g.timer) { clearInterval(g.timer); g.timer = null; }
  $('#p-status').dataset.result = result;
  drawClocks();
  say(`Game over: ${g.over}`);
}

function finishIfOver() {
  const p = lastOfGame().pos, g = B.game;
  if (g && p.over && !g.over) endGame(p.result, p.reason);
}

async function engineMove() {
  const g = B.game, f = form();
  const at = B.cur, engineSide = at.pos.side;
  const wasOn = B.on;
  if (wasOn) stopAnalysis(true); // the engine's search has the core
  B.busy = true;
  say('engine thinking…');
  const body = {start: B.start, moves: movesTo(at), model: f.model};
  if (f.by === 'visits') body.visits = f.visits;
  else if (f.by === 'time') body.ms = f.ms;
  else if (g && g.clock) { body.left_ms = Math.max(1, Math.round(g.clock[engineSide])); body.inc_ms = Math.round(g.inc); body.visits = 0; }
  else body.visits = f.visits; // no game clock: by visits
  if (g && g.drawOffer) { body.draw_offer = true; g.drawOffer = false; }
  try {
    const r = await api('api/engine', body);
    if (g && g.over) return; // flagged or resigned meanwhile
    if (g) clockMoved(engineSide, r.ms);
    if (g && g.over) return;
    const wdl = `engine's (${engineSide}) W/D/L ${r.wdl.map((x) => fmt(x, 2)).join('/')}`;
    if (r.draw === 'accepted') {
      endGame('1/2-1/2', 'draw agreed');
      say(`The engine accepts the draw (${wdl}). Game over: 1/2-1/2`);
      return;
    }
    at.white = toWhite(engineSide, r.wdl); // the engine's search, on the graph
    let kid = at.kids.find((k) => k.move === r.move);
    if (!kid) { // in a game the main line; analysing, a new branch where there are moves
      kid = newNode(r.move, at);
      kid.pos = r.position;
      if (g) at.kids.unshift(kid); else at.kids.push(kid);
    }
    B.busy = false;
    await goTo(kid);
    finishIfOver();
    const note = r.draw === 'declined' ? 'declines the draw and ' : '';
    if (g) g.note = `engine ${note}played ${r.move} (${r.visits} visits, ${r.ms} ms; ${wdl}); `;
    say((g ? '' : `engine played ${r.move} (${r.visits} visits, ${r.ms} ms; ${wdl}); `) + statusText());
    $('#p-status').dataset.reply = r.move;
    $('#p-status').dataset.ply = String(plyOf(kid));
  } finally {
    B.busy = false;
    if (wasOn && !(g && g.over)) startAnalysis();
  }
}

async function takeback() {
  if (B.busy) return;
  const g = B.game;
  let n = lastOfGame();
  if (!n.move) return;
  // Back to the position before your last move (analysing: one move).
  n = n.parent;
  if (g) while (n.parent && (await position(n)).side !== g.side) n = n.parent;
  await position(n);
  n.kids.splice(0); // the taken-back moves go
  if (g) { g.over = ''; g.result = ''; g.note = ''; $('#p-status').dataset.result = ''; startClock(); }
  await goTo(n);
}

$('#p-new').onclick = () => newGame('').catch(boardError);
$('#p-takeback').onclick = () => takeback().catch(boardError);
$('#p-resign').onclick = () => { const g = B.game; if (g && !g.over) endGame(g.side === 'white' ? '0-1' : '1-0', `${g.side} resigned`); };
$('#p-draw').onclick = () => {
  const g = B.game;
  if (!g || g.over) return;
  g.drawOffer = true;
  say('draw offered: the engine answers on its move');
  if (lastOfGame().pos.side !== g.side && !B.busy) engineMove().catch(boardError);
};
$('#p-engine').onclick = () => engineMove().catch(boardError);
$('#b-flip').onclick = () => { B.flip = !B.flip; drawAll(); };
$('#b-first').onclick = () => goTo(B.root).catch(boardError);
$('#b-prev').onclick = () => B.cur.parent && goTo(B.cur.parent).catch(boardError);
$('#b-next').onclick = () => B.cur.kids[0] && goTo(B.cur.kids[0]).catch(boardError);
$('#b-last').onclick = () => goTo(lineFrom(B.cur).pop()).catch(boardError);

// The arrow keys step through the tree as the buttons do.
document.addEventListener('keydown', (e) => {
  if (location.hash !== '#play' || (e.target.closest && e.target.closest('input, textarea, select'))) return;
  const b = {ArrowLeft: '#b-prev', ArrowRight: '#b-next', Home: '#b-first', End: '#b-last'}[e.key];
  if (b) { e.preventDefault(); $(b).click(); }
});

function setMode(mode) {
  B.mode = mode;
  for (const e of document.querySelectorAll('.play-only')) e.classList.toggle('hidden', mode !== 'play');
  if (mode === 'play') newGame(B.cur.pos.over ? '' : B.cur.pos.fen).catch(boardError); // from the shown position
  else {
    if (B.game && B.game.timer) clearInterval(B.game.timer);
    B.game = null;
    drawAll();
  }
}
for (const r of document.querySelectorAll('#play-form input[name=mode]')) r.addEventListener('change', (e) => setMode(e.target.value));

// ---- PDN and import ----

async function savePDN() {
  const body = {start: B.start, moves: mainLine().map((n) => n.move), variations: variationsOf(mainLine(), false)};
  if (B.game && B.game.result && !lastOfGame().pos.over) { body.result = B.game.result; body.reason = B.game.reason; }
  const text = await api('api/pdn', body);
  $('#p-pdntext').textContent = text;
  const a = el('a', {href: URL.createObjectURL(new Blob([text], {type: 'application/x-pdn'})), download: 'dama-web.pdn'});
  a.click();
  URL.revokeObjectURL(a.href);
}
$('#p-pdn').onclick = () => savePDN().catch(boardError);

$('#import-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const fd = new FormData(e.target);
  try {
    const g = await api('api/import', {text: fd.get('text'), game: +fd.get('game') || 0});
    if (B.mode === 'play') { $('#play-form input[value=analyse]').checked = true; setMode('analyse'); }
    await loadGame(g.start, g.moves);
    $('#import-note').textContent = `imported game ${g.game} of ${g.games}: ${g.moves.length} moves, ${g.result}` + (g.tags.length ? ` (${g.tags.map((t) => t[1]).filter((v) => v && v !== '?').slice(0, 3).join(', ')})` : '');
  } catch (err) { $('#import-note').textContent = 'import: ' + err.message; }
});

// A game of the games page, analysed here: a self-play game brings its
// stored search values for the eval graph.
$('#r-analyse').onclick = async (e) => {
  e.preventDefault();
  const g = replay.game;
  if (!g) return;
  const whites = g.stats ? g.plies.map((p) => p.wdl ? toWhite(p.side, p.wdl) : null) : null;
  location.hash = '#play';
  if (B.mode === 'play') { $('#play-form input[value=analyse]').checked = true; setMode('analyse'); }
  await loadGame(g.start_fen, g.plies.map((p) => p.move), whites).catch(boardError);
  if (whites && g.winner) { const last = lineFrom(B.root).pop(); last.white = g.winner === 'white' ? 1 : g.winner === 'black' ? 0 : 0.5; drawGraph(); }
};

// Leaving the page or the tab ends the streams.
window.addEventListener('hashchange', () => { if (location.hash !== '#play') { stopAnalysis(false); stopEvaluation(); } });

async function boardStart() {
  const m = await api('api/models');
  $('#play-form select[name=model]').replaceChildren(...m.models.map((x) => el('option', {}, x)));
  await loadGame('', []);
}
boardStart().catch(boardError);
