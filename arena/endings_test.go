package arena

import (
	"context"
	"strings"
	"testing"

	"dama/engine"
	"dama/tb/tbtest"
)

// TestEndings: with the tables the winning side wins every won position;
// without them a search of a few uniform visits does not, and each game
// it does not win is reported, once, as a game without the tables.
func TestEndings(t *testing.T) {
	_, tables := tbtest.Tables(t, 3)
	p := &MCTSPlayer{Label: "uniform", Evaluator: engine.Uniform{}, Visits: 2}
	var lost []EndingGame
	won, err := Endings(context.Background(), tables, p, EndingOptions{Pieces: 3, Games: 4, Seed: 1, Lost: func(g EndingGame) { lost = append(lost, g) }})
	if err != nil {
		t.Fatal(err)
	}
	if won[1] != 4 {
		t.Errorf("won %d of 4 with the tables", won[1])
	}
	if won[0] == 4 || won[0]+len(lost) != 4 {
		t.Errorf("won %d of 4 without the tables, %d lost reported: want some lost, each reported", won[0], len(lost))
	}
	for _, g := range lost {
		if g.WithTables || !strings.Contains(g.String(), "without tables") || !strings.Contains(g.String(), g.Start.FEN()+" ("+g.Start.Side().String()+" wins)") {
			t.Errorf("lost game %q", g)
		}
	}
}
