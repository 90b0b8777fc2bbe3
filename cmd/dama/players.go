package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"dama/arena"
	"dama/model"
)

// defaultMCTSVisits is the visit count of a checkpoint player given without
// "@N".
const defaultMCTSVisits = 200

func init() {
	playerFromSpec = parsePlayerSpec
}

// parsePlayerSpec extends arena.ParsePlayer with checkpoints: "PATH" or
// "PATH@N" is an MCTS player over the network in the checkpoint file PATH
// with N visits per move (default 200).
func parsePlayerSpec(spec string) (arena.Player, error) {
	if p, err := arena.ParsePlayer(spec); err == nil {
		return p, nil
	} else if !looksLikeCheckpoint(spec) {
		return nil, fmt.Errorf("%w (or a checkpoint file, PATH[@VISITS])", err)
	}
	path, visits := spec, defaultMCTSVisits
	if i := strings.LastIndexByte(spec, '@'); i >= 0 {
		n, err := strconv.Atoi(spec[i+1:])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("player %q: visits after @ must be a positive integer", spec)
		}
		path, visits = spec[:i], n
	}
	ck, err := loadModel(path)
	if err != nil {
		return nil, err
	}
	return newModelPlayer(filepath.Base(path), ck, visits, 64), nil
}

func looksLikeCheckpoint(spec string) bool {
	path := spec
	if i := strings.LastIndexByte(spec, '@'); i >= 0 {
		path = spec[:i]
	}
	_, err := os.Stat(path)
	return err == nil || strings.HasSuffix(path, ".ckpt")
}

// modelPlayer is an MCTS player that owns its network evaluator.
type modelPlayer struct {
	*arena.MCTSPlayer
	ev *model.Evaluator
}

func newModelPlayer(label string, ck *model.Checkpoint, visits, batch int) *modelPlayer {
	ev := model.NewEvaluator(ck.Net, model.EvaluatorOptions{MaxBatch: batch, CacheSize: 1 << 16})
	return &modelPlayer{
		MCTSPlayer: &arena.MCTSPlayer{Label: fmt.Sprintf("%s@%d", label, visits), Evaluator: ev, Visits: visits},
		ev:         ev,
	}
}

// Close stops the evaluator.
func (p *modelPlayer) Close() error {
	p.ev.Close()
	return nil
}
