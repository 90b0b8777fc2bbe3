package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"dama/configs"
	"dama/internal/cputime"
	"dama/model"
	"dama/model/learn"
	"dama/runfolder"
	"dama/selfplay"
	"dama/tb"
)

// Options drives Loop.
type Options struct {
	Config *configs.Config // the run's configuration (validated)
	Dir    string          // the run folder

	// SelfPlay plays the self-play games of each generation in this
	// process. When false, the games come from separate `dama selfplay
	// --run DIR` workers and the loop waits for them.
	SelfPlay bool
	// Poll is how often to look for new games from workers (default 2s).
	Poll time.Duration
	// Revision is the project revision archived in the run folder.
	Revision string
	// Init, when set, is a checkpoint that a new run starts from instead of
	// a random network (its weights, and its optimizer state when it has
	// one). Its network must be the one the configuration asks for. A run
	// started from it records it in the file "init"; resuming with another
	// Init is refused.
	Init string
	// MaxCPU, when positive, stops the loop before a generation once the
	// trainer's CPU time over the completed generations (their cpu_s)
	// reaches it: runs of equal CPU time for A/B comparisons.
	MaxCPU time.Duration
	// AllowChange lists configuration keys a resume may change besides
	// runfolder.SafeResumeKeys (never model.*): the change is recorded in
	// the run's runfolder.ChangesFile with the generation it starts at.
	AllowChange []string
	// Progress, if set, receives the progress of each generation and of
	// its stages (self-play games, training steps, arena and ladder
	// games), one call at a time; the caller draws it (cmd/dama draws
	// progress bars). Log receives one summary line per generation and
	// notes (nil: none).
	Progress func(Event)
	Log      io.Writer

	// OnBest, if set, is called with the best model (relative to the run
	// folder) once the run is set up and after each promotion; OnPlan once
	// generation gen's plan, naming the chunk files it consumes, is durable
	// (again when a resume finds it). A transport that carries the run to
	// other machines (package broker) hangs here; an error stops the loop.
	OnBest func(rel string) error
	OnPlan func(gen int, chunks []string) error
	// OnConfig, if set, is called after the archived configuration was
	// rewritten because a phase of the schedule began, so that a broker
	// publishes it to workers.
	OnConfig func() error
	// OnQuarantine, if set, is called after a chunk of the games folder
	// was refused and moved to the quarantine folder, with the chunk's
	// name and the reason: a transport that delivered it (package broker)
	// drops it for good.
	OnQuarantine func(name string, why error) error

	// Held, if set, is the index of the run's games that Loop fills (from
	// the plans at start, then with each chunk it takes) and checks new
	// chunks against; a transport that checks chunks before they reach
	// the games folder may share it (selfplay.Checker.Held). Nil: Loop
	// keeps its own.
	Held *selfplay.GameIndex
}

// loop is the state of one Loop call.
type loop struct {
	opt    Options
	base   *configs.Config // the configuration asked for, schedule and all
	cfg    *configs.Config // what the current generation runs by: base.At(gen)
	run    *runfolder.Run
	log    io.Writer
	win    window
	counts map[string]runfolder.ChunkInfo // games and samples of chunk files seen
	// scanned holds the samples of the chunks unconsumed decoded to count
	// them, until fillWindow hands them to the window: each chunk is
	// decoded once.
	scanned map[string][]learn.Sample
	tr      *learn.Trainer
	trGen   int                 // generation whose checkpoint tr holds
	sp      *selfplay.Worker    // the self-play in this process (nil until it plays)
	check   *selfplay.Checker   // the validation of new chunks
	held    *selfplay.GameIndex // the games of the chunks taken (planned or counted)
	tables  *tb.Tables          // selfplay.tables opened: exact value targets; nil without
}

