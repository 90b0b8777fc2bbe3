package selfplay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"dama/configs"
	"dama/model"
)

// testSource is a ModelSource of tiny random networks held in memory.
type testSource struct {
	mu      sync.Mutex
	best    ModelRef
	models  map[string]*model.Checkpoint
	bad     map[string]error // Load fails with this error
	loads   int
	changed chan struct{} // nil: the source does not notify
}

func newTestSource(t testing.TB, names ...string) *testSource {
	t.Helper()
	mc, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	s := &testSource{models: map[string]*model.Checkpoint{}, bad: map[string]error{}}
	for i, name := range names {
		s.models[name] = &model.Checkpoint{Net: model.NewNetwork(mc, rand.New(rand.NewSource(int64(i)+1)))}
	}
	s.best = ModelRef{Name: names[0], Digest: "d0"}
	return s
}

func (s *testSource) setBest(ref ModelRef) {
	s.mu.Lock()
	s.best = ref
	s.mu.Unlock()
	if s.changed != nil {
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
}

func (s *testSource) Best(context.Context) (ModelRef, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.best, s.best.Name != "", nil
}

func (s *testSource) Load(_ context.Context, ref ModelRef) (*model.Checkpoint, Header, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loads++
	if err := s.bad[ref.Name]; err != nil {
		return nil, Header{}, err
	}
	return s.models[ref.Name], Header{Model: "test/" + ref.Name, ModelDigest: ref.Digest}, nil
}

// notifyingSource is a testSource that says when the best model changes.
type notifyingSource struct{ *testSource }

func (s notifyingSource) Changed() <-chan struct{} { return s.changed }

// memSink keeps chunks in memory and numbers them on.
type memSink struct {
	mu     sync.Mutex
	next   int
	seqs   []int
	heads  []Header
	chunks [][]*Game
}

func (s *memSink) Reserve(context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	return s.next - 1, nil
}

func (s *memSink) Write(_ context.Context, seq int, h Header, games []*Game) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seqs = append(s.seqs, seq)
	s.heads = append(s.heads, h)
	s.chunks = append(s.chunks, games)
	return fmt.Sprintf("stored %d games", len(games)), nil
}

// testSettings are fast self-play settings for a tiny network.
func testSettings() configs.SelfPlay {
	c := configs.Default().SelfPlay
	c.Parallel, c.Visits, c.MaxPlies, c.EvalBatch, c.EvalWorkers = 2, 4, 24, 2, 1
	return c
}

func testWorker(src ModelSource, sink ChunkSink, log *strings.Builder) *Worker {
	w := &Worker{Name: "w1", Source: src, Sink: sink, Settings: testSettings(), Seed: 7, PerChunk: 2}
	if log != nil {
		w.Log = log
	}
	return w
}

// TestWorkerKeepsModel: a worker loads the best model once however many
// chunks it plays with it, and again only once the best model changes, by
// name or by digest.
func TestWorkerKeepsModel(t *testing.T) {
	src := newTestSource(t, "m0", "m1")
	sink := &memSink{}
	var log strings.Builder
	w := testWorker(src, sink, &log)
	defer w.Close()
	w.Games = 6
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st != (WorkerStats{Games: 6, Chunks: 3, Loads: 1}) {
		t.Errorf("6 games in chunks of 2 with one best model: %+v, want 3 chunks and 1 load", st)
	}
	if !strings.Contains(log.String(), "in all 6 games, 3 chunks, 1 model loads") {
		t.Errorf("the log does not count the loads:\n%s", log.String())
	}

	w.Games = 2
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Loads != 1 || st.Chunks != 4 {
		t.Errorf("a second Run with the same best model: %+v, want still 1 load", st)
	}
	for i, ref := range []ModelRef{{Name: "m1", Digest: "d1"}, {Name: "m1", Digest: "d2"}} {
		src.setBest(ref)
		if err := w.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st := w.Stats(); st.Loads != 2+i {
			t.Errorf("best changed to %+v: %d loads, want %d", ref, st.Loads, 2+i)
		}
		if h := sink.heads[len(sink.heads)-1]; h.Model != "test/m1" || h.ModelDigest != ref.Digest {
			t.Errorf("chunk header %+v, want the model %+v", h, ref)
		}
	}
	if src.loads != 3 {
		t.Errorf("the source loaded %d models, want 3", src.loads)
	}
}

