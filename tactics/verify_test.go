package tactics

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"dama/arena/classic"
	"dama/internal/evaltest"
	"dama/mcts"
	"dama/rules"
)

// TestVerifier: on the project suite's first positions the verifier at
// the proving depth replaces the shallow search's move by the best one
// and keeps the best one; its counts say so.
func TestVerifier(t *testing.T) {
	s, v := suiteVerifier(t)
	const n = 6
	for i, p := range s.Positions[:n] {
		pos, best, shallow := suiteEntry(t, p)
		g := rules.NewGame(pos)
		if m, err := v.CheckMove(context.Background(), g, shallow, 0); err != nil || m != best[0] {
			t.Errorf("position %d (%s): %s checked gives %s (%v), want %s", i+1, p.FEN, shallow, m, err, best[0])
		}
		if m, err := v.CheckMove(context.Background(), g, best[0], 0); err != nil || m != best[0] {
			t.Errorf("position %d (%s): the best move %s checked gives %s (%v)", i+1, p.FEN, best[0], m, err)
		}
	}
	if st := v.Stats(); st.Checked != 2*n || st.Replaced != n || st.Nodes == 0 || st.MeanDepth < 1 {
		t.Errorf("stats %+v, want %d checked, %d replaced", st, 2*n, n)
	}
}

// projectSuite is the project's tactics suite, read and checked by
// package tactics/suite; the verifier's tests take its positions as
// fixtures (that package imports this one, so these tests read the file
// themselves).
const projectSuite = "../arena/tactics/suite.json"

// suiteFixture is what the verifier's tests read of a suite file.
type suiteFixture struct {
	ProvingDepth int             `json:"proving_depth"`
	Positions    []suitePosition `json:"positions"`
}

// suitePosition is what they read of one of its positions: the best move
// that the proving search found and the shallow search missed, and its
// score (classic's scale).
type suitePosition struct {
	FEN     string   `json:"fen"`
	Best    []string `json:"best"`
	Score   int      `json:"score"`
	Shallow string   `json:"shallow"`
}

// readProjectSuite reads the project suite's positions.
func readProjectSuite(t *testing.T) suiteFixture {
	t.Helper()
	b, err := os.ReadFile(projectSuite)
	if err != nil {
		t.Fatal(err)
	}
	var s suiteFixture
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Positions) < 8 || s.ProvingDepth < 1 {
		t.Fatalf("%s: %d positions, proving depth %d: want at least 8 and a depth", projectSuite, len(s.Positions), s.ProvingDepth)
	}
	return s
}

// suiteVerifier returns the project suite and a verifier of its proving
// depth.
func suiteVerifier(t *testing.T) (suiteFixture, *Verifier) {
	t.Helper()
	s := readProjectSuite(t)
	v, err := NewVerifier(s.ProvingDepth)
	if err != nil {
		t.Fatal(err)
	}
	return s, v
}

// suiteEntry parses a suite entry: its position, best moves and the
// shallow search's move.
func suiteEntry(t *testing.T, p suitePosition) (rules.Position, []rules.Move, rules.Move) {
	t.Helper()
	pos, err := rules.ParseFEN(p.FEN)
	if err != nil {
		t.Fatal(err)
	}
	var best []rules.Move
	for _, s := range p.Best {
		m, err := rules.ParseMove(pos, s)
		if err != nil {
			t.Fatalf("%s: best move: %v", p.FEN, err)
		}
		best = append(best, m)
	}
	if len(best) == 0 {
		t.Fatalf("%s: no best move", p.FEN)
	}
	shallow, err := rules.ParseMove(pos, p.Shallow)
	if err != nil {
		t.Fatal(err)
	}
	return pos, best, shallow
}

// Quiet is what its comment says, checked against the move generator on
// the positions of random games: no move of the side to move captures, no
// reply to any of its moves does, and the other side, were it to move,
// could not capture either.
func TestQuiet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	var quiet, near int
	for game := 0; game < 60; game++ {
		g := rules.NewGame(rules.Start())
		for !g.Outcome().Over() && g.Ply() < 200 {
			p := g.Position()
			moves := p.Legal(nil)
			want := true
			for _, m := range moves {
				if m.IsCapture() {
					want = false
				}
				for _, r := range p.Play(m).Legal(nil) {
					if r.IsCapture() {
						want = false
					}
				}
			}
			if want {
				// The other side to move: the same pieces, the other
				// colour's turn.
				other, err := rules.ParseFEN(otherSide(p.FEN()))
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range other.Legal(nil) {
					if m.IsCapture() {
						want = false
					}
				}
			}
			if got := Quiet(p); got != want {
				t.Fatalf("%s: Quiet %v, want %v", p.FEN(), got, want)
			}
			if want {
				quiet++
			} else {
				near++
			}
			g.PlayUnchecked(moves[rng.IntN(len(moves))])
		}
	}
	if quiet == 0 || near == 0 {
		t.Errorf("%d quiet positions and %d with a capture near: want both", quiet, near)
	}
}

