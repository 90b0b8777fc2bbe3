package train

import (
	"path/filepath"

	"dama/mcts"
	"dama/model/learn"
	"dama/runfolder"
	"dama/selfplay"
	"dama/tb"
)

// gameSamples turns a self-play game into training samples with the value
// target the game's result alone: targetOptions{}.Samples.
func gameSamples(g *selfplay.Game, dst []learn.Sample) []learn.Sample {
	return targetOptions{}.Samples(g, dst)
}

// targetOptions choose how training targets are made from games.
type targetOptions struct {
	// ValueTargetMix m in [0,1] mixes the root search's WDL of each
	// position (selfplay.Ply.WDL) into its value target:
	// (1-m) * result + m * WDL. 0: the result alone.
	ValueTargetMix float64
	// Tables, if set (selfplay.tables), give every position they answer
	// for (tb.Oracle at the ply's 40-move counter; not a position that
	// occurred before in the game) its exact W/D/L as value target, in
	// place of the game's result and not mixed with the search's WDL:
	// ValueTargetMix applies to the other positions only.
	Tables *tb.Tables
}

// Samples turns a self-play game into training samples: one per ply
// searched in full (cheap searches of playout cap randomisation and forced
// moves carry no policy target and are left out). The policy target is the
// ply's stored policy target when it has one (selfplay.Ply.Policy: files
// of the removed Gumbel root search), otherwise its visit distribution;
// the value target is the game's result from the side to move's point of
// view (an adjudicated length cap is a draw, a resignation a loss for the
// side that resigned), mixed with the root search's WDL by
// ValueTargetMix; a position in Tables gets their exact value instead.
func (o targetOptions) Samples(g *selfplay.Game, dst []learn.Sample) []learn.Sample {
	winner, decided := g.Result.Winner()
	m := float32(o.ValueTargetMix)
	for i := range g.Plies {
		p := &g.Plies[i]
		if !p.Full || len(p.Legal) < 2 {
			continue
		}
		pol := policyTarget(p)
		if pol == nil {
			continue
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
		if exact, ok := o.tableWDL(p); ok {
			wdl = exact
		} else if sum := p.WDL[0] + p.WDL[1] + p.WDL[2]; m > 0 && sum > 0 {
			for k := range wdl {
				wdl[k] = (1-m)*wdl[k] + m*p.WDL[k]/sum
			}
		}
		dst = append(dst, learn.Sample{
			Pos: p.Pos, Repetitions: p.Repetitions, QuietPlies: p.QuietPlies,
			Legal: p.Legal, Policy: pol, WDL: wdl,
		})
	}
	return dst
}

// tableWDL returns the exact value target of p from o.Tables: one-hot win,
// draw or loss for the side to move; ok is false where they do not answer.
func (o targetOptions) tableWDL(p *selfplay.Ply) (wdl [3]float32, ok bool) {
	if o.Tables == nil {
		return wdl, false
	}
	proof, ok := tb.Oracle{T: o.Tables}.Prove(p.Query())
	switch {
	case !ok:
		return wdl, false
	case proof == mcts.ProofWin:
		wdl[0] = 1
	case proof == mcts.ProofLoss:
		wdl[2] = 1
	default:
		wdl[1] = 1
	}
	return wdl, true
}

// policyTarget returns the normalised policy target of a ply: its stored
// target (negative entries as 0), or else its visits; nil when it has none.
// This is the one place a target is normalised: the trainer takes it as it
// is.
func policyTarget(p *selfplay.Ply) []float32 {
	var total float64
	if p.Policy != nil {
		for _, x := range p.Policy {
			total += float64(max(x, 0))
		}
	} else {
		for _, v := range p.Visits {
			total += float64(v)
		}
	}
	if total == 0 {
		return nil
	}
	if p.Policy != nil {
		pol := make([]float32, len(p.Policy))
		for j, x := range p.Policy {
			pol[j] = float32(float64(max(x, 0)) / total)
		}
		return pol
	}
	pol := make([]float32, len(p.Visits))
	for j, v := range p.Visits {
		pol[j] = float32(float64(v) / total)
	}
	return pol
}

// readChunk decodes the games file name of run r into samples.
func readChunk(r *runfolder.Run, name string, opt targetOptions) ([]learn.Sample, int, error) {
	_, games, err := selfplay.ReadFile(filepath.Join(r.Path(runfolder.GamesDir), name))
	if err != nil {
		return nil, 0, err
	}
	return samplesOf(games, opt), len(games), nil
}

// samplesOf returns the samples of games.
func samplesOf(games []*selfplay.Game, opt targetOptions) []learn.Sample {
	var out []learn.Sample
	for _, g := range games {
		out = opt.Samples(g, out)
	}
	return out
}
