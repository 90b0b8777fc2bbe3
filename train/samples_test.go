package train

import (
	"reflect"
	"testing"

	"dama/model"
	"dama/model/learn"
	"dama/rules"
	"dama/selfplay"
)

// samplesBefore is gameSamples as it was before the value target mix and
// stored policy targets, kept to hold targetOptions{} to it.
func samplesBefore(g *selfplay.Game, dst []learn.Sample) []learn.Sample {
	winner, decided := g.Result.Winner()
	for i := range g.Plies {
		p := &g.Plies[i]
		if !p.Full || len(p.Legal) < 2 {
			continue
		}
		var total uint64
		for _, v := range p.Visits {
			total += uint64(v)
		}
		if total == 0 {
			continue
		}
		pol := make([]float32, len(p.Visits))
		for j, v := range p.Visits {
			pol[j] = float32(float64(v) / float64(total))
		}
		var wdl [3]float32
		switch {
		case !decided:
			wdl[1] = 1
		case winner == p.Pos.Side():
			wdl[0] = 1
		default:
			wdl[2] = 1
		}
		dst = append(dst, learn.Sample{
			Pos: p.Pos, Repetitions: p.Repetitions, QuietPlies: p.QuietPlies,
			Legal: p.Legal, Policy: pol, WDL: wdl,
		})
	}
	return dst
}

func TestSamplesMixOffUnchanged(t *testing.T) {
	_, games, err := selfplay.ReadFile("../selfplay/testdata/games-v1.dgames")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range games {
		want := samplesBefore(g, nil)
		if got := (targetOptions{}).Samples(g, nil); !reflect.DeepEqual(got, want) {
			t.Errorf("game %d: samples with mix 0 differ from before", g.Seed)
		}
		if got := gameSamples(g, nil); !reflect.DeepEqual(got, want) {
			t.Errorf("game %d: gameSamples differs from before", g.Seed)
		}
		n += len(want)
	}
	if n == 0 {
		t.Fatal("no samples in the test games")
	}
}

