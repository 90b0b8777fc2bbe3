package engine

import (
	"context"
	"math"
	"strconv"
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
	// Depth limit: depthVisits(D) visits.
	s.Reset()
	res, err = s.Think(context.Background(), g, Limits{Depth: 6}, nil)
	if err != nil || res.RootVisits != depthVisits(6) {
		t.Errorf("depth 6: %d visits (%v), want depthVisits(6) = %d", res.RootVisits, err, depthVisits(6))
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

// Infinite analysis runs until stopped, far past what the tree can hold
// (issue 13, point 5).
func TestThinkInfiniteOutlivesTreeCap(t *testing.T) {
	const maxNodes, want = 2000, 30000
	g := rules.NewGame(rules.Start())
	s := NewSearcher(Uniform{}, mcts.Options{MaxNodes: maxNodes})
	s.InfoEvery = time.Nanosecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := s.Think(ctx, g, Limits{Infinite: true}, func(i Info) {
		if i.Result.RootVisits >= want {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil || res.RootVisits < want || res.Nodes > maxNodes {
		t.Errorf("infinite search ended by itself (stopped %v) after %d visits with %d nodes; want it to run past %d visits until stopped, within %d nodes",
			ctx.Err() != nil, res.RootVisits, res.Nodes, want, maxNodes)
	}
}

// Infinite analysis goes on past the visit counters' range by halving the
// tree's visits, counting its playouts on (issue 13, point 5).
func TestThinkInfiniteHalvesVisits(t *testing.T) {
	defer func(h int) { halveAt = h }(halveAt)
	halveAt = 5000
	g := rules.NewGame(rules.Start())
	s := NewSearcher(Uniform{}, mcts.Options{MaxNodes: 3000})
	s.InfoEvery = time.Nanosecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := s.Think(ctx, g, Limits{Infinite: true}, func(i Info) {
		if i.Result.Playouts >= 40000 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Playouts < 40000 || res.RootVisits >= 5000+256 {
		t.Errorf("stopped with %d playouts and %d root visits; want at least 40000 playouts with the root kept under 5256", res.Playouts, res.RootVisits)
	}
}

// deadlineEval records the earliest deadline of the contexts it sees.
type deadlineEval struct {
	Uniform
	deadline time.Time
}

func (e *deadlineEval) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	if d, ok := ctx.Deadline(); ok && (e.deadline.IsZero() || d.Before(e.deadline)) {
		e.deadline = d
	}
	return e.Uniform.Evaluate(ctx, q, out)
}

// A timed search ends before its time is up, with a safety margin that
// covers the last evaluation and the answer (issue 13, point 6).
func TestThinkTimeMargin(t *testing.T) {
	for _, budget := range []time.Duration{200 * time.Millisecond, 25 * time.Second} {
		ev := &deadlineEval{}
		s := NewSearcher(ev, mcts.Options{})
		start := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		s.InfoEvery = time.Nanosecond
		_, err := s.Think(ctx, rules.NewGame(rules.Start()), Limits{Time: budget, Start: start}, func(Info) { cancel() })
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if latest := start.Add(budget - timeMargin(budget)); ev.deadline.IsZero() || ev.deadline.After(latest) {
			t.Errorf("time %v: search deadline %v after start, want at most %v", budget, ev.deadline.Sub(start), latest.Sub(start))
		}
		if m := timeMargin(budget); m < 10*time.Millisecond || m > budget/4 {
			t.Errorf("timeMargin(%v) = %v, want between 10ms and a quarter of the time", budget, m)
		}
	}
}

// WholeTime spends the whole time: the deadline is the start plus the time,
// no margin kept (arena players at equal time).
func TestThinkWholeTime(t *testing.T) {
	budget := 200 * time.Millisecond
	ev := &deadlineEval{}
	s := NewSearcher(ev, mcts.Options{})
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	s.InfoEvery = time.Nanosecond
	_, err := s.Think(ctx, rules.NewGame(rules.Start()), Limits{Time: budget, Start: start, WholeTime: true}, func(Info) { cancel() })
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if want := start.Add(budget); !ev.deadline.Equal(want) {
		t.Errorf("search deadline %v after start, want %v", ev.deadline.Sub(start), budget)
	}
}

// wdlEval answers a fixed W/D/L.
type wdlEval struct{ wdl [3]float32 }

func (e wdlEval) Evaluate(ctx context.Context, q mcts.Query, out *mcts.Evaluation) error {
	if err := (Uniform{}).Evaluate(ctx, q, out); err != nil {
		return err
	}
	out.WDL = e.wdl
	return nil
}

// A forced move reports the network's W/D/L of the position, not zeros
// (issue 13, point 6).
func TestThinkForcedWDL(t *testing.T) {
	p, err := rules.ParseFEN("W:WK21,31:B10,18,27")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSearcher(wdlEval{[3]float32{0.6, 0.3, 0.1}}, mcts.Options{})
	res, err := s.Think(context.Background(), rules.NewGame(p), Limits{Visits: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Forced || math.Abs(float64(res.WDL[0])-0.6) > 1e-6 || math.Abs(float64(res.WDL[2])-0.1) > 1e-6 || math.Abs(float64(res.Value)-0.5) > 1e-6 {
		t.Errorf("forced move: forced %v, wdl %v, value %v; want the evaluator's 0.6 0.3 0.1, value 0.5", res.Forced, res.WDL, res.Value)
	}
}

// Hub scores are in men, as Hub clients read them (issue 13, point 6).
func TestScoreMen(t *testing.T) {
	prev := math.Inf(-1)
	for q := float32(-1); q <= 1; q += 0.05 {
		m := scoreMen(q)
		if m <= prev || math.Abs(m+scoreMen(-q)) > 1e-9 {
			t.Errorf("scoreMen(%v) = %v: want increasing and odd", q, m)
		}
		prev = m
	}
	if scoreMen(0) != 0 || scoreMen(0.99) < 5 || scoreMen(0.3) > 1 {
		t.Errorf("scoreMen(0, 0.3, 0.99) = %v, %v, %v: want 0, under a man, over 5 men", scoreMen(0), scoreMen(0.3), scoreMen(0.99))
	}
	l := infoLine(Info{Result: mcts.Result{Value: 0.99, WDL: [3]float32{0.99, 0.01, 0}}})
	v, _ := l.Get("score")
	if f, err := strconv.ParseFloat(v, 64); err != nil || f < 5 {
		t.Errorf("info score=%s for W-L 0.99, want the score in men (over 5)", v)
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