// otherSide returns fen with the other side to move.
func otherSide(fen string) string {
	if fen[0] == 'W' {
		return "B" + fen[1:]
	}
	return "W" + fen[1:]
}

func TestVerifierShareAndDepth(t *testing.T) {
	v, err := NewVerifier(8)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.TimeShare(rules.Start()); got != DefaultVerifyQuietShare {
		t.Errorf("start position (quiet): share %v, want the quiet share %v", got, DefaultVerifyQuietShare)
	}
	// The first position of a random game where a capture is near.
	rng := rand.New(rand.NewPCG(5, 0))
	g0 := rules.NewGame(rules.Start())
	for Quiet(g0.Position()) {
		moves := g0.Legal(nil)
		g0.PlayUnchecked(moves[rng.IntN(len(moves))])
	}
	if got := v.TimeShare(g0.Position()); got != DefaultVerifyShare {
		t.Errorf("%s (not quiet): share %v, want %v", g0.Position().FEN(), got, DefaultVerifyShare)
	}
	kings, err := rules.ParseFEN("W:WK6,21:B9,10")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.TimeShare(kings); got != DefaultVerifyKingShare {
		t.Errorf("%s: share %v, want the king share %v", kings.FEN(), got, DefaultVerifyKingShare)
	}
	for _, d := range []int{0, -1, classic.MaxDepth + 1} {
		if _, err := NewVerifier(d); err == nil {
			t.Errorf("depth %d accepted", d)
		}
	}
	g := rules.NewGame(rules.Start())
	foreign, err := rules.ParseFEN("B:W9,K25:B2,K21,K22")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.CheckMove(context.Background(), g, foreign.Legal(nil)[0], 0); err == nil {
		t.Error("an illegal move was checked without an error")
	}
}

// lineJudge is an evaluator for a Verifier's Judge: it values the end of
// one line (want) at +0.5 for the verifying side and the end of another
// (other) at -0.5, every other position at 0, and counts its calls.
type lineJudge struct {
	side        rules.Color
	want, other rules.Position
	calls       int
}

func (j *lineJudge) Evaluate(_ context.Context, q mcts.Query, e *mcts.Evaluation) error {
	j.calls++
	for i := range e.Priors {
		e.Priors[i] = 1 / float32(len(e.Priors))
	}
	v := float32(0)
	switch q.Pos {
	case j.want:
		v = 0.5
	case j.other:
		v = -0.5
	}
	if q.Pos.Side() != j.side {
		v = -v
	}
	e.WDL = [3]float32{(1 + v) / 2 * 0.8, 0.2, (1 - v) / 2 * 0.8}
	return nil
}

// lineEnd plays line from g's position and returns where it ends.
func lineEnd(t *testing.T, g *rules.Game, line []rules.Move) rules.Position {
	t.Helper()
	p := g.Position()
	for _, m := range line {
		if !slices.Contains(p.Legal(nil), m) {
			t.Fatalf("line %v: %s not legal in %s", line, m, p.FEN())
		}
		p = p.Play(m)
	}
	return p
}

