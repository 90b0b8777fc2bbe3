package rules

import "testing"

// perftStart is the reference perft of RULES.md (distinct moves from the
// start position), extended to depth 11.
var perftStart = []uint64{1, 7, 49, 302, 1469, 7361, 36473, 177532, 828783, 3860875, 17761384, 81647058}

func TestPerftStart(t *testing.T) {
	maxDepth := 11
	if testing.Short() {
		maxDepth = 9
	}
	p := Start()
	for d := 1; d <= maxDepth; d++ {
		var got uint64
		if d <= 8 {
			got = Perft(p, d) // plays every leaf, so Play is exercised too
		} else {
			got = PerftBulk(p, d)
		}
		if got != perftStart[d] {
			t.Fatalf("perft(%d) = %d, want %d", d, got, perftStart[d])
		}
	}
}

func TestPerftBulkMatchesPerft(t *testing.T) {
	for _, fen := range []string{StartFEN, "W:WK21,31:B10,18,27", "B:W18,22,23,K30:B6,7,K14,15", "W:WK10,K29:BK3,K14,K26"} {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		for d := 1; d <= 5; d++ {
			if a, b := Perft(p, d), PerftBulk(p, d); a != b {
				t.Errorf("%s depth %d: Perft %d, PerftBulk %d", fen, d, a, b)
			}
		}
	}
}

func TestDivideSumsToPerft(t *testing.T) {
	p := Start()
	moves, counts := Divide(p, 5)
	if len(moves) != 7 {
		t.Fatalf("Divide gave %d root moves, want 7", len(moves))
	}
	var sum uint64
	for _, c := range counts {
		sum += c
	}
	if sum != perftStart[5] {
		t.Errorf("sum of divide(5) = %d, want %d", sum, perftStart[5])
	}
}

func TestLegalDoesNotAllocate(t *testing.T) {
	p := Start()
	buf := make([]Move, 0, MaxMoves)
	allocs := testing.AllocsPerRun(100, func() {
		q := p
		for i := 0; i < 20; i++ {
			ms := q.Legal(buf)
			if len(ms) == 0 {
				break
			}
			q = q.Play(ms[i%len(ms)])
		}
	})
	if allocs != 0 {
		t.Errorf("Legal+Play allocated %.1f times per run, want 0", allocs)
	}
}
