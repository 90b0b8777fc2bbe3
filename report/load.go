package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"dama/configs"
	"dama/runfolder"
)

// Load reads the records of a run folder. A run without records
// gives an empty report, not an error; a record that does not decode gives
// an error naming its file and line.
func Load(r *runfolder.Run) (*Report, error) {
	err := r.Exists()
	if err != nil {
		return nil, err
	}
	rep := &Report{Dir: r.Dir, samplesByGen: map[int]int64{}}
	if cfg, err := configs.Load(r.Path(runfolder.ConfigFile), nil, nil); err == nil {
		switch a := cfg.Arena; a.Gating {
		case "threshold":
			rep.Promotion = a.Threshold
			rep.PromotionLabel = fmt.Sprintf("promotion threshold (%.0f%%)", 100*a.Threshold)
		case "sprt":
			mid := (a.Elo0 + a.Elo1) / 2
			rep.Promotion = eloScore(mid)
			rep.PromotionLabel = fmt.Sprintf("SPRT midpoint (%+.0f Elo, %.1f%%)", mid, 100*eloScore(mid))
		}
	}

	var ls lossSeries
	var last runfolder.MetricRecord
	var firstMetric time.Time
	stepsOf := map[int]int{}
	err = runfolder.ReadMetrics(r, func(m runfolder.MetricRecord) error {
		rep.MetricLines++
		stepsOf[m.Gen]++
		ls.add(m)
		last = m
		rep.samplesByGen[m.Gen] = m.Samples
		if firstMetric.IsZero() && !m.Time.IsZero() {
			firstMetric = m.Time
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Losses = ls.points()
	if rep.MetricLines > 0 {
		rep.LastMetric = &last
	}

	byGen := map[int]runfolder.ArenaRecord{}
	var firstArena time.Time
	err = runfolder.ReadJSONL(r, runfolder.ArenaFile, func(a runfolder.ArenaRecord) error {
		rep.ArenaLines++
		byGen[a.Gen] = a // a rerun of a killed match replaces the earlier line
		if firstArena.IsZero() && !a.Time.IsZero() {
			firstArena = a.Time
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, a := range byGen {
		rep.Arena = append(rep.Arena, a)
	}
	sort.Slice(rep.Arena, func(i, j int) bool { return rep.Arena[i].Gen < rep.Arena[j].Gen })

	err = runfolder.ReadLadder(r, func(l runfolder.LadderRecord) error {
		if n := len(rep.Ladder); n > 0 && rep.Ladder[n-1].Gen == l.Gen {
			rep.Ladder[n-1] = l // a rerun after a kill replaces the line
		} else {
			rep.Ladder = append(rep.Ladder, l)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(rep.Ladder, func(i, j int) bool { return rep.Ladder[i].Gen < rep.Ladder[j].Gen })

	if rep.Changes, err = r.ReadChanges(); err != nil {
		return nil, err
	}

	waiting, quarantined, err := countChunks(r)
	if err != nil {
		return nil, err
	}
	rep.Waiting, rep.Quarantined = len(waiting), quarantined

	gens, err := readGenerations(r)
	if err != nil {
		return nil, err
	}
	var chain, chainVar float64
	for _, g := range gens {
		row := GenerationRow{GenerationRecord: g}
		elo, sigma := g.Elo, 0.0
		if a, ok := byGen[g.Gen]; ok {
			row.Match = &a
			elo = a.Elo
			sigma = eloSigma(a)
		}
		if !finite(elo) {
			elo = 0
		}
		row.CandidateElo = chain + elo
		if g.Promoted {
			chain += elo
			chainVar += sigma * sigma
		}
		row.BestChainElo = chain
		row.BestChainErr = z95 * math.Sqrt(chainVar)
		rep.Generations = append(rep.Generations, row)
	}

	for _, t := range []time.Time{firstMetric, firstArena} {
		if !t.IsZero() && (rep.Start.IsZero() || t.Before(rep.Start)) {
			rep.Start = t
		}
	}
	if len(gens) > 0 && !gens[0].Finished.IsZero() {
		g := gens[0]
		t := g.Finished.Add(-seconds(g.SelfPlaySec + g.TrainSec + g.ArenaSec))
		if rep.Start.IsZero() || t.Before(rep.Start) {
			rep.Start = t
		}
	}
	if rep.Progress, err = progressOf(r, rep, stepsOf, waiting); err != nil {
		return nil, err
	}
	return rep, nil
}

// countChunks lists the chunk files of games/ that no plan takes (by
// name) and counts those of quarantine/.
func countChunks(r *runfolder.Run) (waiting []string, quarantined int, err error) {
	consumed, err := r.ConsumedChunks()
	if err != nil {
		return nil, 0, err
	}
	games, err := filepath.Glob(r.Path(runfolder.GamesDir, "chunk-*.dgames"))
	if err != nil {
		return nil, 0, err
	}
	for _, g := range games {
		if !consumed[filepath.Base(g)] {
			waiting = append(waiting, filepath.Base(g))
		}
	}
	q, err := filepath.Glob(r.Path(runfolder.QuarantineDir, "*.dgames"))
	return waiting, len(q), err
}

// readGenerations reads generations/NNNN.json in order of generation,
// skipping files with other names (temporary files of a writer).
func readGenerations(r *runfolder.Run) ([]runfolder.GenerationRecord, error) {
	ents, err := os.ReadDir(r.Path(runfolder.GenerationsDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []runfolder.GenerationRecord
	for _, e := range ents {
		gen, ok := generationFileGen(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		path := r.Path(runfolder.GenerationsDir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var g runfolder.GenerationRecord
		if err := json.Unmarshal(b, &g); err != nil {
			return nil, jsonFileError(path, b, err)
		}
		if g.Gen != gen {
			return nil, fmt.Errorf("%s: field gen is %d, want %d from the file name", path, g.Gen, gen)
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Gen < out[j].Gen })
	return out, nil
}

// generationFileGen parses "0007.json" as 7; other names are not
// generation records.
func generationFileGen(name string) (int, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok || len(base) < 4 {
		return 0, false
	}
	for _, c := range base {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(base)
	return n, err == nil
}

// jsonFileError names the file, line and column of a JSON decoding error.
func jsonFileError(path string, b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return fmt.Errorf("%s: %w", path, err)
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Errorf("%s line %d column %d: %w", path, line, col, err)
}
