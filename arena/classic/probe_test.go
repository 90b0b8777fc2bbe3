package classic

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"dama/rules"
)

func TestProbe(t *testing.T) {
	if os.Getenv("PROBE") == "" {
		t.Skip()
	}
	for _, fen := range []string{rules.StartFEN, "W:W17,21,22,23,25,26,27,29,30,31:B2,3,5,6,7,9,10,11,13,14"} {
		p, _ := rules.ParseFEN(fen)
		for d := 1; d <= 16; d++ {
			e := New(Options{})
			g := rules.NewGame(p)
			t0 := time.Now()
			r, err := e.Search(context.Background(), g, Limits{Depth: d}, rand.New(rand.NewPCG(1, 2)))
			el := time.Since(t0)
			t.Logf("%s d%d %v %s score %d nodes %d %.2f Mn/s pv %v err %v", fen[:6], d, el.Round(time.Millisecond), r.Move, r.Score, r.Nodes, float64(r.Nodes)/el.Seconds()/1e6, r.PV, err)
			if el > 3*time.Second {
				break
			}
		}
	}
}
