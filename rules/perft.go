package rules

// Perft counts the distinct move sequences of the given depth from p, playing
// every move to the last ply. Perft(p, 0) is 1.
func Perft(p Position, depth int) uint64 { return perftRoot(p, depth, false) }

// PerftBulk is Perft that counts the moves at the last ply without playing
// them.
func PerftBulk(p Position, depth int) uint64 { return perftRoot(p, depth, true) }

func perftRoot(p Position, depth int, bulk bool) uint64 {
	if depth <= 0 {
		return 1
	}
	return perft(p, depth, moveBufs(depth), bulk)
}

// perft is Perft (or PerftBulk when bulk) with one move list per ply.
func perft(p Position, depth int, bufs [][]Move, bulk bool) uint64 {
	moves := p.Legal(bufs[depth-1])
	if depth == 1 {
		if !bulk {
			for _, m := range moves {
				_ = p.Play(m)
			}
		}
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		n += perft(p.Play(m), depth-1, bufs, bulk)
	}
	return n
}

// Divide returns the perft count under each legal move of p.
func Divide(p Position, depth int) ([]Move, []uint64) {
	moves := p.Legal(make([]Move, 0, MaxMoves))
	counts := make([]uint64, len(moves))
	for i, m := range moves {
		counts[i] = PerftBulk(p.Play(m), depth-1)
	}
	return moves, counts
}

// moveBufs returns one move list of capacity MaxMoves per ply of a search
// depth plies deep, so that generation does not allocate.
func moveBufs(depth int) [][]Move {
	bufs := make([][]Move, depth)
	for i := range bufs {
		bufs[i] = make([]Move, 0, MaxMoves)
	}
	return bufs
}
