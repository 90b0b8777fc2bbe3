package tb

import (
	"context"
	"os"
	"sync"
	"testing"

	"dama/rules"
)

// The tables of the tests, generated once: up to 3 pieces always, up to 4
// without -short (about ten seconds of CPU), and verified (VerifyDir) once:
// tablesReport is what it found.
var (
	tablesOnce   sync.Once
	tablesDir    string
	tables       *Tables
	tablesReport Report
	tablesErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tablesDir != "" {
		os.RemoveAll(tablesDir)
	}
	os.Exit(code)
}

// testPieces is the most pieces of the shared test tables.
func testPieces() int {
	if testing.Short() {
		return 3
	}
	return 4
}

func testTables(t testing.TB) *Tables {
	t.Helper()
	tablesOnce.Do(func() {
		tablesDir, tablesErr = os.MkdirTemp("", "tbtest")
		if tablesErr != nil {
			return
		}
		if _, tablesErr = Generate(context.Background(), GenOptions{Pieces: testPieces(), Dir: tablesDir}); tablesErr != nil {
			return
		}
		if tablesReport, tablesErr = VerifyDir(context.Background(), tablesDir, VerifyOptions{}); tablesErr != nil {
			return
		}
		tables, tablesErr = Open(tablesDir)
	})
	if tablesErr != nil {
		t.Fatal(tablesErr)
	}
	return tables
}

// allPositions calls f with every position of the tables' signatures,
// White to move (Black to move is its flip); under the race detector with
// every 31st.
func allPositions(t *testing.T, tb *Tables, f func(m Material, p rules.Position)) {
	step := int64(1)
	if raceEnabled {
		step = 31
	}
	for _, m := range Signatures(tb.Pieces()) {
		for i := int64(0); i < m.Size(); i += step {
			if p, ok := unindex(m, i); ok {
				f(m, p)
			}
		}
	}
}

// TestConsistency: every entry of the generated tables agrees with one ply
// of the tables (Verify, run once by testTables over every entry, race
// detector or not): the equation the tables solve, whose solution is
// unique because distances fall along every win and every loss, so this
// proves every entry given the rules' moves.
func TestConsistency(t *testing.T) {
	tb := testTables(t)
	r := tablesReport
	sigs := Signatures(tb.Pieces())
	var size int64
	for _, m := range sigs {
		size += m.Size()
	}
	if r.Inconsistencies != 0 || r.Entries != size || len(r.Tables) != len(sigs) || len(r.Verified) != len(sigs) || r.Sampled {
		t.Fatalf("verify of the tables of up to %d pieces: %d entries checked, %d inconsistent, %d of %d tables verified (examples %v); want all %d entries consistent",
			tb.Pieces(), r.Entries, r.Inconsistencies, len(r.Verified), len(sigs), r.Examples, size)
	}
	if c := tb.Check(); c.Stamped != len(sigs) || c.Verified != 0 {
		t.Errorf("Open after VerifyDir: %+v, want every table vouched for by the stamp", c)
	}
	var w, d, l int64
	for _, f := range tb.Files() {
		w, d, l = w+f.Wins, d+f.Draws, l+f.Losses
	}
	t.Logf("%d index points up to %d pieces consistent: %d wins, %d draws (holes included), %d losses", r.Entries, tb.Pieces(), w, d, l)
}

// TestColourSymmetry probes every position and its flip built by the
// rules package (rules.Position.Flip), which the probe reaches by
// reversing bits instead.
func TestColourSymmetry(t *testing.T) {
	tb := testTables(t)
	n := 0
	allPositions(t, tb, func(m Material, p rules.Position) {
		a, err1 := tb.Probe(p)
		f := p.Flip()
		b, err2 := tb.Probe(f)
		if err1 != nil || err2 != nil || a != b {
			t.Fatalf("%s: %+v (%v), its flip %s: %+v (%v)", p.FEN(), a, err1, f.FEN(), b, err2)
		}
		n++
	})
	t.Logf("%d positions and their flips agree", n)
}

// TestKnownTheory checks endings whose result is known.
func TestKnownTheory(t *testing.T) {
	tb := testTables(t)
	for _, c := range []struct {
		fen   string
		quiet int
		want  Value
	}{
		{"W:WK31:BK2", 0, Draw},      // a king against a king
		{"B:WK31:BK2", 0, Draw},      // either to move
		{"W:WK22:BK11", 0, Draw},     // in the middle of the board
		{"W:WK29,K32:BK1", 0, Win},   // two kings against one win
		{"B:WK29,K32:BK1", 0, Loss},  // the same, the lone king to move
		{"W:WK29,K32:BK1", 80, Draw}, // the 40-move rule has come
		{"W:WK14:BK10", 0, Win},      // 14x5: the king takes the king
		{"W:WK14:BK10", 80, Draw},    // drawn before the capture
		{"B:WK14:BK10", 0, Win},      // Black to move takes first: 10x19
		{"W:WK1:B5", 0, Win},         // 1x10: the king takes the man
		{"W:W6:BK32", 0, Draw},       // a man about to crown against a far king
	} {
		p, err := rules.ParseFEN(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		e, err := tb.Probe(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Under(c.quiet); got != c.want {
			t.Errorf("%s at quiet %d: got %s (%v), want %s", c.fen, c.quiet, got, e, c.want)
		}
	}
	// Two kings against one king: a win nearly everywhere, with the side
	// of the two kings to move.
	var wins, all int64
	m := Material{Kings: 2, OppKings: 1}
	for i := int64(0); i < m.Size(); i++ {
		p, _ := unindex(m, i)
		e, _ := tb.Probe(p)
		all++
		if e.Type == Win {
			wins++
		}
	}
	if wins*100 < all*99 {
		t.Errorf("two kings against one: %d wins of %d positions, want at least 99%%", wins, all)
	}
	// A king against a king: a draw in most positions (the wins are
	// captures and kings caught in the single corner).
	kk := Material{Kings: 1, OppKings: 1}
	var draws int64
	for i := int64(0); i < kk.Size(); i++ {
		p, _ := unindex(kk, i)
		if e, _ := tb.Probe(p); e.Type == Draw {
			draws++
		}
	}
	if draws*2 < kk.Size() {
		t.Errorf("king against king: %d draws of %d positions, want most", draws, kk.Size())
	}
}
