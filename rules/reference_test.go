package rules

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// This file holds a slow reference move generator written directly from the
// rule text on an 8x8 array, independent of the bitboard generator, and a
// test that compares the two on many random positions.

type refSeq struct {
	path []Square // start, then each landing square
	caps []Square // captured squares in order
	king bool     // the moving piece is a king
	nk   int      // kings captured
	kord []bool   // kord[i]: the i-th captured piece is a king
}

// refLegal returns the legal moves of p as keys "from>to:captured squares"
// mapped to every full-notation path that plays that move.
func refLegal(p Position) map[string][]string {
	var seqs []refSeq
	me := p.Side()
	for s := Square(1); s <= NumSquares; s++ {
		pc := p.At(s)
		if pc == Empty || pc.Color() != me {
			continue
		}
		refJumps(p, pc, s, []Square{s}, nil, nil, &seqs)
	}
	out := map[string][]string{}
	if len(seqs) > 0 {
		// FID keys, in order.
		better := func(a, b refSeq) int { // >0 when a is better
			if len(a.caps) != len(b.caps) {
				return len(a.caps) - len(b.caps)
			}
			if a.king != b.king {
				if a.king {
					return 1
				}
				return -1
			}
			if a.nk != b.nk {
				return a.nk - b.nk
			}
			for i := range a.kord {
				if a.kord[i] != b.kord[i] {
					if a.kord[i] {
						return 1
					}
					return -1
				}
			}
			return 0
		}
		best := seqs[0]
		for _, q := range seqs[1:] {
			if better(q, best) > 0 {
				best = q
			}
		}
		for _, q := range seqs {
			if better(q, best) == 0 {
				caps := slices.Clone(q.caps)
				slices.Sort(caps)
				k := fmt.Sprintf("%d>%d:%v", q.path[0], q.path[len(q.path)-1], caps)
				var parts []string
				for _, s := range q.path {
					parts = append(parts, s.String())
				}
				out[k] = append(out[k], strings.Join(parts, "x"))
			}
		}
		return out
	}
	for s := Square(1); s <= NumSquares; s++ {
		pc := p.At(s)
		if pc == Empty || pc.Color() != me {
			continue
		}
		for _, d := range refDirs(pc) {
			t, ok := refStep(s, d[0], d[1])
			if ok && p.At(t) == Empty {
				k := fmt.Sprintf("%d>%d:[]", s, t)
				out[k] = append(out[k], s.String()+"-"+t.String())
			}
		}
	}
	return out
}

// refDirs returns the (row, file) directions pc moves and captures in.
func refDirs(pc Piece) [][2]int {
	switch pc {
	case WhiteMan:
		return [][2]int{{-1, -1}, {-1, 1}}
	case BlackMan:
		return [][2]int{{1, -1}, {1, 1}}
	}
	return [][2]int{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}}
}

// refStep returns the square n steps from s in direction (dr, df).
func refStep(s Square, dr, df int) (Square, bool) {
	r, f := s.Row()+dr, s.File()+df
	if r < 0 || r > 7 || f < 0 || f > 7 {
		return 0, false
	}
	return Square(4*r + f/2 + 1), true
}

// refJumps extends a capture sequence of pc, now on the last square of path.
// Captured pieces stay on the board until the move ends: they are never
// jumped again and never landed on. The start square is empty.
func refJumps(p Position, pc Piece, from Square, path, caps []Square, kord []bool, out *[]refSeq) {
	cur := path[len(path)-1]
	extended := false
	for _, d := range refDirs(pc) {
		over, ok1 := refStep(cur, d[0], d[1])
		land, ok2 := refStep(cur, 2*d[0], 2*d[1])
		if !ok1 || !ok2 {
			continue
		}
		op := p.At(over)
		if op == Empty || op.Color() == pc.Color() || slices.Contains(caps, over) {
			continue
		}
		if !pc.IsKing() && op.IsKing() {
			continue
		}
		if land != from && p.At(land) != Empty {
			continue
		}
		extended = true
		np := append(slices.Clone(path), land)
		nc := append(slices.Clone(caps), over)
		nk := append(slices.Clone(kord), op.IsKing())
		crowned := !pc.IsKing() && ((pc == WhiteMan && land.Row() == 0) || (pc == BlackMan && land.Row() == 7))
		if crowned {
			refEmit(pc, np, nc, nk, out)
			continue
		}
		refJumps(p, pc, from, np, nc, nk, out)
	}
	if !extended && len(caps) > 0 {
		refEmit(pc, path, caps, kord, out)
	}
}

func refEmit(pc Piece, path, caps []Square, kord []bool, out *[]refSeq) {
	n := 0
	for _, k := range kord {
		if k {
			n++
		}
	}
	*out = append(*out, refSeq{path: path, caps: caps, king: pc.IsKing(), nk: n, kord: kord})
}

// moveKey is the refLegal key of a generated move.
func moveKey(m Move) string {
	return fmt.Sprintf("%d>%d:%v", m.From(), m.To(), m.Captured().Squares())
}

// randomPosition places random pieces: up to nw white and nb black, each a
// king with probability pk, with the side to move random.
func randomPosition(rng *rand.Rand, nw, nb int, pk float64) Position {
	var board [NumSquares]Piece
	place := func(n int, man, king Piece, crown int) {
		for range n {
			s := rng.IntN(NumSquares)
			if board[s] != Empty {
				continue
			}
			pc := man
			if rng.Float64() < pk || Square(s+1).Row() == crown {
				pc = king
			}
			board[s] = pc
		}
	}
	place(1+rng.IntN(nw), WhiteMan, WhiteKing, 0)
	place(1+rng.IntN(nb), BlackMan, BlackKing, 7)
	return NewPosition(board, Color(rng.IntN(2)))
}

// diffLegal compares Legal with the reference generator and describes the
// first difference ("" when they agree).
func diffLegal(p Position) string {
	ref := refLegal(p)
	got := p.Legal(nil)
	seen := map[string]bool{}
	for _, m := range got {
		k := moveKey(m)
		if seen[k] {
			return fmt.Sprintf("%s: Legal gives %s twice (key %s)", p.FEN(), m, k)
		}
		seen[k] = true
		paths, ok := ref[k]
		if !ok {
			return fmt.Sprintf("%s: Legal gives %s, which the rules do not allow; want %v", p.FEN(), m, ref)
		}
		if !slices.Contains(paths, m.String()) {
			return fmt.Sprintf("%s: Legal gives path %s, not a path of that move; want one of %v", p.FEN(), m, paths)
		}
	}
	for k, paths := range ref {
		if !seen[k] {
			return fmt.Sprintf("%s: Legal misses %v; got %v", p.FEN(), paths, got)
		}
	}
	return ""
}

func TestLegalMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	for i := range n {
		// Mix sparse king endgames with crowded middlegames.
		var p Position
		switch i % 3 {
		case 0:
			p = randomPosition(rng, 12, 12, 0.1)
		case 1:
			p = randomPosition(rng, 6, 6, 0.5)
		default:
			p = randomPosition(rng, 16, 16, 0.3)
		}
		if d := diffLegal(p); d != "" {
			t.Fatal(d)
		}
	}
}