// Loop runs generations of self-play, training and gating in the run folder
// until the configured number of generations is complete or ctx is
// cancelled. Killed at any moment and started again with the same options,
// it resumes where it stopped: finished games, checkpoints and arena results
// are kept, nothing is consumed twice and nothing half-written is read.
func Loop(ctx context.Context, opt Options) error {
	if opt.Config == nil {
		return errors.New("train: no configuration")
	}
	if err := opt.Config.Validate(); err != nil {
		return err
	}
	// selfplay.hybrids, which configs leaves to package selfplay: before
	// the run folder is touched, whoever plays the games.
	if err := selfplay.ValidateSettings(opt.Config.SelfPlay); err != nil {
		return err
	}
	for _, p := range opt.Config.Schedule {
		at := opt.Config.At(p.Generation)
		if err := selfplay.ValidateSettings(at.SelfPlay); err != nil {
			return fmt.Errorf("train: schedule phase from generation %d: %w", p.Generation, err)
		}
	}
	if err := runfolder.CheckAllowChange(opt.AllowChange); err != nil {
		return err
	}
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	run, err := runfolder.Open(opt.Dir)
	if err != nil {
		return err
	}
	unlock, err := run.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	l := &loop{opt: opt, base: opt.Config, cfg: opt.Config, run: run, log: opt.Log, counts: map[string]runfolder.ChunkInfo{}, trGen: -1}
	if l.log == nil {
		l.log = io.Discard
	}
	// Generated tables (auto:N) are made here, before any self-play.
	if l.tables, err = selfplay.OpenTables(opt.Config.SelfPlay, l.log); err != nil {
		return fmt.Errorf("train: selfplay.tables: %w", err)
	}
	defer func() {
		if l.tr != nil {
			l.tr.Close()
		}
		if l.sp != nil {
			l.sp.Close()
		}
	}()
	if n, err := run.RemoveTrainerTemps(); err != nil {
		return err
	} else if n > 0 {
		fmt.Fprintf(l.log, "removed %d temporary files left by a stopped trainer\n", n)
	}
	if err := l.archive(); err != nil {
		return err
	}
	if l.held = opt.Held; l.held == nil {
		l.held = selfplay.NewGameIndex()
	}
	l.check = selfplay.RunChecker(l.cfg.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
	l.check.Held = l.held
	if len(l.base.Schedule) > 0 {
		fmt.Fprintf(l.log, "schedule of %d phases (now in phase %d):\n%s", len(l.base.Schedule), l.cfg.PhaseAt(run.NextGeneration()), indent(l.base.ScheduleText()))
	}
	if err := run.CheckRecords(); err != nil {
		return err
	}
	if err := l.checkPlans(); err != nil {
		return err
	}
	if err := l.initialModel(); err != nil {
		return err
	}
	if lc := l.cfg.Ladder; lc.Every > 0 {
		lad, err := loadLadder(lc)
		if err != nil {
			return err
		}
		if need := 2 * len(lad.Rungs); lc.Games < need {
			return fmt.Errorf("train: ladder.games = %d: the ladder has %d rungs, want at least %d games (two per rung)", lc.Games, len(lad.Rungs), need)
		}
	}
	if err := checkBest(run); err != nil {
		return err
	}
	// Every accepted model, not only the best: chunks name the model that
	// played them, and a damaged one would refuse them all, unseen until
	// then.
	if err := l.check.Models.Check(); err != nil {
		return fmt.Errorf("train: a model of the run does not load: %v; resume refused: restore it, or move it out of %s (chunks it played are then refused)", err, run.Path(runfolder.AcceptedDir))
	}
	if opt.OnBest != nil {
		best, err := run.Best()
		if err != nil {
			return err
		}
		if err := opt.OnBest(best); err != nil {
			return err
		}
	}
	gen := run.NextGeneration()
	complete := l.cfg.Run.Generations > 0 && gen > l.cfg.Run.Generations
	if gen > 1 {
		if !complete {
			fmt.Fprintf(l.log, "resuming %s at generation %d\n", run.Dir, gen)
		}
		// A kill during the rating after the last generation: redo it.
		if err := l.rate(ctx, gen-1); err != nil {
			return err
		}
	}
	if complete {
		fmt.Fprintf(l.log, "run %s is complete: run.generations = %d and generation %d is done; to train on, run again with --set run.generations=N (N > %d)\n",
			run.Dir, l.cfg.Run.Generations, gen-1, gen-1)
		return nil
	}
	for ; l.cfg.Run.Generations == 0 || gen <= l.cfg.Run.Generations; gen++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if opt.MaxCPU > 0 {
			used, err := l.cpuUsed(gen - 1)
			if err != nil {
				return err
			}
			if used >= opt.MaxCPU {
				fmt.Fprintf(l.log, "CPU budget reached: %s of trainer CPU time over generations 1..%d (budget %s)\n", used.Round(time.Second), gen-1, opt.MaxCPU)
				return nil
			}
		}
		if err := l.generation(ctx, gen); err != nil {
			return err
		}
	}
	return nil
}