// TestWorkerSeeds: chunk seq plays with base seed GameSeed(Seed, seq), as
// the run-folder and broker workers always did, so a restarted worker,
// which gets new chunk numbers, never replays a game; the header carries
// that configuration's digest.
func TestWorkerSeeds(t *testing.T) {
	sink := &memSink{next: 5}
	w := testWorker(newTestSource(t, "m0"), sink, nil)
	defer w.Close()
	w.Games = 4
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sink.seqs) != 2 || sink.seqs[0] != 5 || sink.seqs[1] != 6 {
		t.Fatalf("chunks %v, want 5 and 6", sink.seqs)
	}
	for i, seq := range sink.seqs {
		base := GameSeed(w.Seed, seq)
		var got []uint64
		for _, g := range sink.chunks[i] {
			got = append(got, g.Seed)
		}
		if want := []uint64{GameSeed(base, 0), GameSeed(base, 1)}; !slices.Equal(got, want) {
			t.Errorf("chunk %d: game seeds %v, want %v (in index order)", seq, got, want)
		}
		if d := (Config{SelfPlay: w.Settings, Seed: base}).Digest(); sink.heads[i].ConfigDigest != d {
			t.Errorf("chunk %d: config digest %s, want %s", seq, sink.heads[i].ConfigDigest, d)
		}
	}
}

// TestWorkerRefusesBadModel: a model the source marks bad is refused once,
// with its reason, and the worker keeps the one it has; any other load
// error stops the worker.
func TestWorkerRefusesBadModel(t *testing.T) {
	src := newTestSource(t, "m0", "m1")
	src.bad["m1"] = BadModel(errors.New("checksum mismatch"))
	var log strings.Builder
	w := testWorker(src, &memSink{}, &log)
	defer w.Close()
	w.Games = 2
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	src.setBest(ModelRef{Name: "m1", Digest: "d1"})
	w.Games = 4
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "refusing model m1: checksum mismatch; keeping m0") {
		t.Errorf("the log does not say m1 was refused:\n%s", log.String())
	}
	if st := w.Stats(); st.Loads != 1 || st.Games != 6 || src.loads != 2 {
		t.Errorf("%+v after %d loads, want the refused model tried once and 6 games with m0", st, src.loads)
	}

	src.bad["m2"] = errors.New("disk on fire")
	src.setBest(ModelRef{Name: "m2", Digest: "d2"})
	if err := w.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("a load error that is no fault of the model: %v, want it returned", err)
	}
}

// TestWorkerCancel: cancelling a worker writes the games finished so far.
func TestWorkerCancel(t *testing.T) {
	sink := &memSink{}
	w := testWorker(newTestSource(t, "m0"), sink, nil)
	defer w.Close()
	w.PerChunk = 50
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	w.OnGame = func(ModelRef, *Game) {
		if n++; n == 3 {
			cancel()
		}
	}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(sink.chunks) != 1 || len(sink.chunks[0]) < 3 {
		t.Errorf("after a cancel: chunks %v, want one with the 3 (or more) finished games", sink.chunks)
	}
}

// TestWorkerNotified: a new best model from a notifying source stops the
// chunk in play (its finished games are written) and the worker goes on
// with the new model.
func TestWorkerNotified(t *testing.T) {
	ts := newTestSource(t, "m0", "m1")
	ts.changed = make(chan struct{}, 1)
	sink := &memSink{}
	w := testWorker(notifyingSource{ts}, sink, nil)
	defer w.Close()
	w.PerChunk = 1000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	byModel := map[string]int{}
	w.OnGame = func(m ModelRef, _ *Game) {
		byModel[m.Name]++
		switch {
		case m.Name == "m0" && byModel["m0"] == 2:
			ts.setBest(ModelRef{Name: "m1", Digest: "d1"})
		case m.Name == "m1" && byModel["m1"] == 2:
			cancel()
		}
	}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(sink.chunks) != 2 || len(sink.chunks[0]) >= 1000 || sink.heads[0].Model != "test/m0" || sink.heads[1].Model != "test/m1" {
		t.Errorf("chunks by %v, want one cut short with m0, then one with m1", sink.heads)
	}
	if st := w.Stats(); st.Loads != 2 {
		t.Errorf("%d loads, want 2", st.Loads)
	}
}

