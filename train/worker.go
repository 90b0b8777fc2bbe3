package train

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"dama/configs"
	"dama/model"
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
	Log      io.Writer     // one line per chunk, model and wait (nil: none)
	Quiet    bool          // no progress lines (one per chunk); see selfplay.Worker.Quiet
	// Wait waits for a run folder that does not exist yet (or has no
	// archived configuration); without it such a folder is an error.
	Wait bool
}

// Worker plays self-play games for a run as a separate process would: it
// reads the run's archived configuration (refused when its digest does
// not vouch for it), then plays chunk after chunk
// (a selfplay.Worker) with the current best model, writing each into the
// run's games folder; it looks at the best model before each chunk and
// loads it again only after a promotion. It returns when Games games are
// written or ctx is cancelled (then nil, after writing the finished games).
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
			// Only a configuration its digest vouches for: the trainer
			// archives it with one; none yet means it has not started.
			if cfg, err = run.Config(); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
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
	w, err := runWorker(run, cfg.SelfPlay, opt.Name)
	if err != nil {
		return err
	}
	defer w.Close()
	w.Seed, w.Games, w.PerChunk, w.Poll, w.Log, w.Quiet = opt.Seed, opt.Games, opt.PerChunk, opt.Poll, log, opt.Quiet
	// The trainer rewrites the archive when a phase of the schedule begins
	// (or a resume changes a key): the worker plays by it from its next
	// chunk.
	w.Refresh = func(context.Context) (configs.SelfPlay, error) {
		c, err := run.Config()
		if err != nil {
			return configs.SelfPlay{}, err
		}
		return c.SelfPlay, nil
	}
	return w.Run(ctx)
}

// runWorker returns a self-play worker of the run folder: it follows the
// run's best model and writes its chunks into the games folder.
func runWorker(run *runfolder.Run, c configs.SelfPlay, name string) (*selfplay.Worker, error) {
	sink, err := selfplay.NewDirSink(run.Path(runfolder.GamesDir), name)
	if err != nil {
		return nil, err
	}
	return &selfplay.Worker{Name: name, Source: runSource{run}, Sink: sink, Settings: c}, nil
}

// runSource is a run folder's best model, as a selfplay.ModelSource.
type runSource struct{ run *runfolder.Run }

// Best reads the best pointer and the digest of the file it names.
func (s runSource) Best(context.Context) (selfplay.ModelRef, bool, error) {
	best, err := s.run.Best()
	if err != nil || best == "" {
		return selfplay.ModelRef{}, false, err
	}
	f, err := os.Open(s.run.Path(best))
	if err != nil {
		return selfplay.ModelRef{}, false, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return selfplay.ModelRef{}, false, fmt.Errorf("train: reading the best model: %w", err)
	}
	return selfplay.ModelRef{Name: best, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil))}, true, nil
}

// Load loads the checkpoint; its chunks name it by its path and the
// SHA-256 of the bytes loaded (selfplay.ModelDigest), which the trainer's
// check finds among its accepted models. Bytes that are not those Best
// saw (the file was replaced in between) refuse this ref: the worker
// looks at the best pointer again.
func (s runSource) Load(_ context.Context, ref selfplay.ModelRef) (*model.Checkpoint, selfplay.Header, error) {
	path := s.run.Path(ref.Name)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, selfplay.Header{}, err
	}
	digest := selfplay.ModelDigest(data)
	if digest != ref.Digest {
		return nil, selfplay.Header{}, selfplay.BadModel(fmt.Errorf("train: %s changed while it was read (digest %s, then %s)", path, ref.Digest, digest))
	}
	ck, err := model.Unmarshal(data)
	if err != nil {
		return nil, selfplay.Header{}, fmt.Errorf("train: %s: %w", path, err)
	}
	return ck, selfplay.Header{Model: path, ModelDigest: digest}, nil
}
