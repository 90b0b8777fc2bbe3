package selfplay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"dama/configs"
	"dama/model"
	"dama/model/infer"
)

// ModelRef names a model. Two refs are the same model only when both the
// name and the digest agree: other bytes under the same name, or the same
// bytes under another name (chunks name their model), are another model.
type ModelRef struct {
	Name   string // as the run names it, e.g. "accepted/0003.ckpt"
	Digest string // of the checkpoint's bytes
}

// ModelSource tells a Worker which model is the run's best and loads it.
type ModelSource interface {
	// Best returns the current best model; ok is false while there is
	// none yet.
	Best(ctx context.Context) (ref ModelRef, ok bool, err error)
	// Load reads and verifies the checkpoint ref names. h carries what
	// the chunks played with it record of it (Model and ModelDigest). An
	// error marked by BadModel refuses this model: the worker keeps the
	// one it has (or waits for another); any other error stops it.
	Load(ctx context.Context, ref ModelRef) (ck *model.Checkpoint, h Header, err error)
}

// ModelNotifier is a ModelSource that says at once when the best model may
// have changed. A Worker with such a source waits on Changed rather than
// polling, and stops a chunk in play when the best model changes: the
// games already finished are written, the rest dropped.
type ModelNotifier interface {
	ModelSource
	Changed() <-chan struct{}
}

// ChunkSink stores a Worker's chunks.
type ChunkSink interface {
	// Reserve returns the number of the worker's next chunk, one it has
	// never written (nor, where the sink records reservations, reserved)
	// before, across restarts too: the chunk's games are seeded from it.
	Reserve(ctx context.Context) (seq int, err error)
	// Write stores games as chunk seq with header h and returns when they
	// are safe (a file renamed into place, a publish acknowledged). Called
	// after ctx has ended, it still stores the finished games it is given
	// (a sink bounds how long it tries). It returns a phrase for the
	// worker's log line saying where the games went.
	Write(ctx context.Context, seq int, h Header, games []*Game) (where string, err error)
}

// Pacer is a ChunkSink that may hold a worker back before each chunk: a
// Worker's Run calls Pace before it reserves a chunk.
type Pacer interface {
	// Pace returns when the worker may play its next chunk (PacePlay),
	// should play no more (PaceStop: the run is finished, or ctx ended),
	// or should take up a new best model first and ask again (PaceAgain).
	Pace(ctx context.Context) (Pace, error)
}

// Pace is a Pacer's word to a worker.
type Pace int

// The words of a Pacer.
const (
	PacePlay  Pace = iota // play the next chunk
	PaceStop              // play no more
	PaceAgain             // follow the best model, then ask again
)

// badModel marks an error of ModelSource.Load as a fault of the model.
type badModel struct{ err error }

func (b badModel) Error() string { return b.err.Error() }
func (b badModel) Unwrap() error { return b.err }

// BadModel marks err, returned by ModelSource.Load, as a fault of the
// model itself (damaged, or not the bytes its pointer names): a Worker
// refuses that model and keeps playing with the one it has.
func BadModel(err error) error { return badModel{err} }

// WorkerStats counts a Worker's work since it was made.
type WorkerStats struct {
	Games  int // games written
	Chunks int // chunks written
	Loads  int // models loaded, each with a new evaluator (and int8 calibration)
}

