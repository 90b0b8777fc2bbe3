package rules

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// playAll plays moves in notation, failing the test on any error.
func playAll(t *testing.T, g *Game, moves ...string) {
	t.Helper()
	for _, s := range moves {
		m, err := ParseMove(g.Position(), s)
		if err != nil {
			t.Fatalf("ParseMove(%s, %s): %v", g.Position().FEN(), s, err)
		}
		if err := g.Play(m); err != nil {
			t.Fatalf("Play(%s): %v", s, err)
		}
	}
}

// "Draw by threefold repetition: the same position with the same side to
// move for the third time."
func TestGameThreefoldRepetition(t *testing.T) {
	g := NewGame(mustFEN(t, "W:WK29:BK4"))
	cycle := []string{"29-25", "4-8", "25-29", "8-4"}
	playAll(t, g, cycle...)
	// The start position for the second time: not a draw yet.
	if got, want := g.Repetitions(), 1; got != want {
		t.Fatalf("after one cycle: Repetitions = %d, want %d", got, want)
	}
	if o := g.Outcome(); o.Over() {
		t.Fatalf("after one cycle (second occurrence): Outcome = %+v, want ongoing", o)
	}
	playAll(t, g, cycle[:3]...)
	// Each position of the cycle has now occurred twice.
	if got, want := g.Repetitions(), 1; got != want {
		t.Fatalf("after 7 plies: Repetitions = %d, want %d", got, want)
	}
	if o := g.Outcome(); o.Over() {
		t.Fatalf("after 7 plies: Outcome = %+v, want ongoing", o)
	}
	playAll(t, g, cycle[3])
	if got, want := g.Repetitions(), 2; got != want {
		t.Fatalf("third occurrence: Repetitions = %d, want %d", got, want)
	}
	if got, want := g.Outcome(), (Outcome{Result: Draw, Reason: Repetition}); got != want {
		t.Fatalf("third occurrence: Outcome = %+v, want %+v", got, want)
	}
	if ms := g.Legal(nil); len(ms) != 0 {
		t.Errorf("Legal after the draw = %v, want none", ms)
	}
	if err := g.Play(g.Position().Legal(nil)[0]); err == nil {
		t.Errorf("Play after the draw: no error")
	}
	// Undo takes the game back to ongoing.
	g.Undo()
	if o := g.Outcome(); o.Over() {
		t.Errorf("after Undo: Outcome = %+v, want ongoing", o)
	}
}

// A man move in between makes earlier positions unreachable: they do not
// count towards a repetition.
func TestGameRepetitionBrokenByManMove(t *testing.T) {
	g := NewGame(mustFEN(t, "W:WK29,24:BK4,9"))
	playAll(t, g, "29-25", "4-8", "25-29", "8-4") // start position again
	playAll(t, g, "24-20", "9-13")                // men move
	playAll(t, g, "29-25", "4-8", "25-29", "8-4")
	if got, want := g.Repetitions(), 1; got != want {
		t.Fatalf("Repetitions = %d, want %d", got, want)
	}
	playAll(t, g, "29-25", "4-8", "25-29", "8-4")
	if got, want := g.Outcome(), (Outcome{Result: Draw, Reason: Repetition}); got != want {
		t.Fatalf("Outcome = %+v, want %+v", got, want)
	}
}

// kingWalk plays n plies of king steps chosen at random among those that
// capture nothing, leave the opponent no capture and do not repeat a
// position a third time, backing up from dead ends.
func kingWalk(t *testing.T, g *Game, rng *rand.Rand, n int) {
	t.Helper()
	if !walk(g, rng, n) {
		t.Fatalf("no king walk of %d plies from %s", n, g.Position().FEN())
	}
}

func walk(g *Game, rng *rand.Rand, n int) bool {
	if n == 0 {
		return true
	}
	p := g.Position()
	ms := p.Legal(nil)
	rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	for _, m := range ms {
		if m.IsCapture() || !p.Reversible(m) {
			continue
		}
		if next := p.Play(m).Legal(nil); len(next) == 0 || next[0].IsCapture() {
			continue
		}
		if err := g.Play(m); err != nil {
			continue // the game is over
		}
		if g.Repetitions() < 2 && walk(g, rng, n-1) {
			return true
		}
		g.Undo()
	}
	return false
}

// "Draw by the 40-move rule: each side has at least one king, and each side
// has made 40 moves in a row (80 plies) with kings only, with no man move
// and no capture."
func TestGameFortyMoveRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 80))
	g := NewGame(mustFEN(t, "W:WK29,K32,24:BK1,K4,9"))
	kingWalk(t, g, rng, QuietLimit-1)
	if got, want := g.QuietPlies(), QuietLimit-1; got != want {
		t.Fatalf("QuietPlies = %d, want %d", got, want)
	}
	if o := g.Outcome(); o.Over() {
		t.Fatalf("after %d quiet plies: Outcome = %+v, want ongoing", QuietLimit-1, o)
	}
	kingWalk(t, g, rng, 1)
	if got, want := g.Outcome(), (Outcome{Result: Draw, Reason: FortyMoves}); got != want {
		t.Fatalf("after %d quiet plies: Outcome = %+v, want %+v", QuietLimit, got, want)
	}
}

