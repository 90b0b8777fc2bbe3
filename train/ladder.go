package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"dama/arena"
	"dama/configs"
	"dama/model"
	"dama/model/infer"
	"dama/player"
	"dama/runfolder"
	"dama/selfplay"
)

// rateCheckpoint rates the model in the checkpoint at path on the ladder l
// with the settings of lc, searching by player.Ladder (the self-play
// search constants of sc, without noise). onGame, if set, is called after each game (numbered
// across the climb, see arena.LadderOptions).
func rateCheckpoint(ctx context.Context, path string, l *arena.Ladder, lc configs.Ladder, sc configs.SelfPlay, onGame func(arena.GameResult)) (arena.LadderResult, error) {
	ck, err := model.Load(path)
	if err != nil {
		return arena.LadderResult{}, err
	}
	ev, err := infer.OpenEvaluator(ck.Net, selfplay.MatchEvaluatorOptions(sc, lc.Parallel, 1<<18))
	if err != nil {
		return arena.LadderResult{}, err
	}
	defer ev.Close()
	s := player.Ladder(sc, lc)
	p := &arena.MCTSPlayer{Label: fmt.Sprintf("%s@%d", filepath.Base(path), s.Visits), Evaluator: ev, Visits: s.Visits, Options: s.Options()}
	return arena.Climb(ctx, p, l, arena.ParsePlayer, arena.LadderOptions{
		Games: lc.Games, ProbePairs: 1, Parallel: lc.Parallel,
		OnGame: func(_ int, g arena.GameResult) {
			if onGame != nil {
				onGame(g)
			}
		},
	})
}

// rate puts the best model on the ladder after generation gen when the
// configuration asks for it (every ladder.every generations) and this best
// model has not been rated yet.
func (l *loop) rate(ctx context.Context, gen int) error {
	lc := l.cfg.Ladder
	if lc.Every <= 0 || gen <= 0 || gen%lc.Every != 0 {
		return nil
	}
	best, err := l.run.Best()
	if err != nil {
		return err
	}
	done := false
	err = runfolder.ReadJSONL(l.run, runfolder.LadderFile, func(r runfolder.LadderRecord) error {
		if r.Gen == gen || r.Model == best {
			done = true
		}
		return nil
	})
	if err != nil || done {
		return err
	}
	lad, err := loadLadder(lc)
	if err != nil {
		return err
	}
	rec := runfolder.LadderRecord{Gen: gen, Model: best, Ladder: lad.Checksum[:12], Visits: lc.Visits}
	for g := 1; g <= gen; g++ {
		r, err := l.run.ReadRecord(g)
		if err != nil {
			return fmt.Errorf("train: ladder after generation %d: %w", gen, err)
		}
		rec.CPUHours += r.CPUSec / 3600
		rec.TotalGames += r.Games
		rec.TotalPositions += int64(r.Positions)
	}
	start := time.Now()
	st := startStage(l.opt.Progress, Event{Gen: gen, Stage: StageLadder, Total: lc.Games})
	var played []arena.GameResult
	res, err := rateCheckpoint(ctx, l.run.Path(best), lad, lc, l.cfg.SelfPlay, func(g arena.GameResult) {
		played = append(played, g)
		st.add(1)
	})
	st.finish()
	if err != nil {
		return err
	}
	// The games before the record, as for the gate: a rating redone after
	// a kill rewrites them.
	tags := matchTags(fmt.Sprintf("ladder rating of %s after generation %d", best, gen), gen)
	if err := arena.WriteCounted(l.run.MatchGamesPath(runfolder.LadderGames, gen), played, res.Games, tags...); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	rec.LadderSec = time.Since(start).Seconds()
	rec.Games, rec.Elo, rec.Low, rec.High = res.Games, res.Elo, res.Low, res.High
	switch {
	case res.AboveTop:
		rec.Bound = "above"
	case res.BelowBottom:
		rec.Bound = "below"
	}
	rec.Time = time.Now().UTC()
	if err := l.run.AppendJSONL(runfolder.LadderFile, rec); err != nil {
		return err
	}
	fmt.Fprintf(l.log, "gen %d: ladder %s: Elo %+.0f [%+.0f, %+.0f] from %d games at %d visits (%.1f trainer CPU-hours, %d games so far) in %.0fs\n",
		gen, best, rec.Elo, rec.Low, rec.High, rec.Games, rec.Visits, rec.CPUHours, rec.TotalGames, rec.LadderSec)
	return nil
}

// checkInit records Options.Init in a new run folder, or checks that a
// resumed run was started from the same checkpoint.
func (l *loop) checkInit() error {
	path := l.run.Path(runfolder.InitFile)
	prev, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if l.opt.Init == "" {
		return nil
	}
	b, err := os.ReadFile(l.opt.Init)
	if err != nil {
		return fmt.Errorf("train: --init: %w", err)
	}
	sum := sha256.Sum256(b)
	line := fmt.Sprintf("%s %s\n", hex.EncodeToString(sum[:]), l.opt.Init)
	switch {
	case prev != nil:
		if !strings.HasPrefix(string(prev), hex.EncodeToString(sum[:])) {
			return fmt.Errorf("train: run folder %s was started from %s; --init %s is another checkpoint (leave --init out to resume the run)", l.run.Dir, strings.TrimSpace(string(prev)), l.opt.Init)
		}
		return nil
	case l.run.FindCheckpoint(0) != "":
		return fmt.Errorf("train: run folder %s already has a generation 0 not made from --init %s; start a new --run", l.run.Dir, l.opt.Init)
	}
	return runfolder.WriteFileAtomic(path, []byte(line))
}

// loadLadder returns the ladder the configuration names.
func loadLadder(lc configs.Ladder) (*arena.Ladder, error) {
	if lc.File == "" {
		return arena.DefaultLadder()
	}
	l, err := arena.ReadLadder(lc.File)
	if err != nil {
		return nil, fmt.Errorf("train: ladder.file: %w", err)
	}
	return l, nil
}
