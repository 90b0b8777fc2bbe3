package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"dama/configs"
	"dama/runfolder"
	"dama/selfplay"
)

// WorkerOptions drives a self-play worker of a run.
type WorkerOptions struct {
	Dir      string        // the run folder
	Name     string        // worker name, unique among the run's workers (letters, digits, '.', '_', '-')
	Games    int           // stop after this many games (0: until cancelled)
	PerChunk int           // games per chunk file (default 16)
	Seed     uint64        // base seed; give each worker its own
	Poll     time.Duration // how often to look for the run to start (default 2s)
	Log      io.Writer     // one line per chunk (nil: none)
	// Wait waits for a run folder that does not exist yet (or has no
	// archived configuration); without it such a folder is an error.
	Wait bool
}

// Worker plays self-play games for a run as a separate process would: it
// reads the run's archived configuration, plays a chunk of games with the
// current best model, writes it into the run's games folder, and looks at
// the best model again before the next chunk, so it follows each promotion.
// It returns when Games games are written or ctx is cancelled (then nil,
// after flushing the finished games).
func Worker(ctx context.Context, opt WorkerOptions) error {
	if opt.Name == "" {
		return errors.New("train: a worker needs a name")
	}
	if opt.Name == runfolder.TrainerWorker {
		return fmt.Errorf("train: worker name %q is the trainer's own; choose another", runfolder.TrainerWorker)
	}
	if opt.PerChunk <= 0 {
		opt.PerChunk = 16
	}
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	run := &runfolder.Run{Dir: opt.Dir}
	if _, err := os.Stat(run.Path(runfolder.ConfigFile)); err != nil && !opt.Wait {
		return fmt.Errorf("train: %s is not a run folder (no %s): start 'dama train --run %s' first, or pass --wait to wait for it", run.Dir, runfolder.ConfigFile, run.Dir)
	}
	if n, err := run.RemoveWorkerTemps(opt.Name); err != nil {
		return err
	} else if n > 0 {
		fmt.Fprintf(log, "worker %s: removed %d temporary chunk files left by a stopped worker\n", opt.Name, n)
	}
	var cfg *configs.Config
	var best string
	said := false
	for {
		var err error
		if cfg == nil {
			if _, err = os.Stat(run.Path(runfolder.ConfigFile)); err == nil {
				if cfg, err = configs.Load(run.Path(runfolder.ConfigFile), nil, nil); err != nil {
					return err
				}
			}
		}
		if cfg != nil {
			if best, err = run.Best(); err != nil {
				return err
			}
		}
		if cfg != nil && best != "" {
			break
		}
		if !said {
			fmt.Fprintf(log, "worker %s: waiting for the trainer to start run %s (its %s and %s files)\n", opt.Name, run.Dir, runfolder.ConfigFile, runfolder.BestFile)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(opt.Poll):
		}
	}
	played := 0
	for opt.Games == 0 || played < opt.Games {
		if ctx.Err() != nil {
			return nil
		}
		best, err := run.Best()
		if err != nil {
			return err
		}
		n := opt.PerChunk
		if opt.Games > 0 {
			n = min(n, opt.Games-played)
		}
		// The seed follows the worker's chunk number, not a count kept by
		// this process, so a restarted worker never replays its games.
		seq, err := nextChunk(run.Path(runfolder.GamesDir), opt.Name)
		if err != nil {
			return err
		}
		seed := selfplay.GameSeed(opt.Seed, seq)
		var got int
		err = PlayGames(ctx, cfg.SelfPlay, run.Path(best), run.Path(runfolder.GamesDir), opt.Name, seed, n, n, func(*selfplay.Game) { got++ })
		played += got
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		fmt.Fprintf(log, "worker %s: %d games with %s (%d in all)\n", opt.Name, got, best, played)
	}
	return nil
}

// nextChunk returns the number of the next chunk file worker will write in
// dir: one more than the highest it has written.
func nextChunk(dir, worker string) (int, error) {
	paths, err := selfplay.Chunks(dir)
	if err != nil {
		return 0, err
	}
	next := 0
	prefix := strings.TrimSuffix(selfplay.ChunkName(worker, 0), "000000"+selfplay.FileExt)
	for _, p := range paths {
		name := filepath.Base(p)
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, prefix), selfplay.FileExt))
		if err == nil && n >= next {
			next = n + 1
		}
	}
	return next, nil
}