func TestGameFortyMoveCounterResets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 40))
	// A man move resets the counter.
	g := NewGame(mustFEN(t, "W:WK29,K32,22,23:BK1,K4,9,10"))
	kingWalk(t, g, rng, 50)
	if got, want := g.QuietPlies(), 50; got != want {
		t.Fatalf("QuietPlies = %d, want %d", got, want)
	}
	if g.Position().Side() != White {
		t.Fatal("expected White to move after 50 plies")
	}
	var m Move
	found := false
	for _, l := range g.Position().Legal(nil) {
		if !g.Position().At(l.From()).IsKing() {
			m, found = l, true
		}
	}
	if !found {
		t.Fatalf("no man move in %s", g.Position().FEN())
	}
	if err := g.Play(m); err != nil {
		t.Fatal(err)
	}
	if got := g.QuietPlies(); got != 0 {
		t.Errorf("after a man move: QuietPlies = %d, want 0", got)
	}
	g.Undo()
	if got, want := g.QuietPlies(), 50; got != want {
		t.Errorf("after Undo: QuietPlies = %d, want %d", got, want)
	}

	// A king capture resets the counter.
	g = NewGame(mustFEN(t, "W:WK32:BK1,K4,15"))
	playAll(t, g, "32-28", "1-5", "28-24", "5-1", "24-20", "1-5")
	if got, want := g.QuietPlies(), 6; got != want {
		t.Fatalf("QuietPlies = %d, want %d", got, want)
	}
	playAll(t, g, "20x11")
	if got := g.QuietPlies(); got != 0 {
		t.Errorf("after a capture: QuietPlies = %d, want 0", got)
	}
	if got := QuietAfter(mustFEN(t, "W:WK29:BK1"), mustMove(t, "W:WK29:BK1", "29-25"), 12); got != 13 {
		t.Errorf("QuietAfter(king step, 12) = %d, want 13", got)
	}
}

func mustMove(t *testing.T, fen, s string) Move {
	t.Helper()
	m, err := ParseMove(mustFEN(t, fen), s)
	if err != nil {
		t.Fatalf("ParseMove(%s, %s): %v", fen, s, err)
	}
	return m
}

// "A player with no legal move (no pieces, or all blocked) loses."
func TestGameNoMovesLoses(t *testing.T) {
	cases := []struct {
		name string
		fen  string
		want Result
	}{
		{"black has no pieces", "B:WK29:B", WhiteWins},
		{"white has no pieces", "W:W:BK4", BlackWins},
		{"black blocked", "B:W29:B25", WhiteWins},
		{"white blocked", "W:W5:B1,2", BlackWins},
		{"white man blocked by kings", "W:W22:BK18,K19", BlackWins},
		{"white can still move", "W:W22:B18,19", Ongoing},
	}
	for _, c := range cases {
		for _, flip := range []bool{false, true} {
			p := mustFEN(t, c.fen)
			want := c.want
			if flip {
				p = p.Flip()
				switch want {
				case WhiteWins:
					want = BlackWins
				case BlackWins:
					want = WhiteWins
				}
			}
			g := NewGame(p)
			o := g.Outcome()
			if o.Result != want {
				t.Errorf("%s: Outcome(%s) = %+v, want result %v", c.name, p.FEN(), o, want)
			}
			if want != Ongoing && o.Reason != NoMoves {
				t.Errorf("%s: Outcome(%s).Reason = %v, want %v", c.name, p.FEN(), o.Reason, NoMoves)
			}
			if got := p.HasMoves(); got != (want == Ongoing) {
				t.Errorf("%s: HasMoves(%s) = %v, want %v", c.name, p.FEN(), got, want == Ongoing)
			}
		}
	}
	// Capturing the last piece wins.
	g := NewGame(mustFEN(t, "W:W22:B18"))
	playAll(t, g, "22x13")
	if got, want := g.Outcome(), (Outcome{Result: WhiteWins, Reason: NoMoves}); got != want {
		t.Errorf("after the last capture: Outcome = %+v, want %+v", got, want)
	}
}

