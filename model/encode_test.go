package model_test

import (
	"math/rand"
	"testing"

	"dama/model"
	"dama/model/modeltest"
	"dama/rules"
)

func TestEncodeStart(t *testing.T) {
	dst := make([]float32, model.InputSize)
	model.Encode(dst, rules.Start(), 0, 0)
	count := make([]int, model.NumPlanes)
	for p := 0; p < model.Squares; p++ {
		for c := 0; c < model.NumPlanes; c++ {
			if dst[p*model.NumPlanes+c] != 0 {
				count[c]++
			}
		}
	}
	want := []int{12, 0, 12, 0, 0, 0, 0, 16, 32}
	for c := range want {
		if count[c] != want[c] {
			t.Errorf("plane %d: %d non-zero squares, want %d", c, count[c], want[c])
		}
	}
	// White to move: own men on 21..32, i.e. rows 5..7.
	if dst[(31-1)*model.NumPlanes+model.PlaneOwnMen] != 1 || dst[(1-1)*model.NumPlanes+model.PlaneOppMen] != 1 {
		t.Errorf("own men not on 31 or opponent men not on 1")
	}
}

func TestEncodeHistoryPlanes(t *testing.T) {
	dst := make([]float32, model.InputSize)
	for _, tc := range []struct {
		rep, quiet int
		r1, r2, q  float32
	}{{0, 0, 0, 0, 0}, {1, 40, 1, 0, 0.5}, {2, 80, 1, 1, 1}, {5, 200, 1, 1, 1}} {
		model.Encode(dst, rules.Start(), tc.rep, tc.quiet)
		for p := 0; p < model.Squares; p++ {
			px := dst[p*model.NumPlanes:]
			if px[model.PlaneRepeated1] != tc.r1 || px[model.PlaneRepeated2] != tc.r2 || px[model.PlaneQuiet] != tc.q {
				t.Fatalf("rep %d quiet %d: square %d has planes %v, want %v %v %v", tc.rep, tc.quiet, p+1, px[model.PlaneRepeated1:model.PlaneQuiet+1], tc.r1, tc.r2, tc.q)
			}
		}
	}
}

// A position and its flip (board turned, colours and side swapped) look the
// same to the side to move, so their encodings are equal; and every move
// has the same policy index as its mirror.
func TestEncodeMoverFrame(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	a, b := make([]float32, model.InputSize), make([]float32, model.InputSize)
	var flipLegal []rules.Move
	for _, q := range modeltest.RandomPositions(rng, 300) {
		f := q.Pos.Flip()
		model.Encode(a, q.Pos, q.Repetitions, q.QuietPlies)
		model.Encode(b, f, q.Repetitions, q.QuietPlies)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s and its flip %s differ at input %d", q.Pos.FEN(), f.FEN(), i)
			}
		}
		flipLegal = f.Legal(flipLegal)
		for _, m := range q.Legal {
			found := false
			for _, fm := range flipLegal {
				if fm.From() == 33-m.From() && fm.To() == 33-m.To() {
					found = true
					if model.PolicyIndex(q.Pos, m) != model.PolicyIndex(f, fm) {
						t.Fatalf("%s: move %s has index %d, its mirror %s in the flip %d", q.Pos.FEN(), m, model.PolicyIndex(q.Pos, m), fm, model.PolicyIndex(f, fm))
					}
				}
			}
			if !found {
				t.Fatalf("%s: no mirror of %s in the flip", q.Pos.FEN(), m)
			}
		}
	}
}

// packed returns the image row and column of square s.
func packed(s rules.Square) (int, int) { return int(s-1) / model.Cols, int(s-1) % model.Cols }

// Every diagonal neighbour of every square falls inside the 3x3 window
// around it in the packed image, and which window offsets are diagonal
// depends only on the row parity (what the PlaneEvenRow plane tells the
// network): columns c-1 and c on even rows, c and c+1 on odd rows.
func TestWindowCoversDiagonals(t *testing.T) {
	wantOffsets := map[int][2]int{0: {-1, 0}, 1: {0, 1}}
	parityIsEven := make([]float32, model.InputSize)
	model.Encode(parityIsEven, rules.Position{}, 0, 0)
	for s := rules.Square(1); s <= 32; s++ {
		r, c := packed(s)
		if (parityIsEven[(int(s)-1)*model.NumPlanes+model.PlaneEvenRow] == 1) != (r%2 == 0) {
			t.Errorf("square %d: parity plane wrong for row %d", s, r)
		}
		n := 0
		for t2 := rules.Square(1); t2 <= 32; t2++ {
			dr, df := t2.Row()-s.Row(), t2.File()-s.File()
			if (dr != 1 && dr != -1) || (df != 1 && df != -1) {
				continue
			}
			n++
			r2, c2 := packed(t2)
			if r2-r != dr {
				t.Errorf("square %d: neighbour %d at image row %d, want %d", s, t2, r2, r+dr)
			}
			dc := c2 - c
			if dc < -1 || dc > 1 {
				t.Errorf("square %d: neighbour %d is %d columns away, outside the 3x3 window", s, t2, dc)
			}
			off := wantOffsets[r%2]
			if dc != off[0] && dc != off[1] {
				t.Errorf("square %d (row %d): neighbour %d at column offset %d, want %v for this parity", s, r, t2, dc, off)
			}
		}
		if n == 0 {
			t.Errorf("square %d: no diagonal neighbours", s)
		}
	}
	// Each parity occurs with neighbours above and below, so both are exercised.
}

func TestPolicyIndexRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	n := 0
	for _, q := range modeltest.RandomPositions(rng, 2000) {
		// Decode: index -> the set of legal moves with that index.
		sets := map[int][]rules.Move{}
		for _, m := range q.Legal {
			idx := model.PolicyIndex(q.Pos, m)
			if idx < 0 || idx >= model.PolicySize {
				t.Fatalf("%s: %s has index %d out of range", q.Pos.FEN(), m, idx)
			}
			sets[idx] = append(sets[idx], m)
		}
		for _, m := range q.Legal {
			idx := model.PolicyIndex(q.Pos, m)
			from, to := model.IndexSquares(q.Pos, idx)
			found := false
			for _, m2 := range sets[idx] {
				if m2.From() != from || m2.To() != to {
					t.Fatalf("%s: index %d decodes to %d-%d but holds %s", q.Pos.FEN(), idx, from, to, m2)
				}
				found = found || m2 == m
			}
			if !found {
				t.Fatalf("%s: %s not in the set of its index %d", q.Pos.FEN(), m, idx)
			}
			n++
		}
	}
	if n < 2000 {
		t.Fatalf("only %d moves checked", n)
	}
}

func TestPolicyIndexBlackFrame(t *testing.T) {
	p := rules.Start().Flip() // black to move, black men on 1..12 seen from White
	if p.Side() != rules.Black {
		t.Fatal("flip of the start should have black to move")
	}
	for _, m := range p.Legal(nil) {
		idx := model.PolicyIndex(p, m)
		if from := idx/32 + 1; from != 33-int(m.From()) {
			t.Errorf("%s: from %d in the mover's frame, want %d", m, from, 33-int(m.From()))
		}
	}
}

// Two men captures with the same start and end but different captured
// pieces share an index; PolicyTarget adds their targets.
func TestSharedIndex(t *testing.T) {
	p, err := rules.ParseFEN("W:W30:B18,19,26,27")
	if err != nil {
		t.Fatal(err)
	}
	legal := p.Legal(nil)
	if len(legal) != 2 {
		t.Fatalf("got moves %v, want the two captures 30x21x14 and 30x23x14", legal)
	}
	if model.PolicyIndex(p, legal[0]) != model.PolicyIndex(p, legal[1]) {
		t.Fatalf("%s and %s should share an index", legal[0], legal[1])
	}
	st := model.MeasureSharing([]rules.Position{p, rules.Start()})
	if st.SharedPositions != 1 || st.SharedMoves != 2 || st.Positions != 2 || st.Moves != 9 {
		t.Errorf("MeasureSharing = %+v, want 1 shared position, 2 shared moves of 9", st)
	}
	dst := make([]float32, model.PolicySize)
	mask := make([]float32, model.PolicySize)
	if err := model.PolicyTarget(dst, mask, p, legal, []float32{0.25, 0.75}, -1); err != nil {
		t.Fatal(err)
	}
	idx := model.PolicyIndex(p, legal[0])
	if dst[idx] != 1 || mask[idx] != 0 || mask[(idx+1)%model.PolicySize] != -1 {
		t.Errorf("target %v mask %v at the shared index, want 1 and 0", dst[idx], mask[idx])
	}
}

// TestSharingRate measures how often moves share an index in positions of
// random games (reported with -v).
func TestSharingRate(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	n := 20000
	if testing.Short() {
		n = 3000
	}
	var ps []rules.Position
	for _, q := range modeltest.RandomPositions(rng, n) {
		ps = append(ps, q.Pos)
	}
	st := model.MeasureSharing(ps)
	t.Logf("index sharing over %d random-game positions: %.4f%% of positions (%d), %.4f%% of %d moves (%d)",
		st.Positions, 100*st.PositionShare(), st.SharedPositions, 100*st.MoveShare(), st.Moves, st.SharedMoves)
	if st.Positions != len(ps) || st.SharedMoves < 2*st.SharedPositions {
		t.Errorf("inconsistent counts %+v", st)
	}
}
