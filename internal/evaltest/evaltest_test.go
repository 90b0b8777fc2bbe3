package evaltest

import (
	"context"
	"math"
	"testing"

	"dama/mcts"
	"dama/rules"
)

func evaluate(t *testing.T, ev mcts.Evaluator, p rules.Position) mcts.Evaluation {
	t.Helper()
	legal := p.Legal(nil)
	out := mcts.Evaluation{Priors: make([]float32, len(legal))}
	if err := ev.Evaluate(context.Background(), mcts.Query{Pos: p, Legal: legal}, &out); err != nil {
		t.Fatal(err)
	}
	var sum float32
	for _, x := range out.Priors {
		if x != out.Priors[0] {
			t.Errorf("priors %v, want uniform", out.Priors)
		}
		sum += x
	}
	if math.Abs(float64(sum)-1) > 1e-5 {
		t.Errorf("priors sum to %v", sum)
	}
	return out
}

func TestConstant(t *testing.T) {
	if got := evaluate(t, Constant{0.3, 0.4, 0.3}, rules.Start()).WDL; got != [3]float32{0.3, 0.4, 0.3} {
		t.Errorf("WDL %v", got)
	}
	if got := evaluate(t, Draw, rules.Start()).WDL; got != [3]float32{0, 1, 0} {
		t.Errorf("Draw: WDL %v", got)
	}
}

func TestMaterial(t *testing.T) {
	if got := evaluate(t, Material{}, rules.Start()).WDL; got != [3]float32{0, 1, 0} {
		t.Errorf("start: WDL %v, want an even game", got)
	}
	// Play until a capture changes the balance: the side ahead sees a
	// win, the other side the mirror image, and a steeper scale more.
	g := rules.NewGame(rules.Start())
	for ply := 0; ply < 200 && !g.Outcome().Over(); ply++ {
		p := g.Position()
		me, opp := p.Side(), p.Side().Opponent()
		mm, mk := p.Count(me)
		om, ok := p.Count(opp)
		if d := float64(mm-om) + 1.5*float64(mk-ok); d != 0 {
			w := materialWDL(p, 1)
			want := math.Tanh(d / 3)
			if got := float64(w[0] - w[2]); math.Abs(got-want) > 1e-6 {
				t.Fatalf("balance %v: W-L %v, want %v", d, got, want)
			}
			if s := materialWDL(p, 3); math.Abs(float64(s[0]-s[2])) <= math.Abs(float64(w[0]-w[2])) {
				t.Errorf("steep 3: %v not beyond steep 1: %v", s, w)
			}
			return
		}
		g.PlayUnchecked(p.Legal(nil)[0])
	}
	t.Fatal("no capture in the game")
}
