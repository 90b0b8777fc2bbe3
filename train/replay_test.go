package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"dama/configs"
	"dama/model/learn"
	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
)

// chunkOf returns n samples whose QuietPlies field names their chunk and
// whose Repetitions field is their index in it.
func chunkOf(id, n int) []learn.Sample {
	s := make([]learn.Sample, n)
	for i := range s {
		s[i].QuietPlies = id
		s[i].Repetitions = i
	}
	return s
}

// The window holds exactly the newest size samples: the newest chunks, and
// of the oldest of them only its newest samples, so train.window_max is a
// cap (issue 19, item 6: whole chunks made a window of 22,322 samples
// against window_max 20,000).
func TestWindowKeepsNewestChunks(t *testing.T) {
	order := []runfolder.ChunkInfo{{Name: "a", Positions: 100}, {Name: "b", Positions: 50}, {Name: "c", Positions: 30}, {Name: "d", Positions: 40}}
	ids := map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}
	loads := map[string]int{}
	load := func(name string) ([]learn.Sample, error) {
		loads[name]++
		for _, c := range order {
			if c.Name == name {
				return chunkOf(ids[name], c.Positions), nil
			}
		}
		return nil, errors.New("no chunk " + name)
	}
	var w window
	if err := w.Update(order, 60, load); err != nil {
		t.Fatal(err)
	}
	// 60 positions: d (40) and the newest 20 of c (30).
	if w.Len() != 60 || w.Chunks() != 2 || windowSpan(order, 60) != 60 {
		t.Errorf("window holds %d samples in %d chunks (span %d), want 60 in 2", w.Len(), w.Chunks(), windowSpan(order, 60))
	}
	// Growing to 100 adds the newest 30 of b without loading c and d again.
	if err := w.Update(order, 100, load); err != nil {
		t.Fatal(err)
	}
	if w.Len() != 100 || loads["c"] != 1 || loads["d"] != 1 || loads["b"] != 1 || loads["a"] != 0 {
		t.Errorf("window %d samples, loads %v; want 100 samples, c and d loaded once, a never", w.Len(), loads)
	}
	// Sampling is uniform over positions: chunk shares follow the parts
	// held, and of b only its newest 30 samples (indexes 20..49) are drawn.
	rng := rand.New(rand.NewPCG(1, 2))
	dst := make([]learn.Sample, 100000)
	w.Sample(rng, dst)
	count := map[int]int{}
	for _, s := range dst {
		count[s.QuietPlies]++
		if s.QuietPlies == 2 && s.Repetitions < 20 {
			t.Fatalf("sample %d of b drawn: older than the window", s.Repetitions)
		}
	}
	for id, size := range map[int]int{2: 30, 3: 30, 4: 40} {
		want := float64(size) / 100
		got := float64(count[id]) / float64(len(dst))
		if math.Abs(got-want) > 0.01 {
			t.Errorf("chunk %d drawn %.3f of the time, want %.3f", id, got, want)
		}
	}
	if count[1] != 0 {
		t.Errorf("a dropped chunk was sampled %d times", count[1])
	}
	// Fewer samples than the size: all of them.
	if err := w.Update(order, 1000, load); err != nil || w.Len() != 220 || windowSpan(order, 1000) != 220 {
		t.Errorf("size 1000: %d samples, span %d, error %v; want all 220", w.Len(), windowSpan(order, 1000), err)
	}
	if err := w.Update(append(order, runfolder.ChunkInfo{Name: "e", Positions: 5}), 10, load); err == nil {
		t.Error("a chunk that fails to load gave no error")
	}
}

func TestGameSamplesTargets(t *testing.T) {
	p := rules.Start()
	legal := p.Legal(nil)
	visits := make([]uint32, len(legal))
	visits[0], visits[1] = 3, 1
	q := p.Play(legal[0])
	qlegal := q.Legal(nil)
	g := &selfplay.Game{
		Start:  p,
		Result: rules.WhiteWins,
		Plies: []selfplay.Ply{
			{Pos: p, Legal: legal, Visits: visits, Move: 0, Full: true},
			{Pos: q, Legal: qlegal, Visits: make([]uint32, len(qlegal)), Move: 0, Full: true}, // no visits: skipped
			{Pos: q, Legal: qlegal, Visits: append([]uint32{2}, make([]uint32, len(qlegal)-1)...), Move: 0, Full: false},
		},
	}
	s := gameSamples(g, nil)
	if len(s) != 1 {
		t.Fatalf("got %d samples, want 1 (the full search with visits)", len(s))
	}
	if s[0].Policy[0] != 0.75 || s[0].Policy[1] != 0.25 {
		t.Errorf("policy target %v, want visits normalised (0.75, 0.25, 0...)", s[0].Policy[:2])
	}
	if s[0].WDL != [3]float32{1, 0, 0} {
		t.Errorf("White to move in a White win: WDL target %v, want a win", s[0].WDL)
	}
	// The same ply seen from Black's side of a White win is a loss; a draw is a draw.
	g.Plies = []selfplay.Ply{{Pos: q, Legal: qlegal, Visits: append([]uint32{1}, make([]uint32, len(qlegal)-1)...), Full: true}}
	if s := gameSamples(g, nil); s[0].WDL != [3]float32{0, 0, 1} {
		t.Errorf("Black to move in a White win: WDL target %v, want a loss", s[0].WDL)
	}
	g.Result = rules.Draw
	if s := gameSamples(g, nil); s[0].WDL != [3]float32{0, 1, 0} {
		t.Errorf("draw: WDL target %v, want a draw", s[0].WDL)
	}
}

// TestTrainOptionsZeroMomentumIsPlainSGD: 0 is none on both sides (the
// trainer used to read 0 as its default 0.9 and a negative value as none).
func TestTrainOptionsZeroMomentumIsPlainSGD(t *testing.T) {
	if m := trainOptions(configs.Train{Momentum: 0}).Momentum; m != 0 {
		t.Errorf("train.momentum 0 maps to model momentum %v, want 0 (none)", m)
	}
	if m := trainOptions(configs.Train{Momentum: 0.5}).Momentum; m != 0.5 {
		t.Errorf("train.momentum 0.5 maps to %v", m)
	}
}