// TestWorkerPlay: the trainer's self-play plays all its games in one run,
// writes them in chunks as they finish, and keeps its model between calls.
func TestWorkerPlay(t *testing.T) {
	sink := &memSink{}
	w := testWorker(newTestSource(t, "m0"), sink, nil)
	defer w.Close()
	for range 2 {
		if err := w.Play(context.Background(), 5, 2, 11); err != nil {
			t.Fatal(err)
		}
	}
	if st := w.Stats(); st != (WorkerStats{Games: 10, Chunks: 6, Loads: 1}) {
		t.Errorf("two calls of 5 games in chunks of 2: %+v, want 6 chunks and 1 load", st)
	}
	var got, want []uint64
	for _, c := range sink.chunks[:3] {
		for _, g := range c {
			got = append(got, g.Seed)
		}
	}
	for i := range 5 {
		want = append(want, GameSeed(11, i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the first call's chunks hold the games %v, want games 0..4 in index order %v", got, want)
	}
}

func TestNextChunk(t *testing.T) {
	dir := t.TempDir()
	if n, err := nextChunk(dir, "w1"); err != nil || n != 0 {
		t.Fatalf("empty folder: next chunk %d, %v; want 0", n, err)
	}
	for _, name := range []string{ChunkName("w1", 0), ChunkName("w1", 4), ChunkName("w10", 9), ChunkName("x", 7)} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := nextChunk(dir, "w1"); err != nil || n != 5 {
		t.Errorf("next chunk of w1 = %d, %v; want 5 (w10's chunks are not w1's)", n, err)
	}
}

// TestDirSink: chunk files numbered on from those in the folder, without
// gaps for chunks reserved and not written, and nothing but whole files.
func TestDirSink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	if _, err := NewDirSink(dir, "a/b"); err == nil {
		t.Error("a worker name with a slash was taken")
	}
	s, err := NewDirSink(dir, "w1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	seq, err := s.Reserve(ctx)
	if err != nil || seq != 0 {
		t.Fatalf("first chunk %d, %v; want 0", seq, err)
	}
	if again, _ := s.Reserve(ctx); again != 0 {
		t.Errorf("a chunk reserved and not written left a gap: next %d", again)
	}
	games := testGames(t, 2)
	where, err := s.Write(ctx, seq, Header{Model: "m"}, games)
	if err != nil || !strings.Contains(where, ChunkName("w1", 0)) {
		t.Fatalf("write: %q, %v", where, err)
	}
	if _, got, err := ReadFile(filepath.Join(dir, ChunkName("w1", 0))); err != nil || len(got) != 2 {
		t.Errorf("chunk read back: %d games, %v", len(got), err)
	}
	if next, _ := s.Reserve(ctx); next != 1 {
		t.Errorf("next chunk %d, want 1", next)
	}
	s2, _ := NewDirSink(dir, "w1")
	if next, _ := s2.Reserve(ctx); next != 1 {
		t.Errorf("a restarted sink starts at %d, want 1", next)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the folder holds %d entries, want the one chunk file", len(ents))
	}
}

// TestStampedLog: each line, however the writes split it, starts with the
// time; a line split over two writes gets one stamp.
func TestStampedLog(t *testing.T) {
	var b bytes.Buffer
	at := time.Date(2026, 12, 1, 16, 30, 5, 123456789, time.FixedZone("CET", 3600))
	w := StampedLog(&b, func() time.Time { return at })
	for _, s := range []string{"worker a: one\nworker a: tw", "o\n", "worker a: three\n"} {
		if _, err := io.WriteString(w, s); err != nil {
			t.Fatal(err)
		}
	}
	want := "2026-12-01T15:30:05.123Z worker a: one\n2026-12-01T15:30:05.123Z worker a: two\n2026-12-01T15:30:05.123Z worker a: three\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWorkerRefresh: a worker with Refresh plays each chunk by the run's
// settings of the moment (a phase of the schedule changes them): the chunk
// headers carry the new digest, a change of the evaluator's settings loads
// the model again, bad new settings stop it with the reason.
func TestWorkerRefresh(t *testing.T) {
	src := newTestSource(t, "m0")
	sink := &memSink{}
	var log strings.Builder
	w := testWorker(src, sink, &log)
	defer w.Close()
	first := w.Settings
	second := first
	second.Visits = 6
	third := second
	third.CacheSize = 1000
	calls := 0
	w.Refresh = func(context.Context) (configs.SelfPlay, error) {
		calls++
		switch {
		case calls <= 1:
			return first, nil
		case calls == 2:
			return second, nil
		default:
			return third, nil
		}
	}
	w.Games = 6
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, want := range []configs.SelfPlay{first, second, third} {
		if d := (Config{SelfPlay: want, Seed: GameSeed(w.Seed, sink.seqs[i])}).Digest(); sink.heads[i].ConfigDigest != d {
			t.Errorf("chunk %d was not played by the settings of its moment", i)
		}
	}
	if st := w.Stats(); st.Loads != 2 {
		t.Errorf("%d loads, want 2 (the cache size changed once)", st.Loads)
	}
	if !strings.Contains(log.String(), "selfplay.visits (4 -> 6)") {
		t.Errorf("no line for the change:\n%s", log.String())
	}
	bad := third
	bad.Hybrids = "mm99"
	w.Refresh = func(context.Context) (configs.SelfPlay, error) { return bad, nil }
	if err := w.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "new settings") {
		t.Errorf("bad new settings: %v", err)
	}
}
