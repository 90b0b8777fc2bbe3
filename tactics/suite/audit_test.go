package suite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"dama/arena"
	"dama/arena/classic"
	"dama/tb"
	"dama/tb/tbtest"
)

// winBound separates the scores of a forced win from material balances,
// as classic.Decisive does.
const winBound = classic.WinScore - 1000

// TestAudit: on the project suite's forced wins of three pieces, every
// move the audit proves winning is a win by the endgame tables (which are
// exact), and it finds some; a position that wins material is returned
// as it is; bad arguments are refused.
func TestAudit(t *testing.T) {
	s, tables, b := auditSetup(t)
	ctx := context.Background()
	found, checked := 0, 0
	for i, p := range s.Positions {
		pos, best, err := p.Parsed()
		if err != nil {
			t.Fatal(err)
		}
		if !tables.Has(pos) || p.Score < winBound {
			continue
		}
		checked++
		got, err := b.Audit(ctx, p, 14, 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, moves, err := tables.Moves(pos, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, mv := range moves {
			if slices.Contains(best, mv.Move) {
				if mv.Value != tb.Win {
					t.Errorf("position %d (%s): best move %v is a %v by the tables", i+1, p.FEN, mv.Move, mv.Value)
				}
				continue
			}
			if slices.Contains(got.Wins, mv.Move.String()) {
				found++
				if mv.Value != tb.Win {
					t.Errorf("position %d (%s): the audit proves %v a win, the tables a %v", i+1, p.FEN, mv.Move, mv.Value)
				}
			}
		}
	}
	if checked < 3 || found == 0 {
		t.Errorf("%d positions of three pieces checked, %d slower wins found: the test shows nothing", checked, found)
	}
	for _, p := range s.Positions {
		if p.Score >= winBound {
			continue
		}
		got, err := b.Audit(ctx, p, 14, 1<<16, nil)
		if err != nil || got.Wins != nil {
			t.Errorf("%s wins material: audited as %v (%v)", p.FEN, got.Wins, err)
		}
		break
	}
	for _, c := range []struct {
		depth int
		nodes int64
	}{{1, 100}, {99, 100}, {14, 0}} {
		if _, err := b.Audit(ctx, s.Positions[0], c.depth, c.nodes, nil); err == nil {
			t.Errorf("depth %d, nodes %d: no error", c.depth, c.nodes)
		}
	}
}

// auditSetup returns the project suite, the tables of three pieces and a
// builder to audit with.
func auditSetup(t *testing.T) (*Suite, *tb.Tables, *Builder) {
	t.Helper()
	s, err := Read(projectSuite)
	if err != nil {
		t.Fatal(err)
	}
	_, tables := tbtest.Tables(t, 3)
	b, err := NewBuilder(BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s, tables, b
}

// TestAuditTables: with the tables, the audit of every position they hold
// gives exactly the other moves that keep the win they prove, more than
// the search alone proves, and nothing where they prove no win.
func TestAuditTables(t *testing.T) {
	s, tables, b := auditSetup(t)
	ctx := context.Background()
	checked, more := 0, 0
	for i, p := range s.Positions {
		pos, best, err := p.Parsed()
		if err != nil {
			t.Fatal(err)
		}
		if !tables.Has(pos) {
			continue
		}
		checked++
		got, err := b.Audit(ctx, p, 14, 1<<20, tables)
		if err != nil {
			t.Fatal(err)
		}
		v, moves, err := tables.Moves(pos, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, mv := range moves {
			if v == tb.Win && mv.Value == tb.Win && !slices.Contains(best, mv.Move) {
				want = append(want, mv.Move.String())
			}
		}
		slices.Sort(want)
		have := slices.Sorted(slices.Values(got.Wins))
		if !slices.Equal(have, want) {
			t.Errorf("position %d (%s): audited wins %v, the tables' %v", i+1, p.FEN, have, want)
		}
		plain, err := b.Audit(ctx, p, 14, 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		more += len(got.Wins) - len(plain.Wins)
	}
	if checked < 5 || more <= 0 {
		t.Errorf("%d positions in the tables, %d wins more than the search proves: the test shows nothing", checked, more)
	}
	audited := *s
	audited.Positions = slices.Clone(s.Positions[:10])
	if _, _, err := Audit(ctx, &audited, 14, 1<<16, tables, 2); err != nil || audited.AuditTables != 3 || audited.AuditDepth != 14 {
		t.Errorf("Audit with tables: depth %d tables %d, %v", audited.AuditDepth, audited.AuditTables, err)
	}
}

// TestSolveCountsSlowerWins: where every move but the best is a proven
// slower win, every answer is won, and only the best move solves.
func TestSolveCountsSlowerWins(t *testing.T) {
	s := puzzleSuite()
	s.AuditDepth = 9
	for i, p := range s.Positions {
		pos, best, err := p.Parsed()
		if err != nil {
			t.Fatal(err)
		}
		s.Positions[i].Score = classic.WinScore - 5 // a forced win, as an audited position is
		for _, m := range pos.Legal(nil) {
			if m != best[0] {
				s.Positions[i].Wins = append(s.Positions[i].Wins, m.String())
			}
		}
	}
	random, _ := arena.ParsePlayer("random")
	sc, err := Solve(context.Background(), s, random, 1, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Won != len(s.Positions) || sc.Solved == sc.Won {
		t.Errorf("won %d of %d, solved %d: want all won, not all solved", sc.Won, len(s.Positions), sc.Solved)
	}
	for i, a := range sc.Answers {
		if want := a.Move.String() == s.Positions[i].Best[0]; a.Solved != want || !a.Won {
			t.Errorf("position %d: %v solved %v won %v", i+1, a.Move, a.Solved, a.Won)
		}
		if d, want := a.Describe(s), map[bool]string{true: " solved: played ", false: " won slower: played "}[a.Solved]; !strings.Contains(d, want) || !strings.HasSuffix(d, "("+s.Positions[i].FEN+")") {
			t.Errorf("position %d described %q, want %q and its FEN", i+1, d, want)
		}
	}
	want := fmt.Sprintf("random: solved %d of %d (%.1f%%); %d (100.0%%) counting the slower wins proven at depth 9", sc.Solved, len(s.Positions), 100*sc.Fraction(), len(s.Positions))
	if got := sc.Describe(s); got != want {
		t.Errorf("score described %q, want %q", got, want)
	}
	s.AuditTables = 3
	if got := sc.Describe(s); got != want+" or by the tables of up to 3 pieces" {
		t.Errorf("score on a suite audited with tables: %q", got)
	}
}
