package engine

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/rules"
)

func TestAnalyze(t *testing.T) {
	cfg, _ := model.Preset("tiny")
	ev := infer.NewEvaluator(model.NewSeededNetwork(cfg, 3), infer.EvaluatorOptions{})
	defer ev.Close()
	g := rules.NewGame(rules.Start())
	a, err := Analyze(context.Background(), ev, g, Limits{Visits: 50}, mcts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Priors) != 7 {
		t.Fatalf("%d priors, want 7", len(a.Priors))
	}
	var sum float64
	for i, mp := range a.Priors {
		sum += float64(mp.Prior)
		if i > 0 && mp.Prior > a.Priors[i-1].Prior {
			t.Errorf("priors not sorted: %v", a.Priors)
		}
	}
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("priors sum to %v", sum)
	}
	if s := a.WDL[0] + a.WDL[1] + a.WDL[2]; s < 0.999 || s > 1.001 {
		t.Errorf("WDL %v", a.WDL)
	}
	if a.Search.RootVisits != 50 || len(a.Search.PV) == 0 || a.Search.PV[0] != a.Search.Move {
		t.Errorf("search: visits %d, PV %v, move %v", a.Search.RootVisits, a.Search.PV, a.Search.Move)
	}
	if len(a.PV) != len(a.Search.PV) {
		t.Fatalf("%d PV steps for a PV of %d moves", len(a.PV), len(a.Search.PV))
	}
	for i, st := range a.PV {
		if st.Move != a.Search.PV[i] || st.Visits < 1 || (i > 0 && st.Visits > a.PV[i-1].Visits) {
			t.Errorf("PV step %d: %+v (previous %+v)", i, st, a.PV[max(i-1, 0)])
		}
	}
	if a.PV[0].Visits != a.Search.Visits[indexOf(a.Search.Moves, a.Search.Move)] {
		t.Errorf("first PV step %+v disagrees with the root statistics", a.PV[0])
	}
	var out bytes.Buffer
	if err := a.Write(&out, 3); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Network value for white: win ", "expected score", "Network's top moves (3 of 7 legal)",
		"50 visits", "Principal variation: 1. " + a.Search.PV[0].String(), "Best move: " + a.Search.Move.String()} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	over, _ := rules.ParseFEN("B:W22:B")
	if _, err := Analyze(context.Background(), ev, rules.NewGame(over), Limits{Visits: 5}, mcts.Options{}); err == nil {
		t.Error("analysed a finished game")
	}
}

func TestFormatPV(t *testing.T) {
	p := rules.Start()
	var pv []rules.Move
	q := p
	for i := 0; i < 3; i++ {
		m := q.Legal(nil)[0]
		pv = append(pv, m)
		q = q.Play(m)
	}
	if got := formatPV(p, pv); got != "1. "+pv[0].String()+" "+pv[1].String()+" 2. "+pv[2].String() {
		t.Errorf("formatPV = %q", got)
	}
	if got := formatPV(p.Play(pv[0]), pv[1:]); got != "1... "+pv[1].String()+" 2. "+pv[2].String() {
		t.Errorf("formatPV from black = %q", got)
	}
}

func indexOf(ms []rules.Move, m rules.Move) int {
	for i, x := range ms {
		if x == m {
			return i
		}
	}
	return -1
}

// wrapped is an evaluator around another that answers differently: a
// certain win for every position.
type wrapped struct{ inner mcts.Evaluator }

func (w wrapped) Unwrap() mcts.Evaluator { return w.inner }

func (w wrapped) Evaluate(ctx context.Context, q mcts.Query, e *mcts.Evaluation) error {
	if err := w.inner.Evaluate(ctx, q, e); err != nil {
		return err
	}
	e.WDL = [3]float32{1, 0, 0}
	return nil
}

// TestAnalyzeUnwraps: the direct evaluation is the wrapped evaluator's
// (the network's), the search the wrapper's.
func TestAnalyzeUnwraps(t *testing.T) {
	inner := evaltest.Draw
	a, err := Analyze(context.Background(), wrapped{wrapped{inner}}, rules.NewGame(rules.Start()), Limits{Visits: 20}, mcts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.WDL != inner {
		t.Errorf("direct WDL %v, want the inner evaluator's %v", a.WDL, inner)
	}
	if a.Search.Value == 0 { // the inner evaluator's draws would give 0
		t.Errorf("search value %v, want the wrapper's values", a.Search.Value)
	}
}
