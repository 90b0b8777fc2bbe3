// example.js: evaluate an Italian draughts position with an exported dama
// network in ONNX Runtime (onnxruntime-node), from a FEN and its legal
// moves. The network does not generate moves: get them from a move
// generator, e.g. `dama moves --fen FEN`.
//
//   node example.js MODEL.onnx FEN [--repetitions N] [--quiet N] MOVE...
//   node example.js dama.onnx "W:W21-32:B1-12" $(dama moves --fen "W:W21-32:B1-12")
//
// It prints one JSON line: {"wdl": [win, draw, loss], "priors": {"22-18": p, ...}}.
// --repetitions is how often the position occurred before in the game (0-2),
// --quiet the 40-move counter: plies of king moves without a capture since
// the last man move or capture (0-80).
'use strict';
const ort = require('onnxruntime-node');

// parseFEN reads "W:W21,22,K31:B1-12" into {side, board}, board[s] for the
// squares 1..32 one of 'w', 'W' (white man, king), 'b', 'B' or ''.
function parseFEN(fen) {
  const fields = fen.trim().replace(/\.$/, '').split(':');
  if (fields.length !== 3 || !/^[WB]$/.test(fields[0])) {
    throw new Error(`FEN ${JSON.stringify(fen)}: want SIDE:W...:B...`);
  }
  const board = new Array(33).fill('');
  for (const f of fields.slice(1)) {
    const colour = f[0].toLowerCase();
    if (colour !== 'w' && colour !== 'b') throw new Error(`FEN piece list ${f}: starts with W or B`);
    for (const tok of f.slice(1).split(',').filter((x) => x !== '')) {
      const king = tok[0] === 'K';
      const [a, b] = (king ? tok.slice(1) : tok).split('-').map((x) => parseInt(x, 10));
      for (let s = a; s <= (b || a); s++) {
        if (!(s >= 1 && s <= 32)) throw new Error(`FEN square ${tok}: squares are 1..32`);
        board[s] = king ? colour.toUpperCase() : colour;
      }
    }
  }
  return { side: fields[0].toLowerCase(), board };
}

// encode returns the [8,4,9] NHWC planes of the position, seen from the
// side to move (for Black square s becomes 33-s and the colours swap).
function encode(pos, repetitions, quiet) {
  const planes = new Float32Array(8 * 4 * 9);
  for (let s = 1; s <= 32; s++) {
    const src = pos.side === 'w' ? s : 33 - s; // real square shown at s in the mover's frame
    let piece = pos.board[src];
    if (pos.side === 'b' && piece !== '') {
      piece = piece === piece.toLowerCase() ? (piece === 'w' ? 'b' : 'w') : (piece === 'W' ? 'B' : 'W');
    }
    const px = (s - 1) * 9; // row (s-1)/4, column (s-1)%4: pixel s-1
    const plane = { w: 0, W: 1, b: 2, B: 3 }[piece];
    if (plane !== undefined) planes[px + plane] = 1;
    planes[px + 4] = repetitions >= 1 ? 1 : 0;
    planes[px + 5] = repetitions >= 2 ? 1 : 0;
    planes[px + 6] = Math.min(Math.max(quiet, 0), 80) / 80;
    planes[px + 7] = Math.floor((s - 1) / 4) % 2 === 0 ? 1 : 0;
    planes[px + 8] = 1;
  }
  return planes;
}

// policyIndex is the logit of a move in FID notation ("22-18", "31x22x13x6"):
// (from-1)*32 + (to-1), both squares in the mover's frame.
function policyIndex(move, side) {
  const sq = move.split(/[-x]/).map((x) => parseInt(x, 10));
  let from = sq[0];
  let to = sq[sq.length - 1];
  if (side === 'b') {
    from = 33 - from;
    to = 33 - to;
  }
  return (from - 1) * 32 + (to - 1);
}

async function main() {
  const args = process.argv.slice(2);
  let repetitions = 0;
  let quiet = 0;
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--repetitions') repetitions = parseInt(args[++i], 10);
    else if (args[i] === '--quiet') quiet = parseInt(args[++i], 10);
    else rest.push(args[i]);
  }
  const [modelPath, fen, ...moves] = rest;
  if (!fen || moves.length === 0) {
    throw new Error('usage: node example.js MODEL.onnx FEN [--repetitions N] [--quiet N] MOVE...');
  }
  const pos = parseFEN(fen);
  const session = await ort.InferenceSession.create(modelPath);
  const input = new ort.Tensor('float32', encode(pos, repetitions, quiet), [1, 8, 4, 9]);
  const out = await session.run({ planes: input });
  const logits = out.policy.data;
  // Softmax over the legal moves only; captures with the same start and
  // end share a logit and so get the same prior.
  const ls = moves.map((m) => logits[policyIndex(m, pos.side)]);
  const mx = Math.max(...ls);
  const ex = ls.map((l) => Math.exp(l - mx));
  const sum = ex.reduce((a, b) => a + b, 0);
  const priors = {};
  moves.forEach((m, i) => { priors[m] = ex[i] / sum; });
  process.stdout.write(JSON.stringify({ wdl: Array.from(out.wdl.data), priors }) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
