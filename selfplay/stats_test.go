package selfplay

import (
	"testing"

	"dama/rules"
)

func TestStats(t *testing.T) {
	var s Stats
	if got := s.Shares(); got != "-" {
		t.Errorf("no games: shares %q, want -", got)
	}
	ply := Ply{Pos: rules.Start()}
	for _, g := range []*Game{
		{Plies: make([]Ply, 10), Result: rules.WhiteWins, End: Resigned, WouldResign: -1},
		{Plies: make([]Ply, 20), Result: rules.Draw, End: LengthCap, WouldResign: -1},
		{Plies: []Ply{ply, ply, ply}, Result: rules.WhiteWins, End: Tables, WouldResign: 0},  // White would have resigned: false
		{Plies: []Ply{ply, ply, ply}, Result: rules.BlackWins, End: NoMoves, WouldResign: 0}, // and rightly
	} {
		s.Add(g)
	}
	if s.Games != 4 || s.Positions != 36 || s.MeanLength() != 9 {
		t.Errorf("games %d, positions %d, mean %v; want 4, 36, 9", s.Games, s.Positions, s.MeanLength())
	}
	want := "White/draw/Black 50/25/25%, 1 resigned, 1 at the length cap, 1 adjudicated by the tables, false resignations 1 of 2 checked"
	if got := s.Summary(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

func TestWorkerSeed(t *testing.T) {
	if WorkerSeed("a") != WorkerSeed("a") || WorkerSeed("a") == WorkerSeed("b") {
		t.Error("a worker's seed is not a function of its name that tells names apart")
	}
	if name := DefaultWorkerName(); !workerName.MatchString(name) {
		t.Errorf("default worker name %q is not a chunk file name's", name)
	}
}

func TestPlyQuery(t *testing.T) {
	p := rules.Start()
	ply := Ply{Pos: p, Legal: p.Legal(nil), Repetitions: 1, QuietPlies: 7}
	q := ply.Query()
	if q.Pos != p || len(q.Legal) != len(ply.Legal) || q.Repetitions != 1 || q.QuietPlies != 7 {
		t.Errorf("query %+v of ply %+v", q, ply)
	}
}
