package tb

import (
	"context"
	"fmt"

	"dama/rules"
)

// solve returns the codes of the signatures of one job: a signature and
// its colour twin (or one signature that is its own twin), whose king
// moves and man moves lead into each other. The tables of every signature
// their captures and promotions reach are in st.
func solve(ctx context.Context, sigs []Material, st *store) ([][]uint8, error) {
	var off [3]int64
	for i, m := range sigs {
		off[i+1] = off[i] + m.Size()
	}
	total := off[len(sigs)]
	if total >= 1<<32 {
		return nil, fmt.Errorf("tb: signature %s: %d positions, more than one job holds", sigs[0], total)
	}
	codes := make([]uint8, total)
	const hole = 255
	layer := make([]uint8, total)
	var perLayer [256]int
	for j, m := range sigs {
		for i := int64(0); i < m.Size(); i++ {
			g := off[j] + i
			s, ok := unindexSides(m, i)
			if !ok {
				layer[g] = hole
				continue
			}
			layer[g] = uint8(progress(s))
			perLayer[layer[g]]++
		}
	}
	// The points of each layer, in index order.
	var start [257]int
	for l := 0; l < 256; l++ {
		start[l+1] = start[l] + perLayer[l]
	}
	order := make([]uint32, start[hole])
	fill := start
	for g, l := range layer {
		if l != hole {
			order[fill[l]] = uint32(g)
			fill[l]++
		}
	}
	jobOf := func(m Material) int {
		for j, s := range sigs {
			if s == m {
				return j
			}
		}
		return -1
	}
	tables := map[Material][]uint8{}
	lookup := func(c rules.Position, cur uint8) (uint8, error) {
		s := sidesOf(c)
		m := s.material()
		if m.Men+m.Kings == 0 {
			return lossCode(0), nil // the side to move has no pieces
		}
		i := s.index(m)
		if j := jobOf(m); j >= 0 {
			g := off[j] + i
			if layer[g] >= cur {
				return 0, fmt.Errorf("tb: internal error: a man move of %s reaches layer %d from %d", sigs[0], layer[g], cur)
			}
			return codes[g], nil
		}
		t, ok := tables[m]
		if !ok {
			if t = st.get(m); t == nil {
				return 0, fmt.Errorf("tb: internal error: signature %s needs %s, not solved yet", sigs[0], m)
			}
			tables[m] = t
		}
		return t[i], nil
	}

	var (
		moves    = make([]rules.Move, 0, rules.MaxMoves)
		edgeOff  []uint32 // edges of layer point k: edges[edgeOff[k]:edgeOff[k+1]]
		edges    []uint32
		zeroWin  []bool // a man move or capture reaches a loss for the opponent
		zeroLose []bool // every man move or capture reaches a win for the opponent
		unres    []int32
	)
	for l := 0; l < hole; l++ {
		pts := order[start[l]:start[l+1]]
		if len(pts) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		edgeOff = append(edgeOff[:0], 0)
		edges = edges[:0]
		zeroWin = zeroWin[:0]
		zeroLose = zeroLose[:0]
		unres = unres[:0]
		for k, g := range pts {
			j := 0
			if int64(g) >= off[1] {
				j = 1
			}
			s, _ := unindexSides(sigs[j], int64(g)-off[j])
			p := s.position()
			moves = p.Legal(moves)
			win, lose := false, true
			if len(moves) == 0 {
				codes[g] = lossCode(0)
			} else {
				for _, mv := range moves {
					c := p.Play(mv)
					if p.Reversible(mv) {
						cs := sidesOf(c)
						cm := cs.material()
						cj := jobOf(cm)
						if cj < 0 {
							return nil, fmt.Errorf("tb: internal error: a king move of %s reaches %s", sigs[j], cm)
						}
						edges = append(edges, uint32(off[cj]+cs.index(cm)))
						continue
					}
					v, err := lookup(c, uint8(l))
					if err != nil {
						return nil, err
					}
					if isLoss(v) {
						win = true
					}
					if !isWin(v) {
						lose = false
					}
				}
				unres = append(unres, int32(k))
			}
			edgeOff = append(edgeOff, uint32(len(edges)))
			zeroWin = append(zeroWin, win)
			zeroLose = append(zeroLose, lose)
		}
		// Pass d resolves the points at distance d: a win has a move to
		// a loss at distance d-1 (or, for d = 1, a man move or capture to
		// a loss); a loss has every move to a win, the farthest at d-1.
		// Points resolved in pass d have distance d, so "at most d-1"
		// reads only earlier passes.
		for d := 1; d <= rules.QuietLimit && len(unres) > 0; d++ {
			keep := unres[:0]
			resolved := 0
			for _, k := range unres {
				g := pts[k]
				if d == 1 && zeroWin[k] {
					codes[g] = winCode(1)
					resolved++
					continue
				}
				won, lost, far := false, zeroLose[k], 0
				for _, c := range edges[edgeOff[k]:edgeOff[k+1]] {
					v := codes[c]
					if v == 0 || dist(v) > d-1 {
						lost = false
						continue
					}
					if isLoss(v) {
						won = true
						break
					}
					far = max(far, dist(v))
				}
				switch {
				case won:
					codes[g] = winCode(d)
				case lost:
					codes[g] = lossCode(far + 1)
				default:
					keep = append(keep, k)
					continue
				}
				resolved++
			}
			unres = keep
			if resolved == 0 {
				break
			}
		}
	}
	out := make([][]uint8, len(sigs))
	for j := range sigs {
		out[j] = codes[off[j]:off[j+1]]
	}
	return out, nil
}
