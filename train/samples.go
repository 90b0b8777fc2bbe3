package train

import (
	"path/filepath"

	"dama/model"
	"dama/selfplay"
)

// GameSamples turns a self-play game into training samples: one per ply
// searched in full (cheap searches of playout cap randomisation and forced
// moves carry no policy target and are left out). The policy target is the
// visit distribution; the value target is the game's result from the side to
// move's point of view (an adjudicated length cap is a draw, a resignation a
// loss for the side that resigned).
func GameSamples(g *selfplay.Game, dst []model.Sample) []model.Sample {
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
		dst = append(dst, model.Sample{
			Pos: p.Pos, Repetitions: p.Repetitions, QuietPlies: p.QuietPlies,
			Legal: p.Legal, Policy: pol, WDL: wdl,
		})
	}
	return dst
}

// chunkInfo is what the trainer knows of one games file.
type chunkInfo struct {
	Name      string `json:"name"` // file name in games/
	Games     int    `json:"games"`
	Positions int    `json:"positions"` // training samples it gives
}

// readChunk loads the samples of a games file in the run.
func (r *Run) readChunk(name string) ([]model.Sample, int, error) {
	_, games, err := selfplay.ReadFile(filepath.Join(r.Path(GamesDir), name))
	if err != nil {
		return nil, 0, err
	}
	var out []model.Sample
	for _, g := range games {
		out = GameSamples(g, out)
	}
	return out, len(games), nil
}
