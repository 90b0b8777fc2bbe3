package engine

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"dama/mcts"
	"dama/rules"
)

// MovePrior is a legal move and the network's prior for it.
type MovePrior struct {
	Move  rules.Move
	Prior float32
}

// PVStep is one move of a principal variation: its visits and its mean
// value Q (W-L in [-1, 1]) for the side that plays it.
type PVStep struct {
	Move   rules.Move
	Visits int
	Q      float32
}

// Analysis is what the network and the search say about a position.
type Analysis struct {
	Position rules.Position
	// WDL is the network's direct evaluation of the position: win, draw
	// and loss probabilities for the side to move.
	WDL [3]float32
	// Priors holds every legal move with the network's prior, highest first.
	Priors []MovePrior
	// Search is the result of the tree search (root statistics and PV).
	Search mcts.Result
	// PV is the principal variation with the search's statistics of each
	// move at its parent.
	PV      []PVStep
	Limits  Limits
	Elapsed time.Duration
}

// Analyze evaluates the current position of g with ev directly and by a
// search within lim. The game must not be over. An evaluator that wraps
// another (an Unwrap method, as the tactical hybrids around the network
// have) is unwrapped for the direct evaluation, so that WDL and Priors are
// the network's own; the search uses ev.
func Analyze(ctx context.Context, ev mcts.Evaluator, g *rules.Game, lim Limits, opt mcts.Options) (Analysis, error) {
	if o := g.Outcome(); o.Over() {
		return Analysis{}, fmt.Errorf("engine: nothing to analyse, the game is over (%s, %s)", o.Result, o.Reason)
	}
	p := g.Position()
	q := mcts.Query{Pos: p, Legal: p.Legal(nil), Repetitions: g.Repetitions(), QuietPlies: g.QuietPlies()}
	var e mcts.Evaluation
	e.Priors = make([]float32, len(q.Legal))
	net := ev
	for {
		w, ok := net.(interface{ Unwrap() mcts.Evaluator })
		if !ok {
			break
		}
		net = w.Unwrap()
	}
	if err := net.Evaluate(ctx, q, &e); err != nil {
		return Analysis{}, fmt.Errorf("engine: evaluating %s: %w", p.FEN(), err)
	}
	a := Analysis{Position: p, WDL: e.WDL, Limits: lim}
	for i, m := range q.Legal {
		a.Priors = append(a.Priors, MovePrior{m, e.Priors[i]})
	}
	sort.SliceStable(a.Priors, func(i, j int) bool { return a.Priors[i].Prior > a.Priors[j].Prior })
	start := time.Now()
	s := NewSearcher(ev, opt)
	res, err := s.Think(ctx, g, lim, nil)
	if err != nil {
		return Analysis{}, err
	}
	a.Search = res
	a.Elapsed = time.Since(start)
	if a.PV, err = s.pvStats(g, res); err != nil {
		return Analysis{}, err
	}
	return a, nil
}

// pvStats reads the statistics of each move of res.PV from the tree, by
// following the PV down (the search keeps the subtree of each move played,
// and a node that already has visits is read without searching). It
// leaves the tree rooted at the end of the PV.
func (s *Searcher) pvStats(g *rules.Game, res mcts.Result) ([]PVStep, error) {
	steps := make([]PVStep, 0, len(res.PV))
	line := rules.NewGame(g.Start())
	for _, m := range g.Moves() {
		line.PlayUnchecked(m)
	}
	r := res
	for i, m := range res.PV {
		if i > 0 {
			line.PlayUnchecked(res.PV[i-1])
			var err error
			if r, err = s.search.Run(context.Background(), line, mcts.Limit{Visits: 1}, nil); err != nil {
				return nil, fmt.Errorf("engine: reading the PV: %w", err)
			}
		}
		step := PVStep{Move: m}
		for k, mv := range r.Moves {
			if mv == m {
				step.Visits, step.Q = r.Visits[k], r.Q[k]
			}
		}
		steps = append(steps, step)
	}
	return steps, nil
}

