package train

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"dama/runfolder"
	"dama/selfplay"
)

// checkPlans checks at start that the chunks each generation plan names
// are there and hold what the plan counts, and fills the index of the
// run's games (l.held) with their games, so that no game the run has
// taken is taken again. The plan of a completed generation that went
// missing is rebuilt from its record and its chunks, with one line; a
// missing, damaged or changed chunk is refused with one line naming it
// and what to do. It reads every planned chunk (selfplay.ScanFile: the
// frame, checksum and moves, without the legality a chunk was checked
// for when it was taken).
func (l *loop) checkPlans() error {
	start := time.Now()
	next := l.run.NextGeneration()
	type planned struct {
		gen   int
		chunk runfolder.ChunkInfo
		sum   selfplay.ChunkSummary
		err   error
	}
	var all []planned
	var paths []string
	rebuilt := map[int]bool{}
	for gen := 1; gen <= next; gen++ {
		p, err := l.run.ReadPlan(gen)
		if err != nil {
			return err
		}
		if p == nil && gen < next {
			var sums []selfplay.ChunkSummary
			if p, sums, err = l.rebuildPlan(gen); err != nil {
				return err
			}
			for i, c := range p.Chunks {
				all = append(all, planned{gen: gen, chunk: c, sum: sums[i]})
			}
			rebuilt[gen] = true
			continue
		}
		if p == nil {
			break // the next generation, not planned yet
		}
		for _, c := range p.Chunks {
			all = append(all, planned{gen: gen, chunk: c})
			paths = append(paths, l.run.Path(runfolder.GamesDir, c.Name))
		}
	}
	// Read in parallel, checked in plan order.
	sums, errs := scanChunks(paths)
	k := 0
	for i := range all {
		if !rebuilt[all[i].gen] {
			all[i].sum, all[i].err = sums[k], errs[k]
			k++
		}
	}
	by := map[string]int{} // chunk -> generation whose plan takes it
	games, repeats := 0, 0
	var repeating []int
	for _, p := range all {
		if g, ok := by[p.chunk.Name]; ok {
			return fmt.Errorf("train: %s: chunk %s was consumed already, by generation %d's plan; restore the plan as it was written", l.run.Path(runfolder.GenerationsDir, planName(p.gen)), p.chunk.Name, g)
		}
		by[p.chunk.Name] = p.gen
		if err := l.checkPlanned(p.gen, p.gen == next, p.chunk, p.sum, p.err); err != nil {
			return err
		}
		games += len(p.sum.IDs)
		if n := l.held.Add(p.chunk.Name, p.sum.IDs); n > 0 {
			repeats += n
			if !slices.Contains(repeating, p.gen) {
				repeating = append(repeating, p.gen)
			}
		}
	}
	if repeats > 0 {
		// Taken before replays were refused: trained on, as they are.
		fmt.Fprintf(l.log, "train: the plans of generations %v take %d games that repeat games of earlier chunks (taken before the trainer refused replays); new chunks that repeat any game are refused\n", repeating, repeats)
	}
	if d := time.Since(start); d > 10*time.Second {
		fmt.Fprintf(l.log, "train: read the %d games of the run's plans in %s\n", games, d.Round(time.Second))
	}
	return nil
}