// archive writes the configuration (with its digest) and revision at the
// start of a run, or checks on resume that the archive is intact and that
// the configuration is the same, except SafeResumeKeys and AllowChange.
func (l *loop) archive() error {
	if l.base == nil {
		l.base = l.cfg
	}
	y, err := l.cfg.YAML()
	if err != nil {
		return err
	}
	path := l.run.Path(runfolder.ConfigFile)
	data, err := os.ReadFile(path)
	if err == nil {
		prev, err := l.run.ReadArchivedConfig(data)
		if err != nil {
			return err
		}
		// The archive holds the configuration of the last generation
		// begun: the schedule's phases up to the next generation to run
		// (its phase already entered) or up to the one before (a kill
		// before the phase was entered).
		next := l.run.NextGeneration()
		var first error
		for _, g := range []int{next, next - 1} {
			if g < 1 || (g != next && l.base.PhaseAt(g) == l.base.PhaseAt(next)) {
				continue
			}
			at := l.base.At(g)
			if y, err = at.YAML(); err != nil {
				return err
			}
			err := l.run.ResumeConfig(prev, &at, y, l.log, l.opt.AllowChange)
			if err == nil {
				l.cfg = &at
				return nil
			}
			if first == nil {
				first = err
			}
		}
		return first
	}
	if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if l.run.Started() {
		return fmt.Errorf("train: %s is missing from a run that has started; resume refused: restore the archived configuration (or start a new --run)", path)
	}
	if err := runfolder.WriteFileAtomic(l.run.Path(runfolder.RevisionFile), []byte(l.opt.Revision+"\n")); err != nil {
		return err
	}
	return l.run.WriteConfig(y)
}

// modelConfig returns the network configuration a run configuration asks
// for: the preset with any size fields set.
func modelConfig(c configs.Model) (model.Config, error) {
	mc, err := model.Preset(c.Preset)
	if err != nil {
		return mc, err
	}
	custom := false
	set := func(dst *int, v int) {
		if v > 0 && *dst != v {
			*dst = v
			custom = true
		}
	}
	set(&mc.Blocks, c.Blocks)
	set(&mc.Filters, c.Filters)
	set(&mc.PolicyFilters, c.PolicyFilters)
	set(&mc.ValueFilters, c.ValueFilters)
	set(&mc.ValueHidden, c.ValueHidden)
	if custom {
		mc.Name = "custom"
	}
	return mc, mc.Validate()
}

// initialModel writes generation 0, a seeded random network or the
// checkpoint Options.Init, as the first best model.
func (l *loop) initialModel() error {
	if err := l.checkInit(); err != nil {
		return err
	}
	if l.run.FindCheckpoint(0) == "" {
		mc, err := modelConfig(l.cfg.Model)
		if err != nil {
			return err
		}
		var ck *model.Checkpoint
		if l.opt.Init != "" {
			if ck, err = model.Load(l.opt.Init); err != nil {
				return fmt.Errorf("train: --init: %w", err)
			}
			if got, want := ck.Net.Config.Digest(), mc.Digest(); got != want {
				return fmt.Errorf("train: --init %s holds a %s network, the configuration asks for %s (model.* keys)", l.opt.Init, ck.Net.Config, mc)
			}
			ck.Meta.Parent = l.opt.Init
			ck.Meta.Created = time.Now().UTC()
			ck.Meta.Note = fmt.Sprintf("generation 0: initialised from %s (step %d)", l.opt.Init, ck.Step)
		} else {
			ck = model.NewCheckpoint(mc, l.cfg.Run.Seed, "generation 0: random initialisation, seed "+fmt.Sprint(l.cfg.Run.Seed))
		}
		if err := ck.Save(l.run.Path(runfolder.AcceptedDir, runfolder.CandidateName(0))); err != nil {
			return err
		}
	}
	best, err := l.run.Best()
	if err != nil {
		return err
	}
	if best == "" {
		return l.run.SetBest(l.run.FindCheckpoint(0))
	}
	return nil
}

// consumed returns the chunks named in any plan.
func consumed(plans []runfolder.Plan) map[string]bool {
	m := map[string]bool{}
	for _, p := range plans {
		for _, c := range p.Chunks {
			m[c.Name] = true
		}
	}
	return m
}