// TestVerifierJudge: with a Judge, a replacement that is not a forced
// result stands only where the judge values the end of its line more
// than the end of the chosen move's line (both lines as the reference
// engine gives them, each end valued for its own side to move); a forced
// win stands whatever the judge says.
func TestVerifierJudge(t *testing.T) {
	s := readProjectSuite(t)
	var decisive, judged int
	for i, p := range s.Positions[:8] {
		pos, best, shallow := suiteEntry(t, p)
		g := rules.NewGame(pos)
		// The lines the verifier will see: a fresh engine searches as the
		// verifier's fresh one does.
		verdict, err := classic.New(classic.Options{TableMiB: verifyTableMiB}).Verify(context.Background(), g, shallow, DefaultVerifyMargin, classic.Limits{Depth: s.ProvingDepth})
		if err != nil || !verdict.Replaced || verdict.Move != best[0] {
			t.Fatalf("position %d: verdict %+v, %v", i+1, verdict, err)
		}
		if verdict.PV[0] != best[0] || verdict.HeldPV[0] != shallow {
			t.Fatalf("position %d: lines %v (replacement) and %v (held), want them to start with %s and %s", i+1, verdict.PV, verdict.HeldPV, best[0], shallow)
		}
		forced := classic.Decisive(verdict.Score) || classic.Decisive(verdict.Held)
		ends := [2]rules.Position{lineEnd(t, g, verdict.PV), lineEnd(t, g, verdict.HeldPV)}
		for _, prefer := range []int{0, 1} {
			j := &lineJudge{side: pos.Side(), want: ends[prefer], other: ends[1-prefer]}
			v, err := NewVerifier(s.ProvingDepth)
			if err != nil {
				t.Fatal(err)
			}
			v.Judge = j
			m, err := v.CheckMove(context.Background(), g, shallow, 0)
			want := best[0]
			if !forced && prefer == 1 {
				want = shallow
			}
			if err != nil || m != want {
				t.Errorf("position %d (%s), judge prefers line %d: %s checked gives %s (%v), want %s", i+1, p.FEN, prefer, shallow, m, err, want)
			}
			st := v.Stats()
			switch {
			case forced && (j.calls != 0 || st.Replaced != 1):
				t.Errorf("position %d: a forced result asked the judge %d times, stats %+v", i+1, j.calls, st)
			case !forced && (j.calls != 2 || st.Replaced+st.Vetoed != 1 || (st.Vetoed == 1) != (prefer == 1)):
				t.Errorf("position %d: judge asked %d times, stats %+v", i+1, j.calls, st)
			}
		}
		if forced {
			decisive++
		} else {
			judged++
		}
	}
	if decisive == 0 || judged == 0 {
		t.Errorf("%d forced and %d judged positions: the test wants both", decisive, judged)
	}
}