func TestValueTargetMix(t *testing.T) {
	p := rules.Start()
	legal := p.Legal(nil)
	visits := make([]uint32, len(legal))
	visits[0] = 4
	g := &selfplay.Game{
		Start: p, Result: rules.WhiteWins,
		Plies: []selfplay.Ply{{Pos: p, Legal: legal, Visits: visits, Full: true, WDL: [3]float32{0.2, 0.5, 0.3}}},
	}
	near := func(a, b [3]float32) bool {
		for i := range a {
			if d := a[i] - b[i]; d > 1e-6 || d < -1e-6 {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		m    float64
		want [3]float32
	}{
		{0, [3]float32{1, 0, 0}},
		{0.25, [3]float32{0.75 + 0.25*0.2, 0.25 * 0.5, 0.25 * 0.3}},
		{1, [3]float32{0.2, 0.5, 0.3}},
	} {
		s := targetOptions{ValueTargetMix: tc.m}.Samples(g, nil)
		if len(s) != 1 || !near(s[0].WDL, tc.want) {
			t.Errorf("mix %v: WDL %v, want %v", tc.m, s[0].WDL, tc.want)
		}
	}
	// A WDL that does not sum to 1 is normalised; none at all leaves the
	// result alone.
	g.Plies[0].WDL = [3]float32{0.4, 1, 0.6}
	if s := (targetOptions{ValueTargetMix: 0.5}).Samples(g, nil); !near(s[0].WDL, [3]float32{0.6, 0.25, 0.15}) {
		t.Errorf("unnormalised WDL: %v", s[0].WDL)
	}
	g.Plies[0].WDL = [3]float32{}
	if s := (targetOptions{ValueTargetMix: 0.5}).Samples(g, nil); s[0].WDL != [3]float32{1, 0, 0} {
		t.Errorf("no search WDL: %v, want the result", s[0].WDL)
	}
}

func TestStoredPolicyTarget(t *testing.T) {
	p := rules.Start()
	legal := p.Legal(nil)
	visits := make([]uint32, len(legal))
	visits[0] = 10
	pol := make([]float32, len(legal))
	pol[1], pol[2] = 0.3, 0.1 // not normalised
	g := &selfplay.Game{
		Start: p, Result: rules.Draw,
		Plies: []selfplay.Ply{{Pos: p, Legal: legal, Visits: visits, Policy: pol, Full: true}},
	}
	s := gameSamples(g, nil)
	if len(s) != 1 || s[0].Policy[0] != 0 || s[0].Policy[1] != 0.75 || s[0].Policy[2] != 0.25 {
		t.Errorf("policy target %v, want the stored one normalised (0, 0.75, 0.25, ...)", s[0].Policy)
	}
}

// A ply's target that is not normalised (visit counts, a stored target
// with another sum) is normalised once, here: the trainer takes the
// samples as they are, and refuses the raw counts (issue 11, point 5).
func TestTargetsNormalisedOnceForTrainer(t *testing.T) {
	p := rules.Start()
	legal := p.Legal(nil)
	visits := make([]uint32, len(legal))
	for i := range visits {
		visits[i] = uint32(3 * (i + 1))
	}
	stored := make([]float32, len(legal))
	stored[0], stored[1] = 2, 6
	g := &selfplay.Game{
		Start: p, Result: rules.Draw,
		Plies: []selfplay.Ply{{Pos: p, Legal: legal, Visits: visits, Full: true}, {Pos: p, Legal: legal, Visits: visits, Policy: stored, Full: true}},
	}
	s := gameSamples(g, nil)
	if len(s) != 2 || s[1].Policy[0] != 0.25 || s[1].Policy[1] != 0.75 {
		t.Fatalf("samples %+v, want two, the second's target 0.25, 0.75, 0, ...", s)
	}
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := learn.NewTrainer(&model.Checkpoint{Net: model.NewSeededNetwork(cfg, 1)}, learn.TrainOptions{Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Step(s); err != nil {
		t.Errorf("trainer refused the samples: %v", err)
	}
	raw := append([]learn.Sample(nil), s...)
	raw[0].Policy = make([]float32, len(visits))
	for i, v := range visits {
		raw[0].Policy[i] = float32(v)
	}
	if _, err := tr.Step(raw); err == nil {
		t.Error("trainer took raw visit counts as a target")
	}
}

// TestSamplesOfFullSearches builds a game of six plies: full, full, cheap,
// full, forced, full. Only the full searches give samples, each with its
// visits as the policy target.
func TestSamplesOfFullSearches(t *testing.T) {
	g := &selfplay.Game{Start: rules.Start(), Result: rules.Draw}
	pos := rules.Start()
	kinds := []string{"full", "full", "cheap", "full", "forced", "full"}
	for i, kind := range kinds {
		legal := pos.Legal(nil)
		if len(legal) < 2 {
			t.Fatalf("ply %d: %d legal moves", i, len(legal))
		}
		p := selfplay.Ply{Pos: pos, Legal: legal, Visits: make([]uint32, len(legal)), Full: kind == "full"}
		switch kind {
		case "full":
			p.Visits[i%len(legal)], p.Visits[(i+1)%len(legal)] = 3, 1
		case "cheap":
			p.Visits[0] = 5 // visits, but not a policy target
		case "forced":
			p.Legal, p.Visits = legal[:1], p.Visits[:1] // one move: no search
		}
		// Play a move after which the opponent has a choice.
		for k, m := range p.Legal {
			if q := pos.Play(m); len(q.Legal(nil)) >= 2 || k == len(p.Legal)-1 {
				p.Move = k
				break
			}
		}
		g.Plies = append(g.Plies, p)
		pos = pos.Play(p.Played())
	}
	s := targetOptions{}.Samples(g, nil)
	if len(s) != 4 {
		t.Fatalf("%d samples, want 4 (plies 0, 1, 3 and 5)", len(s))
	}
	for k, ply := range []int{0, 1, 3, 5} {
		p := &g.Plies[ply]
		n := len(p.Legal)
		if s[k].Pos != p.Pos || s[k].Policy[ply%n] != 0.75 || s[k].Policy[(ply+1)%n] != 0.25 {
			t.Errorf("sample %d: %s with target %v, want ply %d's position with 0.75 and 0.25 on moves %d and %d", k, s[k].Pos.FEN(), s[k].Policy, ply, ply%n, (ply+1)%n)
		}
	}
}