// unconsumed lists the chunk files no plan has taken, with their counts.
func (l *loop) unconsumed(done map[string]bool) ([]runfolder.ChunkInfo, error) {
	paths, err := selfplay.Chunks(l.run.Path(runfolder.GamesDir))
	if err != nil {
		return nil, err
	}
	var out []runfolder.ChunkInfo
	for _, p := range paths {
		name := filepath.Base(p)
		if done[name] {
			continue
		}
		ci, ok := l.counts[name]
		if !ok {
			s, games, ok, err := l.intake(name)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue // quarantined
			}
			ci = runfolder.ChunkInfo{Name: name, Games: games, Positions: len(s)}
			l.counts[name] = ci
			if l.scanned == nil {
				l.scanned = map[string][]learn.Sample{}
			}
			l.scanned[name] = s
		}
		out = append(out, ci)
	}
	return out, nil
}

// intake checks a new chunk of the games folder (selfplay.Checker, with
// the run's games: a chunk repeating one is a replay) and returns its
// samples and games, which the run then holds; a chunk the check refuses
// goes to the quarantine folder with its reason and one log line (ok
// false), and OnQuarantine hears of it.
func (l *loop) intake(name string) (s []learn.Sample, games int, ok bool, err error) {
	path := l.run.Path(runfolder.GamesDir, name)
	_, gs, err := l.check.CheckFile(path)
	if err != nil {
		if !selfplay.Refused(err) {
			return nil, 0, false, err
		}
		dst, qerr := selfplay.Quarantine(path, l.run.Path(runfolder.QuarantineDir), err)
		if qerr != nil {
			return nil, 0, false, fmt.Errorf("train: quarantining %s: %w (refused: %v)", name, qerr, err)
		}
		fmt.Fprintf(l.log, "train: quarantined %s as %s: %v\n", name, dst, err)
		if l.opt.OnQuarantine != nil {
			if err := l.opt.OnQuarantine(name, err); err != nil {
				return nil, 0, false, err
			}
		}
		return nil, 0, false, nil
	}
	l.held.Add(name, selfplay.IDs(gs))
	return samplesOf(gs, l.sampleOptions()), len(gs), true, nil
}

func sumChunks(cs []runfolder.ChunkInfo) (games, positions int) {
	for _, c := range cs {
		games += c.Games
		positions += c.Positions
	}
	return
}

