package train

import (
	"testing"

	"dama/rules"
	"dama/selfplay"
	"dama/tb/tbtest"
)

// TestTableValueTargets: with tables, a position they answer for gets its
// exact W/D/L as value target, whatever the game's result and the value
// target mix; a position they do not answer for (too many pieces, or seen
// before in the game) keeps the mixed game result.
func TestTableValueTargets(t *testing.T) {
	_, tables := tbtest.Tables(t, 3)
	ply := func(fen string, reps, quiet int) selfplay.Ply {
		p, err := rules.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		legal := p.Legal(nil)
		visits := make([]uint32, len(legal))
		for i := range visits {
			visits[i] = 1
		}
		return selfplay.Ply{Pos: p, Legal: legal, Visits: visits, Full: true, WDL: [3]float32{0.2, 0.6, 0.2}, Repetitions: reps, QuietPlies: quiet}
	}
	// Not one game: Samples does not replay the moves.
	g := &selfplay.Game{Result: rules.Draw, Plies: []selfplay.Ply{
		ply(rules.Start().FEN(), 0, 0),
		ply("W:WK29,K32:BK1", 0, 0),  // won for White
		ply("B:WK29,K32:BK10", 0, 0), // lost for Black
		ply("W:WK29,K32:BK1", 0, 70), // too late for the 40-move rule: a draw
		ply("W:WK29,K32:BK1", 1, 0),  // seen before: not the tables'
	}}
	mixed := [3]float32{0.1, 0.8, 0.1} // a draw mixed half with the search's 0.2/0.6/0.2
	want := [][3]float32{mixed, {1, 0, 0}, {0, 0, 1}, {0, 1, 0}, mixed}
	s := targetOptions{ValueTargetMix: 0.5, Tables: tables}.Samples(g, nil)
	if len(s) != len(want) {
		t.Fatalf("%d samples, want %d", len(s), len(want))
	}
	for i := range s {
		for k := range 3 {
			if d := s[i].WDL[k] - want[i][k]; d > 1e-6 || d < -1e-6 {
				t.Errorf("sample %d (%s): value target %v, want %v", i, g.Plies[i].Pos.FEN(), s[i].WDL, want[i])
				break
			}
		}
	}
	// Without tables every target is the mixed result.
	for i, x := range (targetOptions{ValueTargetMix: 0.5}).Samples(g, nil) {
		if x.WDL != s[0].WDL {
			t.Errorf("no tables, sample %d: value target %v, want %v", i, x.WDL, s[0].WDL)
		}
	}
}