// expectedScore returns win + draw/2 of a WDL triple.
func expectedScore(wdl [3]float32) float64 { return float64(wdl[0]) + float64(wdl[1])/2 }

// formatWDL formats a WDL triple with its expected score.
func formatWDL(wdl [3]float32) string {
	return fmt.Sprintf("win %.3f  draw %.3f  loss %.3f  (expected score %.3f)", wdl[0], wdl[1], wdl[2], expectedScore(wdl))
}

// Write prints the analysis: the network's value and its top moves by
// prior (at most top; 0 means all), then the search's moves by visits with
// their share, Q and prior, and the principal variation.
func (a Analysis) Write(w io.Writer, top int) error {
	var sb strings.Builder
	side := a.Position.Side().String()
	fmt.Fprintf(&sb, "Position %s (%s to move)\n\n", a.Position.FEN(), side)
	fmt.Fprintf(&sb, "Network value for %s: %s\n\n", side, formatWDL(a.WDL))
	n := len(a.Priors)
	if top > 0 && top < n {
		n = top
	}
	fmt.Fprintf(&sb, "Network's top moves (%d of %d legal):\n", n, len(a.Priors))
	for _, mp := range a.Priors[:n] {
		fmt.Fprintf(&sb, "  %-14s prior %.3f\n", mp.Move, mp.Prior)
	}
	r := a.Search
	fmt.Fprintf(&sb, "\nSearch (limit %s): %d visits, %d nodes, %.2fs\n", a.Limits, r.RootVisits, r.Nodes, a.Elapsed.Seconds())
	if r.Forced {
		fmt.Fprintf(&sb, "  only one legal move: %s\n", r.Move)
	} else {
		fmt.Fprintf(&sb, "Search value for %s:  %s\n", side, formatWDL(r.WDL))
		order := make([]int, len(r.Moves))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool { return r.Visits[order[i]] > r.Visits[order[j]] })
		if top > 0 && top < len(order) {
			order = order[:top]
		}
		fmt.Fprintf(&sb, "  %-14s %7s %7s %7s %7s\n", "move", "visits", "share", "Q", "prior")
		total := 0
		for _, v := range r.Visits {
			total += v
		}
		for _, i := range order {
			share := 0.0
			if total > 0 {
				share = 100 * float64(r.Visits[i]) / float64(total)
			}
			q := fmt.Sprintf("%+.3f", r.Q[i])
			if r.Visits[i] == 0 {
				q = "-"
			}
			fmt.Fprintf(&sb, "  %-14s %7d %6.1f%% %7s %7.3f\n", r.Moves[i], r.Visits[i], share, q, r.Priors[i])
		}
		fmt.Fprintf(&sb, "Principal variation: %s\n", formatPV(a.Position, r.PV))
		if len(a.PV) > 0 {
			fmt.Fprintf(&sb, "  %-4s %-14s %7s %7s   (Q for the side playing the move)\n", "ply", "move", "visits", "Q")
			for i, st := range a.PV {
				fmt.Fprintf(&sb, "  %-4d %-14s %7d %+7.3f\n", i+1, st.Move, st.Visits, st.Q)
			}
		}
		fmt.Fprintf(&sb, "Best move: %s\n", r.Move)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// formatPV numbers a principal variation from p, e.g. "1. 22-18 11-15 2. 18x11".
func formatPV(p rules.Position, pv []rules.Move) string {
	var parts []string
	black := p.Side() == rules.Black
	num := 1
	for i, m := range pv {
		switch {
		case !black:
			parts = append(parts, fmt.Sprintf("%d. %s", num, m))
		case i == 0:
			parts = append(parts, fmt.Sprintf("%d... %s", num, m))
		default:
			parts = append(parts, m.String())
		}
		if black {
			num++
		}
		black = !black
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, " ")
}