// Worker plays self-play games for a training run with the run's best
// model and hands them, chunk by chunk, to a sink. Before each chunk it
// asks its source for the best model and loads it only when it changed
// (by name and digest): the evaluator, its cache and the int8 backend's
// calibration live as long as the model stays the best. The run-folder
// workers (dama train's own self-play and dama selfplay worker --run, package
// train) and the broker worker (dama selfplay worker --broker, package broker)
// are this type with their own source and sink.
//
// Set the exported fields before the first call; a Worker is not safe for
// concurrent use, except Stats. Close releases its evaluator.
type Worker struct {
	Name     string           // the worker's name, in its log lines
	Source   ModelSource      // the best model
	Sink     ChunkSink        // where chunks go
	Settings configs.SelfPlay // the run's self-play section: the games and the evaluator
	// Seed is the base seed of Run: chunk seq plays with base seed
	// GameSeed(Seed, seq), so a restarted worker, which reserves new
	// chunk numbers, never replays a game.
	Seed     uint64
	Games    int           // Run stops after this many games (0: when ctx ends)
	PerChunk int           // games per chunk of Run (default 16)
	Poll     time.Duration // how often Run looks for a first model when the source does not notify (default 2s)
	Log      io.Writer     // a line for each model and each chunk (nil: none)
	// Quiet leaves out the progress lines (one per chunk written); the
	// lines about models, waiting and stopping stay.
	Quiet bool
	// OnGame, if set, is called after each finished game with the model
	// that played it, from one goroutine at a time.
	OnGame func(ModelRef, *Game)
	// Refresh, if set, returns the run's self-play section now; Run asks
	// before each chunk, so that a worker follows the phases of the run's
	// schedule (configs.Config.At) and its resumes with --allow-change
	// without a restart.
	Refresh func(context.Context) (configs.SelfPlay, error)

	cur     *playing
	refused map[ModelRef]bool

	mu    sync.Mutex
	stats WorkerStats
}

// playing is the model a worker plays with.
type playing struct {
	ref ModelRef
	h   Header // Model and ModelDigest for its chunks
	ev  *infer.Evaluator
}

// Stats returns the worker's counts so far; it is safe to call while the
// worker plays.
func (w *Worker) Stats() WorkerStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Close releases the worker's evaluator.
func (w *Worker) Close() {
	if w.cur != nil {
		w.cur.ev.Close()
		w.cur = nil
	}
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, "worker %s: "+format+"\n", append([]any{w.Name}, args...)...)
	}
}

