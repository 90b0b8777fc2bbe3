package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"dama/arena"
	"dama/configs"
	"dama/mcts"
	"dama/model"
	"dama/model/infer"
	"dama/player"
	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
)

// findArena returns generation gen's gating match from arena.jsonl, nil
// when it has not been played.
func (l *loop) findArena(gen int) (*runfolder.ArenaRecord, error) {
	var found *runfolder.ArenaRecord
	err := runfolder.ReadJSONL(l.run, runfolder.ArenaFile, func(a runfolder.ArenaRecord) error {
		if a.Gen == gen {
			a := a
			found = &a
		}
		return nil
	})
	return found, err
}

// gate plays the candidate against the best model and decides.
func (l *loop) gate(ctx context.Context, gen int, cand, best string) (*runfolder.ArenaRecord, error) {
	ac := l.cfg.Arena
	rec := &runfolder.ArenaRecord{Gen: gen, Candidate: cand, Best: best, Time: time.Now().UTC()}
	games := l.run.MatchGamesPath(runfolder.ArenaGames, gen)
	if ac.Gating == "none" {
		// No games; none of an earlier attempt with another gate stay.
		if err := os.Remove(games); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		rec.Verdict, rec.Promoted = "accept", true
		return rec, nil
	}
	load := func(rel string) (*infer.Evaluator, error) {
		ck, err := model.Load(l.run.Path(rel))
		if err != nil {
			return nil, err
		}
		return infer.OpenEvaluator(ck.Net, selfplay.MatchEvaluatorOptions(l.cfg.SelfPlay, ac.Parallel, 1<<16))
	}
	ce, err := load(cand)
	if err != nil {
		return nil, err
	}
	defer ce.Close()
	be, err := load(best)
	if err != nil {
		return nil, err
	}
	defer be.Close()
	st := startStage(l.opt.Progress, Event{Gen: gen, Stage: StageArena, Total: ac.Games})
	var played []arena.GameResult
	onGame := func(r arena.GameResult) {
		played = append(played, r)
		st.game(r)
	}
	res, err := gateMatch(ctx, ac, l.cfg.SelfPlay, filepath.Base(cand), filepath.Base(best), ce, be, l.cfg.Run.Seed*1_000_003+int64(gen), onGame)
	st.finish()
	if err != nil {
		return nil, err
	}
	// The games before the record: a record always has its games, and a
	// restart that plays the match again rewrites them.
	if err := arena.WriteCounted(games, played, res.Games(), matchTags("gating match of generation "+strconv.Itoa(gen)+": "+res.A+" vs "+res.B, gen)...); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	est := res.Estimate()
	rec.Games, rec.Wins, rec.Draws, rec.Losses = res.Games(), res.Wins, res.Draws, res.Losses
	elo := est.Elo
	if math.IsInf(elo, 0) && res.Games() > 0 {
		// A clean sweep has no finite estimate; count half a game more for
		// each side, as a weak prior.
		elo = arena.Elo((res.Score()*float64(res.Games()) + 0.5) / float64(res.Games()+1))
	}
	rec.Score, rec.Elo, rec.EloLow, rec.EloHigh, rec.LLR = res.Score(), clampElo(elo), clampElo(est.Low), clampElo(est.High), res.LLR
	rec.Promoted = res.Verdict == arena.Accept
	rec.Verdict = strings.ToLower(res.Verdict.String())
	return rec, nil
}

// gateMatch plays the gating match of a candidate against the best model
// with the arena settings ac, each searching by player.Gate (MCTS without
// noise, the search constants of sc), and judges it by ac.Gating.
func gateMatch(ctx context.Context, ac configs.Arena, sc configs.SelfPlay, candName, bestName string, cand, best mcts.Evaluator, seed int64, onGame func(arena.GameResult)) (arena.MatchResult, error) {
	opts := player.Gate(sc, ac).Options()
	a := &arena.MCTSPlayer{Label: candName, Evaluator: cand, Visits: ac.Visits, Options: opts}
	b := &arena.MCTSPlayer{Label: bestName, Evaluator: best, Visits: ac.Visits, Options: opts}
	mo := arena.MatchOptions{
		Games: ac.Games, Parallel: ac.Parallel, Seed: seed,
		OpeningPlies: ac.OpeningPlies, MaxPlies: ac.MaxPlies, OnGame: onGame,
	}
	switch ac.Gating {
	case "sprt":
		mo.SPRT = &arena.SPRT{Elo0: ac.Elo0, Elo1: ac.Elo1, Alpha: ac.Alpha, Beta: ac.Beta}
	case "threshold":
		mo.Threshold = ac.Threshold
	}
	return arena.Match(ctx, a, b, mo)
}

// matchTags are the tags that name a match of the run's generation gen in
// its PDN files.
func matchTags(event string, gen int) []rules.Tag {
	return []rules.Tag{{Name: "Event", Value: "dama " + event}, {Name: "Site", Value: "dama train"}, {Name: "Generation", Value: strconv.Itoa(gen)}}
}

// maxElo bounds the Elo figures written to the logs: a match won or lost
// without a single point for the other side has an infinite estimate,
// which JSON cannot hold.
const maxElo = 1000

func clampElo(e float64) float64 {
	if math.IsNaN(e) {
		return 0
	}
	return math.Max(-maxElo, math.Min(maxElo, e))
}