func TestGameAdjudicate(t *testing.T) {
	g := NewGame(Start())
	playAll(t, g, "22-18", "11-15")
	g.Adjudicate(Ongoing, "nothing")
	if o := g.Outcome(); o.Over() {
		t.Fatalf("Adjudicate(Ongoing) ended the game: %+v", o)
	}
	g.Adjudicate(Draw, "length cap 300")
	want := Outcome{Result: Draw, Reason: Adjudicated, Note: "length cap 300"}
	if got := g.Outcome(); got != want {
		t.Fatalf("Outcome = %+v, want %+v", got, want)
	}
	// A second adjudication changes nothing.
	g.Adjudicate(WhiteWins, "resigned")
	if got := g.Outcome(); got != want {
		t.Errorf("after a second Adjudicate: Outcome = %+v, want %+v", got, want)
	}
	if err := g.Play(g.Position().Legal(nil)[0]); err == nil {
		t.Errorf("Play after adjudication: no error")
	}
	if got, want := g.Ply(), 2; got != want {
		t.Errorf("Ply = %d, want %d", got, want)
	}
	// A game over by the rules cannot be adjudicated.
	h := NewGame(mustFEN(t, "B:WK29:B"))
	h.Adjudicate(Draw, "x")
	if got, want := h.Outcome(), (Outcome{Result: WhiteWins, Reason: NoMoves}); got != want {
		t.Errorf("Adjudicate on a finished game: Outcome = %+v, want %+v", got, want)
	}
	if got, want := Adjudicated.String(), "adjudicated"; got != want {
		t.Errorf("Adjudicated.String() = %q, want %q", got, want)
	}
}

func TestGameUndo(t *testing.T) {
	g := NewGame(Start())
	if g.Undo() {
		t.Fatal("Undo on a new game reported a move")
	}
	playAll(t, g, "23-19", "10-14", "19x10", "5x14")
	if got, want := g.Ply(), 4; got != want {
		t.Fatalf("Ply = %d, want %d", got, want)
	}
	after2 := g.PositionAt(2)
	if !g.Undo() || !g.Undo() {
		t.Fatal("Undo reported no move")
	}
	if got := g.Position(); got != after2 {
		t.Errorf("after two Undo: %s, want %s", got.FEN(), after2.FEN())
	}
	if got, want := len(g.Moves()), 2; got != want {
		t.Errorf("len(Moves) = %d, want %d", got, want)
	}
	g.Adjudicate(BlackWins, "resigned")
	g.Undo()
	if o := g.Outcome(); o.Over() {
		t.Errorf("Undo did not clear the adjudication: %+v", o)
	}
	g.Undo()
	if got := g.Position(); got != Start() || g.Ply() != 0 || g.Start() != Start() {
		t.Errorf("after undoing everything: %s at ply %d", got.FEN(), g.Ply())
	}
	// An illegal move is refused and changes nothing.
	bad := mustMove(t, "W:W22:B", "22-18")
	err := g.Play(mustMove(t, "W:W24:B", "24-20"))
	if err != nil {
		t.Fatalf("Play(24-20): %v", err)
	}
	err = g.Play(bad)
	if !errors.Is(err, ErrIllegal) {
		t.Errorf("Play(illegal) = %v, want ErrIllegal", err)
	}
	if g.Ply() != 1 {
		t.Errorf("illegal Play changed the game: ply %d", g.Ply())
	}
}

// A result reads the same on the terminal as in dama's PDN files, the 8x8
// convention of [GameType "22"] (issue 19, item 6: show and play said
// 2-0/0-2/1-1 while the files said 1-0/0-1/1/2-1/2).
func TestResultStrings(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{{WhiteWins, "1-0"}, {BlackWins, "0-1"}, {Draw, "1/2-1/2"}, {Ongoing, "*"}} {
		if got := c.r.String(); got != c.want {
			t.Errorf("%d.String() = %q, want %q", c.r, got, c.want)
		}
		if got := c.r.PDN(); got != c.want {
			t.Errorf("%d.PDN() = %q, want %q", c.r, got, c.want)
		}
	}
}

func TestFollow(t *testing.T) {
	src := NewGame(Start())
	var mine *Game
	buf := make([]Move, 0, MaxMoves)
	for i := 0; i < 12; i++ {
		buf = src.Legal(buf)
		if len(buf) == 0 {
			break
		}
		src.PlayUnchecked(buf[i%len(buf)])
		prev := mine
		mine = Follow(mine, src)
		if mine.Position() != src.Position() || mine.Ply() != src.Ply() {
			t.Fatalf("ply %d: Follow gives %s, want %s", i, mine.Position().FEN(), src.Position().FEN())
		}
		if prev != nil && prev != mine {
			t.Fatalf("ply %d: a continued game was not reused", i)
		}
	}
	// A game that went another way is replaced, not extended.
	other := NewGame(Start())
	other.PlayUnchecked(other.Legal(nil)[1])
	if got := Follow(mine, other); got == mine || got.Position() != other.Position() {
		t.Errorf("Follow on a diverging game: reused %v, position %s", got == mine, got.Position().FEN())
	}
}
