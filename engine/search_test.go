package engine

import (
	"context"
	"testing"
	"time"

	"dama/mcts"
	"dama/rules"
)

func TestThinkLimits(t *testing.T) {
	g := rules.NewGame(rules.Start())
	s := NewSearcher(Uniform{}, mcts.Options{})
	var infos []Info
	res, err := s.Think(context.Background(), g, Limits{Visits: 100}, func(i Info) { infos = append(infos, i) })
	if err != nil {
		t.Fatal(err)
	}
	if res.RootVisits != 100 || res.Playouts != 100 {
		t.Errorf("visits %d playouts %d, want 100 and 100", res.RootVisits, res.Playouts)
	}
	if len(infos) == 0 || !infos[len(infos)-1].Final || infos[len(infos)-1].Result.RootVisits != 100 {
		t.Errorf("no final info with 100 visits: %+v", infos)
	}
	// The tree is reused: a second search of the same position adds only what is missing.
	res, err = s.Think(context.Background(), g, Limits{Visits: 150}, nil)
	if err != nil || res.RootVisits != 150 || res.Playouts != 50 {
		t.Errorf("reuse: visits %d playouts %d (%v), want 150 and 50", res.RootVisits, res.Playouts, err)
	}
	// Depth limit: stops once the PV is long enough.
	s.Reset()
	res, err = s.Think(context.Background(), g, Limits{Depth: 3}, nil)
	if err != nil || len(res.PV) < 3 {
		t.Errorf("depth 3: PV %v (%v)", res.PV, err)
	}
	// A cancelled context stops at once and still gives a legal move.
	s.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = s.Think(ctx, g, Limits{Infinite: true}, nil)
	if err != nil || !legal(g.Position(), res.Move) {
		t.Errorf("cancelled: move %v, err %v", res.Move, err)
	}
	// A time limit ends an otherwise unlimited search.
	res, err = s.Think(context.Background(), g, Limits{Time: 20 * time.Millisecond, Infinite: true}, nil)
	if err != nil || !legal(g.Position(), res.Move) || res.RootVisits == 0 {
		t.Errorf("timed: move %v, visits %d, err %v", res.Move, res.RootVisits, err)
	}
	over, _ := rules.ParseFEN("B:W22:B")
	if _, err := s.Think(context.Background(), rules.NewGame(over), Limits{}, nil); err == nil {
		t.Error("searched a finished game")
	}
}

func legal(p rules.Position, m rules.Move) bool {
	for _, l := range p.Legal(nil) {
		if l == m {
			return true
		}
	}
	return false
}

func TestUniform(t *testing.T) {
	p := rules.Start()
	var e mcts.Evaluation
	if err := (Uniform{}).Evaluate(context.Background(), mcts.Query{Pos: p, Legal: p.Legal(nil)}, &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Priors) != 7 || e.Priors[0] != float32(1)/7 || e.WDL != [3]float32{0, 1, 0} {
		t.Errorf("uniform evaluation %+v", e)
	}
}

// BenchmarkThink measures the search loop (chunks, result reads) over the
// uniform evaluator, in visits per second.
func BenchmarkThink(b *testing.B) {
	g := rules.NewGame(rules.Start())
	s := NewSearcher(Uniform{}, mcts.Options{})
	b.ReportAllocs()
	visits := 0
	for i := 0; i < b.N; i++ {
		s.Reset()
		res, err := s.Think(context.Background(), g, Limits{Visits: 2000}, nil)
		if err != nil {
			b.Fatal(err)
		}
		visits += res.Playouts
	}
	b.ReportMetric(float64(visits)/b.Elapsed().Seconds(), "visits/s")
}