// Run plays chunk after chunk with the newest best model until Games games
// are written or ctx ends; then it writes the games already finished and
// returns nil. Settings out of range (ValidateSettings) are an error
// before it asks for a model.
func (w *Worker) Run(ctx context.Context) error {
	if err := ValidateSettings(w.Settings); err != nil {
		return fmt.Errorf("selfplay: worker %s: %w", w.Name, err)
	}
	per := w.PerChunk
	if per <= 0 {
		per = 16
	}
	played := 0
	for w.Games == 0 || played < w.Games {
		if ctx.Err() != nil {
			return nil
		}
		ok, err := w.follow(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if !ok {
			w.wait(ctx)
			continue
		}
		if err := w.refresh(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if p, ok := w.Sink.(Pacer); ok {
			v, err := p.Pace(ctx)
			if err != nil {
				return err
			}
			if v == PaceStop {
				return nil
			}
			if v == PaceAgain {
				continue
			}
		}
		n := per
		if w.Games > 0 {
			n = min(n, w.Games-played)
		}
		seq, err := w.Sink.Reserve(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		sc := Config{SelfPlay: w.Settings, Seed: GameSeed(w.Seed, seq)}
		games, playErr := w.chunk(ctx, sc, n)
		if len(games) > 0 {
			if err := w.write(ctx, seq, sc, games); err != nil {
				return err
			}
			played += len(games)
		}
		if playErr != nil {
			return playErr
		}
	}
	return nil
}

// Play plays games games with the best model in one run of Settings.Parallel
// games at a time, game i seeded by GameSeed(seed, i), and writes them in
// chunks of perChunk in the order of their indices, not of completion, so
// that one seed gives the same chunks whatever the timing; a kill loses at
// most the games of one unwritten chunk and those waiting for an earlier
// game. When ctx ends or a game fails it writes the finished games (in
// index order) and returns the error. It is the trainer's own self-play;
// its sink must reserve and write after ctx has ended. OnGame is called as
// each game finishes. Settings out of range are an error before it asks
// for a model, as in Run.
func (w *Worker) Play(ctx context.Context, games, perChunk int, seed uint64) error {
	if err := ValidateSettings(w.Settings); err != nil {
		return fmt.Errorf("selfplay: worker %s: %w", w.Name, err)
	}
	ok, err := w.follow(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("selfplay: worker %s: no model to play with", w.Name)
	}
	sc := Config{SelfPlay: w.Settings, Seed: seed}
	var pending []*Game
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		seq, err := w.Sink.Reserve(ctx)
		if err != nil {
			return err
		}
		err = w.write(ctx, seq, sc, pending)
		pending = nil
		return err
	}
	order := newGameOrder(seed, 0, games, func(g *Game) error {
		pending = append(pending, g)
		if len(pending) >= max(1, perChunk) {
			return flush()
		}
		return nil
	})
	cur := w.cur
	runErr := Run(ctx, cur.ev, sc, 0, games, func(g *Game) error {
		if w.OnGame != nil {
			w.OnGame(cur.ref, g)
		}
		return order.add(g)
	})
	if err := order.flush(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	return runErr
}

// refresh takes the run's self-play section from Refresh when it changed:
// the next chunk plays by it, and a change of the evaluator's settings
// (backend, batch, cache) loads the model again with them.
func (w *Worker) refresh(ctx context.Context) error {
	if w.Refresh == nil {
		return nil
	}
	s, err := w.Refresh(ctx)
	if err != nil {
		return fmt.Errorf("selfplay: worker %s: reading the run's settings: %w", w.Name, err)
	}
	if reflect.DeepEqual(s, w.Settings) {
		return nil
	}
	if err := ValidateSettings(s); err != nil {
		return fmt.Errorf("selfplay: worker %s: the run's new settings: %w", w.Name, err)
	}
	old := w.Settings
	w.Settings = s
	w.logf("the run's self-play settings changed (%s); playing by them", describeChange(old, s))
	if EvaluatorOptions(old) != EvaluatorOptions(s) && w.cur != nil {
		w.Close()
		if _, err := w.follow(ctx); err != nil {
			return err
		}
	}
	return nil
}

// describeChange lists the self-play keys that differ from a to b.
func describeChange(a, b configs.SelfPlay) string {
	ca, cb := configs.Default(), configs.Default()
	ca.SelfPlay, cb.SelfPlay = a, b
	var parts []string
	for _, d := range configs.Diff(&ca, &cb) {
		parts = append(parts, d.String())
	}
	return strings.Join(parts, ", ")
}

// follow makes the best model the one the worker plays with, loading it if
// it changed. It reports false while there is no model to play with: none
// yet, or only refused ones.
func (w *Worker) follow(ctx context.Context) (bool, error) {
	ref, ok, err := w.Source.Best(ctx)
	if err != nil {
		return false, err
	}
	if !ok || w.refused[ref] || (w.cur != nil && w.cur.ref == ref) {
		return w.cur != nil, nil
	}
	ck, h, err := w.Source.Load(ctx, ref)
	if err != nil {
		var bad badModel
		if ctx.Err() != nil || !errors.As(err, &bad) {
			return false, err
		}
		if w.refused == nil {
			w.refused = map[ModelRef]bool{}
		}
		w.refused[ref] = true
		keep := "waiting for another"
		if w.cur != nil {
			keep = "keeping " + w.cur.ref.Name
		}
		w.logf("refusing model %s: %v; %s", ref.Name, bad.err, keep)
		return w.cur != nil, nil
	}
	ev, err := infer.OpenEvaluator(ck.Net, EvaluatorOptions(w.Settings))
	if err != nil {
		return false, fmt.Errorf("selfplay: worker %s: model %s: %w", w.Name, ref.Name, err)
	}
	w.Close()
	w.cur = &playing{ref: ref, h: Header{Model: h.Model, ModelDigest: h.ModelDigest}, ev: ev}
	w.mu.Lock()
	w.stats.Loads++
	w.mu.Unlock()
	w.logf("playing with %s", ref.Name)
	return true, nil
}

// wait waits for the source to have a new model, or for ctx's end.
func (w *Worker) wait(ctx context.Context) {
	if src, ok := w.Source.(ModelNotifier); ok {
		select {
		case <-ctx.Done():
		case <-src.Changed():
		}
		return
	}
	poll := w.Poll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	t := time.NewTimer(poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// chunk plays n games with the current model and returns the finished
// ones in the order of their indices. The end of ctx, or a new best model
// from a notifying source, stops it early; the error is that of a game
// that failed.
func (w *Worker) chunk(ctx context.Context, sc Config, n int) ([]*Game, error) {
	cur := w.cur
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if src, ok := w.Source.(ModelNotifier); ok {
		stop, stopped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(stopped)
			for {
				select {
				case <-stop:
					return
				case <-src.Changed():
					if ref, ok, err := src.Best(pctx); err == nil && ok && ref != cur.ref && !w.refused[ref] {
						cancel()
						return
					}
				}
			}
		}()
		// The watcher reads refused: it ends before follow writes it.
		defer func() { close(stop); <-stopped }()
	}
	var games []*Game
	order := newGameOrder(sc.Seed, 0, n, func(g *Game) error { games = append(games, g); return nil })
	err := Run(pctx, cur.ev, sc, 0, n, func(g *Game) error {
		if w.OnGame != nil {
			w.OnGame(cur.ref, g)
		}
		return order.add(g)
	})
	_ = order.flush() // appending to games never fails
	if err != nil && pctx.Err() != nil {
		err = nil
	}
	return games, err
}

// write hands games played with settings sc to the sink as chunk seq and
// logs it.
func (w *Worker) write(ctx context.Context, seq int, sc Config, games []*Game) error {
	h := w.cur.h
	h.ConfigDigest = sc.Digest()
	where, err := w.Sink.Write(ctx, seq, h, games)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.stats.Games += len(games)
	w.stats.Chunks++
	st := w.stats
	w.mu.Unlock()
	if w.Quiet {
		return nil
	}
	w.logf("%s with %s; in all %d games, %d chunks, %d model loads", where, w.cur.ref.Name, st.Games, st.Chunks, st.Loads)
	return nil
}

// DirSink writes a worker's chunks as files into a folder (a run's games
// folder), each under a temporary name first and renamed into place once
// complete, numbered on from the worker's chunks already there.
type DirSink struct {
	dir, worker string
	next        int // the next chunk number; -1 until the folder is read
}

// NewDirSink returns a sink of worker's chunks in dir (created if needed).
// Worker names must be unique among the folder's running writers.
func NewDirSink(dir, worker string) (*DirSink, error) {
	if !workerName.MatchString(worker) {
		return nil, fmt.Errorf("selfplay: worker name %q: use letters, digits, '_', '.' and '-'", worker)
	}
	return &DirSink{dir: dir, worker: worker, next: -1}, nil
}

// Reserve returns the number after the worker's highest chunk in the
// folder; a chunk reserved and never written leaves no gap.
func (s *DirSink) Reserve(context.Context) (int, error) {
	if s.next < 0 {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return 0, err
		}
		n, err := nextChunk(s.dir, s.worker)
		if err != nil {
			return 0, err
		}
		s.next = n
	}
	return s.next, nil
}

// Write writes games as the worker's chunk file seq.
func (s *DirSink) Write(_ context.Context, seq int, h Header, games []*Game) (string, error) {
	name := ChunkName(s.worker, seq)
	if err := WriteFile(filepath.Join(s.dir, name), h, games); err != nil {
		return "", err
	}
	s.next = max(s.next, seq+1)
	return fmt.Sprintf("wrote %s (%d games)", name, len(games)), nil
}
