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
		local    = make([]int32, total) // the index in its layer of each point of the current layer
		edgeOff  []uint32               // the king moves of layer point k: edges[edgeOff[k]:edgeOff[k+1]]
		edges    []uint32               // their job indices
		zeroWin  []bool                 // a man move or capture reaches a loss for the opponent
		zeroLose []bool                 // every man move or capture reaches a win for the opponent
		left     []uint8                // king moves not yet known to reach a win for the opponent
		revOff   []uint32               // the points with a king move to layer point k: rev[revOff[k]:revOff[k+1]]
		rev      []int32
		front    []int32 // points resolved in the last pass
		next     []int32
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
		left = left[:0]
		front = front[:0]
		for k, g := range pts {
			local[g] = int32(k)
		}
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
				front = append(front, int32(k))
			}
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
			n := len(edges) - int(edgeOff[k])
			if n > 255 {
				return nil, fmt.Errorf("tb: internal error: %d king moves in %s", n, p.FEN())
			}
			edgeOff = append(edgeOff, uint32(len(edges)))
			zeroWin = append(zeroWin, win && len(moves) > 0)
			zeroLose = append(zeroLose, lose && len(moves) > 0)
			left = append(left, uint8(n))
		}
		// The king moves reversed: who reaches each point.
		revOff = append(revOff[:0], make([]uint32, len(pts)+1)...)
		for _, c := range edges {
			revOff[local[c]+1]++
		}
		for k := range pts {
			revOff[k+1] += revOff[k]
		}
		rev = append(rev[:0], make([]int32, len(edges))...)
		fill := append([]uint32(nil), revOff[:len(pts)]...)
		for k := range pts {
			for _, c := range edges[edgeOff[k]:edgeOff[k+1]] {
				lc := local[c]
				rev[fill[lc]] = int32(k)
				fill[lc]++
			}
		}
		// Pass d resolves the points at distance d from those of pass d-1
		// (front): a point with a king move to a loss at d-1 is a win at
		// d; a point whose last king move to a win is to one at d-1, its
		// man moves and captures all reaching wins, is a loss at d. Pass 1
		// also takes the wins by a man move or capture, and the losses
		// without king moves. Points unresolved after pass 80 are draws.
		for d := 1; d <= rules.QuietLimit; d++ {
			next = next[:0]
			if d == 1 {
				for k, g := range pts {
					if codes[g] != 0 {
						continue
					}
					if zeroWin[k] {
						codes[g] = winCode(1)
						next = append(next, int32(k))
					} else if zeroLose[k] && left[k] == 0 {
						codes[g] = lossCode(1)
						next = append(next, int32(k))
					}
				}
			}
			for _, c := range front {
				lost := isLoss(codes[pts[c]])
				for _, k := range rev[revOff[c]:revOff[c+1]] {
					g := pts[k]
					if codes[g] != 0 {
						continue
					}
					if lost {
						codes[g] = winCode(d)
						next = append(next, k)
						continue
					}
					left[k]--
					if left[k] == 0 && zeroLose[k] {
						codes[g] = lossCode(d)
						next = append(next, k)
					}
				}
			}
			if len(next) == 0 {
				break
			}
			front, next = next, front
		}
	}
	out := make([][]uint8, len(sigs))
	for j := range sigs {
		out[j] = codes[off[j]:off[j+1]]
	}
	return out, nil
}