// generation runs (or finishes) generation gen.
func (l *loop) generation(ctx context.Context, gen int) error {
	if l.opt.Progress != nil {
		l.opt.Progress(Event{Kind: GenerationStarted, Gen: gen})
	}
	if err := l.enterPhase(gen); err != nil {
		return err
	}
	rec := runfolder.GenerationRecord{Gen: gen}
	// The plans so far, checked: each chunk consumed by one plan only,
	// this generation's (if a restart finds it) included.
	earlier, err := l.run.Plans(gen)
	if err != nil {
		return err
	}
	var pl *runfolder.Plan
	if n := len(earlier); n > 0 && earlier[n-1].Gen == gen {
		pl, earlier = &earlier[n-1], earlier[:n-1]
	}
	done := consumed(earlier)
	var total int64
	for _, p := range earlier {
		_, n := sumChunks(p.Chunks)
		total += int64(n)
	}

	cpu0, _ := cputime.Process()
	// 1. Self-play: gather the new games of this generation in a plan.
	t0 := time.Now()
	if pl == nil {
		if err := l.gather(ctx, gen, done, total); err != nil {
			return err
		}
		fresh, err := l.unconsumed(done)
		if err != nil {
			return err
		}
		pl = &runfolder.Plan{Gen: gen, Chunks: fresh}
		if err := l.run.WritePlan(pl); err != nil {
			return err
		}
	}
	rec.SelfPlaySec = time.Since(t0).Seconds()
	for _, c := range pl.Chunks {
		rec.Chunks = append(rec.Chunks, c.Name)
	}
	if l.opt.OnPlan != nil {
		if err := l.opt.OnPlan(gen, rec.Chunks); err != nil {
			return err
		}
	}
	rec.Games, rec.Positions = sumChunks(pl.Chunks)
	total += int64(rec.Positions)
	for _, p := range earlier {
		g, _ := sumChunks(p.Chunks)
		rec.TotalGames += g
	}
	rec.TotalGames += rec.Games

	// 2. Training: a candidate from the previous generation's checkpoint.
	t1 := time.Now()
	cand := l.run.FindCheckpoint(gen)
	order := []runfolder.ChunkInfo{}
	for _, p := range earlier {
		order = append(order, p.Chunks...)
	}
	order = append(order, pl.Chunks...)
	size := int(l.cfg.Train.Window(total))
	rec.Window = windowSpan(order, size)
	if cand == "" {
		if err := l.fillWindow(order, size); err != nil {
			return err
		}
		steps, sps, losses, err := l.trainCandidate(ctx, gen, rec.Positions)
		if err != nil {
			return err
		}
		rec.Steps, rec.SamplesPerSec = steps, sps
		rec.PolicyLoss, rec.ValueLoss = losses.Policy, losses.Value
		cand = filepath.Join(runfolder.CandidatesDir, runfolder.CandidateName(gen))
	} else {
		// A restart after training: the figures come from the metrics.
		var sumP, sumV float64
		err := runfolder.ReadMetrics(l.run, func(m runfolder.MetricRecord) error {
			if m.Gen == gen {
				rec.Steps++
				sumP += m.PolicyLoss
				sumV += m.ValueLoss
				rec.SamplesPerSec = m.SamplesPerSec
			}
			return nil
		})
		if err != nil {
			return err
		}
		if rec.Steps > 0 {
			rec.PolicyLoss, rec.ValueLoss = sumP/float64(rec.Steps), sumV/float64(rec.Steps)
		}
	}
	rec.TrainSec = time.Since(t1).Seconds()

	// 3. Arena: the candidate against the best model.
	t2 := time.Now()
	ar, err := l.findArena(gen)
	if err != nil {
		return err
	}
	best, err := l.run.Best()
	if err != nil {
		return err
	}
	if ar == nil {
		if ar, err = l.gate(ctx, gen, cand, best); err != nil {
			return err
		}
		if err := l.run.AppendJSONL(runfolder.ArenaFile, ar); err != nil {
			return err
		}
	}
	rec.ArenaSec = time.Since(t2).Seconds()

	// 4. Promotion: move the candidate and point best at it.
	dstDir := runfolder.RejectedDir
	if ar.Promoted {
		dstDir = runfolder.AcceptedDir
	}
	final := filepath.Join(dstDir, runfolder.CandidateName(gen))
	if cand != final {
		if err := os.Rename(l.run.Path(cand), l.run.Path(final)); err != nil {
			return err
		}
	}
	if ar.Promoted && best != final {
		if err := l.run.SetBest(final); err != nil {
			return err
		}
		if l.opt.OnBest != nil {
			if err := l.opt.OnBest(final); err != nil {
				return err
			}
		}
	}
	best, _ = l.run.Best()

	prevElo := 0.0
	if gen > 1 {
		if prev, err := l.run.ReadRecord(gen - 1); err == nil {
			prevElo = prev.BestElo
		}
	}
	rec.Candidate, rec.Best = final, best
	rec.Score, rec.Elo, rec.Promoted = ar.Score, ar.Elo, ar.Promoted
	rec.BestElo = prevElo
	if ar.Promoted {
		rec.BestElo += ar.Elo
	}
	rec.Finished = time.Now().UTC()
	if cpu1, ok := cputime.Process(); ok {
		rec.CPUSec = (cpu1 - cpu0).Seconds()
	}
	if err := l.run.WriteRecord(&rec); err != nil {
		return err
	}
	verdict := "rejected"
	if ar.Promoted {
		verdict = "PROMOTED"
	}
	fmt.Fprintf(l.log, "gen %d: games %d positions %d window %d steps %d | policy %.3f value %.3f | arena %.1f%% Elo %+.0f [%+.0f,%+.0f] %s | best %s (Elo %+.0f) | selfplay %.0fs train %.0fs arena %.0fs\n",
		gen, rec.Games, rec.Positions, rec.Window, rec.Steps, rec.PolicyLoss, rec.ValueLoss,
		100*ar.Score, ar.Elo, ar.EloLow, ar.EloHigh, verdict, best, rec.BestElo,
		rec.SelfPlaySec, rec.TrainSec, rec.ArenaSec)
	return l.rate(ctx, gen)
}

// enough reports whether unconsumed games suffice for a generation: at least
// the configured games, and enough samples in all for the smallest window.
func (l *loop) enough(fresh []runfolder.ChunkInfo, total int64) bool {
	games, pos := sumChunks(fresh)
	return games >= l.cfg.SelfPlay.GamesPerGeneration && total+int64(pos) >= int64(l.cfg.Train.WindowMin)
}