// scanChunks reads the chunk files at paths (selfplay.ScanFile), as many
// at once as there are threads.
func scanChunks(paths []string) ([]selfplay.ChunkSummary, []error) {
	sums, errs := make([]selfplay.ChunkSummary, len(paths)), make([]error, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Go(func() {
			for i := range next {
				sums[i], errs[i] = selfplay.ScanFile(paths[i])
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	return sums, errs
}

// planName names generation gen's plan in the generations folder.
func planName(gen int) string { return fmt.Sprintf("%04d.plan.json", gen) }

// checkPlanned checks the chunk c of generation gen's plan (current: the
// generation in progress), as read (s, or the error err): there, whole,
// and holding what the plan counts.
func (l *loop) checkPlanned(gen int, current bool, c runfolder.ChunkInfo, s selfplay.ChunkSummary, err error) error {
	path := l.run.Path(runfolder.GamesDir, c.Name)
	planPath := l.run.Path(runfolder.GenerationsDir, planName(gen))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("train: %s names %s, which does not exist; resume refused: restore the chunk%s", planPath, path, l.redo(gen, current))
	case err != nil && !selfplay.Refused(err):
		return err
	case err != nil:
		return fmt.Errorf("train: %s, which %s names, is damaged (%v); resume refused: restore the chunk%s", path, planPath, err, l.redo(gen, current))
	case len(s.IDs) != c.Games || s.Targets != c.Positions:
		return fmt.Errorf("train: %s holds %d games and %d positions, its generation's plan %s counts %d and %d; resume refused: restore the chunk and the plan as they were%s",
			path, len(s.IDs), s.Targets, planPath, c.Games, c.Positions, l.redo(gen, current))
	}
	return nil
}

// redo says how to play generation gen (current: the generation in
// progress) again without its plan, where that is possible: for the
// generation in progress before its gating match, by removing its plan
// and any candidate; "" otherwise.
func (l *loop) redo(gen int, current bool) string {
	if !current {
		return ""
	}
	if ar, err := l.findArena(gen); err != nil || ar != nil {
		return ""
	}
	plan := l.run.Path(runfolder.GenerationsDir, planName(gen))
	switch cand := l.run.FindCheckpoint(gen); {
	case cand == "":
		return fmt.Sprintf(", or remove %s to gather generation %d's games again", plan, gen)
	case filepath.Dir(cand) == runfolder.CandidatesDir:
		return fmt.Sprintf(", or remove %s and %s (trained on them) to gather generation %d's games again", plan, l.run.Path(cand), gen)
	}
	return ""
}

// rebuildPlan writes the plan of the completed generation gen, which is
// missing, from its record (the chunks it consumed, in order) and the
// chunks (their counts), and returns it with the chunks' summaries. The
// chunks must be there and add up to the record's games and positions.
func (l *loop) rebuildPlan(gen int) (*runfolder.Plan, []selfplay.ChunkSummary, error) {
	planPath := l.run.Path(runfolder.GenerationsDir, planName(gen))
	rec, err := l.run.ReadRecord(gen)
	if err != nil {
		return nil, nil, err
	}
	refuse := func(format string, a ...any) error {
		return fmt.Errorf("train: %s, the plan of completed generation %d, is missing and cannot be rebuilt from its record: %s; resume refused: restore the plan", planPath, gen, fmt.Sprintf(format, a...))
	}
	if len(rec.Chunks) == 0 {
		return nil, nil, refuse("the record names no chunks")
	}
	p := &runfolder.Plan{Gen: gen}
	sums := make([]selfplay.ChunkSummary, len(rec.Chunks))
	games, positions := 0, 0
	for i, name := range rec.Chunks {
		s, err := selfplay.ScanFile(l.run.Path(runfolder.GamesDir, name))
		if err != nil {
			return nil, nil, refuse("chunk %s: %v", name, err)
		}
		sums[i] = s
		p.Chunks = append(p.Chunks, runfolder.ChunkInfo{Name: name, Games: len(s.IDs), Positions: s.Targets})
		games += len(s.IDs)
		positions += s.Targets
	}
	if games != rec.Games || positions != rec.Positions {
		return nil, nil, refuse("its chunks hold %d games and %d positions, the record counts %d and %d", games, positions, rec.Games, rec.Positions)
	}
	if err := l.run.WritePlan(p); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(l.log, "train: rebuilt %s, which was missing, from the record %s and its %d chunks (%d games, %d positions)\n",
		planPath, l.run.Path(runfolder.GenerationsDir, fmt.Sprintf("%04d.json", gen)), len(p.Chunks), games, positions)
	if l.opt.OnPlan != nil {
		if err := l.opt.OnPlan(gen, rec.Chunks); err != nil {
			return nil, nil, err
		}
	}
	return p, sums, nil
}

// PlannedGames returns the index of the games that the run's generation
// plans take, read from their chunks (selfplay.ScanFile), as the trainer
// builds it at start; it writes nothing. A chunk a plan names that cannot
// be read is an error naming it.
func PlannedGames(run *runfolder.Run) (*selfplay.GameIndex, error) {
	names, err := run.ConsumedChunks()
	if err != nil {
		return nil, err
	}
	held := selfplay.NewGameIndex()
	sorted := slices.Sorted(maps.Keys(names))
	paths := make([]string, len(sorted))
	for i, name := range sorted {
		paths[i] = run.Path(runfolder.GamesDir, name)
	}
	sums, errs := scanChunks(paths)
	for i, name := range sorted {
		if errs[i] != nil {
			return nil, fmt.Errorf("train: %s, which a plan of run %s names: %w", paths[i], run.Dir, errs[i])
		}
		held.Add(name, sums[i].IDs)
	}
	return held, nil
}
