package suite

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"dama/arena"
	"dama/internal/evaltest"
	"dama/rules"
	"dama/tactics"
)

// puzzleSuite is a suite of evaltest's wins in 3.
func puzzleSuite() *Suite {
	s := &Suite{Version: suiteVersion}
	for _, pz := range evaltest.WinIn3 {
		s.Positions = append(s.Positions, Position{FEN: pz.FEN, Best: []string{pz.Win}, Source: "evaltest.WinIn3"})
	}
	return s
}

// TestSolve: the reference engine at depth 3 solves every win in 3; a
// random player's count is the number of its answers that are best moves,
// and the same seed gives the same answers.
func TestSolve(t *testing.T) {
	s := puzzleSuite()
	classic, err := arena.ParsePlayer("classic:3")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Solve(context.Background(), s, classic, 2, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Solved != len(s.Positions) || sc.Fraction() != 1 {
		t.Errorf("classic:3 solved %d of %d", sc.Solved, len(s.Positions))
	}
	random, _ := arena.ParsePlayer("random")
	var seen int
	a, err := Solve(context.Background(), s, random, 1, 5, func(Answer) { seen++ })
	if err != nil {
		t.Fatal(err)
	}
	b, err := Solve(context.Background(), s, random, 3, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, ans := range a.Answers {
		if ans.Solved != (ans.Move.String() == s.Positions[i].Best[0]) {
			t.Errorf("position %d: move %v solved %v", i, ans.Move, ans.Solved)
		}
		if ans.Solved {
			n++
		}
		if ans.Move != b.Answers[i].Move {
			t.Errorf("position %d: the same seed played %v and %v", i, ans.Move, b.Answers[i].Move)
		}
	}
	if n != a.Solved || seen != len(s.Positions) {
		t.Errorf("solved %d, counted %d; done called %d times", a.Solved, n, seen)
	}
}

// WriteScore writes the score's line, after a line an answer with
// verbose.
func TestWriteScore(t *testing.T) {
	s := puzzleSuite()
	classic, err := arena.ParsePlayer("classic:3")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Solve(context.Background(), s, classic, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteScore(context.Background(), &b, s, classic, 1, 1, verbose); err != nil {
			t.Fatal(err)
		}
		want := sc.Describe(s) + "\n"
		if verbose {
			var lines strings.Builder
			for _, a := range sc.Answers {
				lines.WriteString("  " + a.Describe(s) + "\n")
			}
			want = lines.String() + want
		}
		if b.String() != want {
			t.Errorf("verbose %v: got\n%s\nwant\n%s", verbose, b.String(), want)
		}
	}
}

// TestExamine: a win in 3 that a depth-1 shallow search misses is a
// suite position, with the one winning move as best, a won score and a
// margin over every other move; one it sees is not, and for a depth-3
// shallow search, which sees them all, none is.
func TestExamine(t *testing.T) {
	deep, err := NewBuilder(BuildOptions{ProvingDepth: 5, ShallowDepth: 1})
	if err != nil {
		t.Fatal(err)
	}
	seen, err := NewBuilder(BuildOptions{ProvingDepth: 5, ShallowDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	for _, p := range puzzleSuite().Positions {
		pos, _, err := p.Parsed()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := seen.Examine(context.Background(), pos, "test"); err != nil || ok {
			t.Errorf("%s: taken %v (%v), though depth 3 sees it", p.FEN, ok, err)
		}
		shallow, _, err := deep.search(context.Background(), pos, 1)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := deep.Examine(context.Background(), pos, "test")
		if shallow.Move.String() == p.Best[0] {
			if ok || err != nil {
				t.Errorf("%s: depth 1 plays %v, yet taken %v (%v)", p.FEN, shallow.Move, ok, err)
			}
			continue
		}
		taken++
		if err != nil || !ok {
			t.Errorf("%s: not taken (%v)", p.FEN, err)
		} else if got.Best[0] != p.Best[0] || got.Score < winBound || got.Score-got.Second < tactics.ManValue || got.Gain < tactics.ManValue || got.Shallow == got.Best[0] || got.Depth != 5 {
			t.Errorf("%s: taken as %+v, want best %s", p.FEN, got, p.Best[0])
		}
	}
	if taken == 0 {
		t.Error("depth 1 sees every puzzle: the test shows nothing")
	}
	if _, err := NewBuilder(BuildOptions{ProvingDepth: 3, ShallowDepth: 3}); err == nil {
		t.Error("a proving depth not above the shallow depth accepted")
	}
}

// faultyPlayer faults as an external engine would: at Start in even
// positions of its games (by the order they start), at Move in odd ones.
type faultyPlayer struct {
	mu sync.Mutex
	n  int
}

func (*faultyPlayer) Name() string { return "faulty" }

func (p *faultyPlayer) Start(context.Context, *rules.Game, *rand.Rand) (arena.GamePlayer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.n%2 == 1 {
		return nil, fmt.Errorf("starting: %w", &arena.Fault{Kind: arena.FaultInit, Detail: "no ready"})
	}
	return faultyGame{}, nil
}

type faultyGame struct{}

func (faultyGame) Move(context.Context, *rules.Game) (rules.Move, error) {
	return rules.Move{}, &arena.Fault{Kind: arena.FaultIllegal, Detail: "1-2 is not a legal move"}
}

func (faultyGame) Close() {}

// TestSolveFaults: a player's fault misses the position, with its
// reason, and the suite goes on; the score counts the faults by kind.
func TestSolveFaults(t *testing.T) {
	s := puzzleSuite()
	sc, err := Solve(context.Background(), s, &faultyPlayer{}, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(s.Positions)
	if sc.Solved != 0 || sc.Forfeits.Total() != n || sc.Forfeits.Of(arena.FaultInit) != (n+1)/2 || sc.Forfeits.Of(arena.FaultIllegal) != n/2 {
		t.Errorf("solved %d, forfeits %v, want 0 and all %d by no init and illegal move in turn", sc.Solved, sc.Forfeits, n)
	}
	for _, a := range sc.Answers {
		if a.Fault == nil || !strings.Contains(a.Describe(s), "missed: no move, "+a.Fault.Error()) {
			t.Errorf("position %d: %q, want the fault", a.Index+1, a.Describe(s))
		}
	}
	if d := sc.Describe(s); !strings.Contains(d, fmt.Sprintf("%d missed by the player's faults (no init %d, illegal move %d)", n, (n+1)/2, n/2)) {
		t.Errorf("Describe: %q", d)
	}
}