// TestVerifierClock: the budget of a check is kept by the Verifier's
// Clock: a clock whose every reading is 40 minutes later than the last
// ends each check after its first iterations, where the wall clock and
// the same budget let it reach its full depth.
func TestVerifierClock(t *testing.T) {
	g := rules.NewGame(rules.Start())
	shallow := g.Legal(nil)[0]
	const depth = 8
	wall, err := NewVerifier(depth)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := NewVerifier(depth)
	if err != nil {
		t.Fatal(err)
	}
	var now time.Time
	fast.SetClock(func() time.Time { now = now.Add(40 * time.Minute); return now })
	for _, v := range []*Verifier{wall, fast} {
		if _, err := v.CheckMove(context.Background(), g, shallow, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if got := wall.Stats().MeanDepth; got != depth {
		t.Errorf("with the wall clock and an hour the check reached depth %v, want %d", got, depth)
	}
	if got := fast.Stats().MeanDepth; got >= depth/2 {
		t.Errorf("with a clock that passes 40 minutes a reading the check reached depth %v, want < %d", got, depth/2)
	}
}

// TestAhead: the balance after the pending captures decides, a man is the
// margin, and a side without moves is not ahead.
func TestAhead(t *testing.T) {
	for _, tc := range []struct {
		fen  string
		want bool
	}{
		{rules.StartFEN, false},
		{"W:W21,22:B1", true},                            // a man up, nothing to take
		{"B:W21,22:B1", false},                           // the same for the side a man down
		{"W:WK21:B1", false},                             // a king against a man: half a man
		{"W:WK21,K22:B1", true},                          // two kings against a man
		{"W:W22,28:B18", true},                           // 22x13 leaves Black without a move: won
		{"W:W22:B18,1", false},                           // a man down, and 22x13 evens it
		{"B:W14,20,23,25,30,32:B1,2,3,7,8,11,26", false}, // a man up, but 11x18 is answered and it ends even
	} {
		p, err := rules.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		if got := Ahead(p, DefaultVerifyMargin); got != tc.want {
			t.Errorf("%s: Ahead %v, want %v (quiesced balance %d)", tc.fen, got, tc.want, Settled(p))
		}
	}
}

// TestVerifierAheadOnly: with AheadOnly the verifier checks the suite's
// positions where the side to move is ahead, as without it, and leaves
// the others to the tree: no share of a timed move, no search, the chosen
// move kept.
func TestVerifierAheadOnly(t *testing.T) {
	s, v := suiteVerifier(t)
	v.AheadOnly = true
	var ahead, behind int
	for i, p := range s.Positions {
		pos, best, shallow := suiteEntry(t, p)
		isAhead := Ahead(pos, v.Margin)
		if isAhead {
			if ahead++; ahead > 3 {
				continue // a few searches are enough
			}
		} else {
			behind++
		}
		before := v.Stats().Checked
		m, err := v.CheckMove(context.Background(), rules.NewGame(pos), shallow, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked := v.Stats().Checked - before
		if isAhead {
			if m != best[0] || checked != 1 || v.TimeShare(pos) == 0 {
				t.Errorf("position %d (%s), ahead: %s checked gives %s (%d searches, share %v), want %s", i+1, p.FEN, shallow, m, checked, v.TimeShare(pos), best[0])
			}
		} else {
			if m != shallow || checked != 0 || v.TimeShare(pos) != 0 {
				t.Errorf("position %d (%s), not ahead: %s checked gives %s (%d searches, share %v), want it kept unchecked", i+1, p.FEN, shallow, m, checked, v.TimeShare(pos))
			}
		}
	}
	if ahead == 0 || behind == 0 {
		t.Errorf("the suite has %d positions ahead and %d not: want some of both", ahead, behind)
	}
}

// TestVerifierProofOnly: with ProofOnly a replacement stands only as a
// forced result. In the suite's forced wins where the side to move is
// ahead, the verifier replaces the shallow search's move by the proven
// win; where the best move only wins material, it turns the replacement
// down and keeps the shallow move (the shallow move is not a forced loss
// in those positions, or its replacement would stand).
func TestVerifierProofOnly(t *testing.T) {
	s, v := suiteVerifier(t)
	v.AheadOnly, v.ProofOnly = true, true
	var wins, material int
	for i, p := range s.Positions {
		pos, best, shallow := suiteEntry(t, p)
		if !Ahead(pos, v.Margin) {
			continue
		}
		won := classic.Decisive(p.Score)
		if won && wins >= 3 || !won && material >= 3 {
			continue // a few searches of each are enough
		}
		before := v.Stats()
		m, err := v.CheckMove(context.Background(), rules.NewGame(pos), shallow, 0)
		if err != nil {
			t.Fatal(err)
		}
		after := v.Stats()
		switch {
		case won:
			wins++
			if m != best[0] || after.Replaced != before.Replaced+1 {
				t.Errorf("position %d (%s), a forced win: %s checked gives %s, want the proven win %s", i+1, p.FEN, shallow, m, best[0])
			}
		case m == shallow:
			material++
			if after.Vetoed != before.Vetoed+1 || after.Replaced != before.Replaced {
				t.Errorf("position %d (%s), wins material: %s kept, but %d vetoed and %d replaced; want one veto", i+1, p.FEN, shallow, after.Vetoed-before.Vetoed, after.Replaced-before.Replaced)
			}
		default:
			t.Errorf("position %d (%s), wins material: %s replaced by %s without a proof", i+1, p.FEN, shallow, m)
		}
	}
	if wins < 3 || material < 3 {
		t.Errorf("%d forced wins and %d material wins checked where ahead: want 3 of each", wins, material)
	}
}

// The spare verifier ("abs") takes no share of a timed move anywhere, and
// the time the tree leaves everywhere (with AheadOnly, only where the side
// to move is ahead); it replaces only by a forced result.
func TestVerifierSpare(t *testing.T) {
	h, err := ParseHybrids("abs9")
	if err != nil {
		t.Fatal(err)
	}
	var opt mcts.Options
	if _, _, err := h.Apply(&opt, evaltest.Material{Steep: 1}); err != nil {
		t.Fatal(err)
	}
	v, ok := opt.Check.(*Verifier)
	if !ok {
		t.Fatalf("abs9: the check is %T, want a *Verifier", opt.Check)
	}
	var _ mcts.SpareCheck = v
	if v.Depth != 9 || !v.Spare || !v.ProofOnly || v.AheadOnly || v.Judge != nil {
		t.Fatalf("abs9: %+v, want depth 9, Spare and ProofOnly", v)
	}
	for _, fen := range []string{rules.StartFEN, "W:WK6,21:B9,10", "W:W21,22:B1", "B:W21,22:B1"} {
		p, err := rules.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		if f := v.TimeShare(p); f != 0 {
			t.Errorf("%s: share %v, want 0", fen, f)
		}
		if !v.SpareTime(p) {
			t.Errorf("%s: no spare time, want it everywhere", fen)
		}
		v.AheadOnly = true
		if got, want := v.SpareTime(p), Ahead(p, v.Margin); got != want {
			t.Errorf("%s, ahead only: spare time %v, want %v", fen, got, want)
		}
		v.AheadOnly = false
	}
	plain, _ := NewVerifier(9)
	if plain.SpareTime(rules.Start()) {
		t.Error("a plain verifier takes spare time")
	}
}