// gather makes sure enough unconsumed games exist for generation gen:
// played here with the best model, or waited for from workers.
func (l *loop) gather(ctx context.Context, gen int, done map[string]bool, total int64) error {
	var wait *stage
	for round := 0; ; round++ {
		fresh, err := l.unconsumed(done)
		if err != nil {
			return err
		}
		if l.enough(fresh, total) {
			wait.finish()
			return nil
		}
		have, _ := sumChunks(fresh)
		if !l.opt.SelfPlay {
			if wait == nil {
				wait = startStage(l.opt.Progress, Event{Gen: gen, Stage: StageWait, Total: l.cfg.SelfPlay.GamesPerGeneration})
			}
			wait.set(have)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(l.opt.Poll):
			}
			continue
		}
		need := l.cfg.SelfPlay.GamesPerGeneration - have
		if need <= 0 {
			need = l.cfg.SelfPlay.Parallel // more samples for the smallest window
		}
		if err := l.selfPlay(ctx, gen, round, len(fresh), need); err != nil {
			return err
		}
	}
}

// fillWindow makes the replay window hold the newest chunks of order (all
// chunks consumed so far, oldest first) that reach size positions. A chunk
// that unconsumed decoded is taken as it is; only the chunks of earlier
// generations (after a restart) are read again. The scanned chunks left
// out of the window (older than it) are dropped.
func (l *loop) fillWindow(order []runfolder.ChunkInfo, size int) error {
	planned := make(map[string]runfolder.ChunkInfo, len(order))
	for _, c := range order {
		planned[c.Name] = c
	}
	err := l.win.Update(order, size, func(name string) ([]learn.Sample, error) {
		if s, ok := l.scanned[name]; ok {
			return s, nil
		}
		s, games, err := readChunk(l.run, name, l.sampleOptions())
		if c := planned[name]; err == nil && (games != c.Games || len(s) != c.Positions) {
			err = fmt.Errorf("train: %s holds %d games and %d positions, its generation's plan in %s counts %d and %d",
				l.run.Path(runfolder.GamesDir, name), games, len(s), l.run.Path(runfolder.GenerationsDir), c.Games, c.Positions)
		}
		return s, err
	})
	clear(l.scanned)
	return err
}

// sampleOptions are the training targets the run asks for.
func (l *loop) sampleOptions() targetOptions {
	return targetOptions{ValueTargetMix: l.cfg.Train.ValueTargetMix, Tables: l.tables}
}

// selfPlay plays need games in this process with the best model, loaded
// again only after a promotion.
func (l *loop) selfPlay(ctx context.Context, gen, round, have, need int) error {
	var err error
	seed := selfplay.GameSeed(uint64(l.cfg.Run.Seed), gen*1_000_000+round*1000+have)
	if l.sp == nil {
		if l.sp, err = runWorker(l.run, l.cfg.SelfPlay, runfolder.TrainerWorker); err != nil {
			return err
		}
	}
	st := startStage(l.opt.Progress, Event{Gen: gen, Stage: StageSelfPlay, Total: need, MoreGames: round > 0})
	per := max(1, min(need, 64, max(8, l.cfg.SelfPlay.GamesPerGeneration/4)))
	l.sp.OnGame = func(selfplay.ModelRef, *selfplay.Game) { st.add(1) }
	err = l.sp.Play(ctx, need, per, seed)
	st.finish()
	return err
}

// checkBest checks at start that the best pointer names a checkpoint that
// loads.
func checkBest(r *runfolder.Run) error {
	p, err := r.BestPath()
	if err != nil {
		return err
	}
	if _, err := model.Load(p); err != nil {
		return fmt.Errorf("train: %s names %s, which does not load: %v", r.Path(runfolder.BestFile), p, err)
	}
	return nil
}

// windowSpan is the number of samples window.Update keeps for order and
// size: size, or all the samples when there are fewer.
func windowSpan(order []runfolder.ChunkInfo, size int) int {
	n := 0
	for i := len(order) - 1; i >= 0 && n < size; i-- {
		n += order[i].Positions
	}
	return min(n, size)
}

// cpuUsed returns the trainer CPU time recorded by generations 1..upto.
func (l *loop) cpuUsed(upto int) (time.Duration, error) {
	var sec float64
	for g := 1; g <= upto; g++ {
		r, err := l.run.ReadRecord(g)
		if err != nil {
			return 0, err
		}
		sec += r.CPUSec
	}
	return time.Duration(sec * float64(time.Second)), nil
}
