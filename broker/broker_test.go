package broker

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"dama/configs"
	"dama/internal/evaltest"
	"dama/model"
	"dama/rules"
	"dama/runfolder"
	"dama/selfplay"
)

// testSigner is the trainer's key in tests, testKey its public half.
var (
	testSigner = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	testKey    = testSigner.Public().(ed25519.PublicKey)
)

// testServer starts an embedded server with a token on a free loopback
// port.
func testServer(t testing.TB, dir string) (*Server, string) {
	t.Helper()
	tok, err := EnsureToken(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartServer(ServerOptions{Addr: "127.0.0.1:0", StoreDir: filepath.Join(dir, "js"), Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s, tok
}

// syncBuffer is a log safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testRun makes a run folder as a trainer leaves it at the start: the
// archived configuration (tiny and fast) and a random generation-0 model
// as the best.
func testRun(t testing.TB) *runfolder.Run {
	t.Helper()
	run, err := runfolder.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.Load("quick", nil, []string{
		"model.preset=tiny", "run.workers=1", "selfplay.parallel=2", "selfplay.visits=4",
		"selfplay.max_plies=30", "selfplay.eval_batch=2", "selfplay.eval_workers=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	y, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if err := runfolder.WriteFileAtomic(run.Path(runfolder.ConfigFile), y); err != nil {
		t.Fatal(err)
	}
	for gen := 0; gen < 2; gen++ {
		saveModel(t, run, gen)
	}
	if err := run.SetBest(filepath.Join(runfolder.AcceptedDir, runfolder.CandidateName(0))); err != nil {
		t.Fatal(err)
	}
	return run
}

func saveModel(t testing.TB, run *runfolder.Run, gen int) string {
	t.Helper()
	mc, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	ck := &model.Checkpoint{Net: model.NewNetwork(mc, rand.New(rand.NewSource(int64(gen)+1)))}
	rel := filepath.Join(runfolder.AcceptedDir, runfolder.CandidateName(gen))
	if err := ck.Save(run.Path(rel)); err != nil {
		t.Fatal(err)
	}
	return rel
}

func newBridge(t testing.TB, s *Server, tok string, run *runfolder.Run, log *syncBuffer) *Bridge {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opt := BridgeOptions{URL: s.URL(), Auth: Auth{Token: tok}, Run: run, Signer: testSigner, AckWait: 4 * time.Second}
	if log != nil {
		opt.Log = log
	}
	b, err := NewBridge(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitFor polls cond for up to 30 seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func gamesOnDisk(t testing.TB, run *runfolder.Run) []string {
	t.Helper()
	paths, err := selfplay.Chunks(run.Path(runfolder.GamesDir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	return names
}

// TestWorkerBridge runs a worker and the trainer's bridge over an embedded
// server: the chunks arrive verified in games/, stay unacknowledged until
// a plan takes them, come again after a trainer restart, and are taken once.
func TestWorkerBridge(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	var log syncBuffer
	b := newBridge(t, s, tok, run, &log)
	b.OnBest(filepath.Join(runfolder.AcceptedDir, runfolder.CandidateName(0)))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Work(ctx, WorkerOptions{URL: s.URL(), Auth: Auth{Token: tok}, TrainerKey: testKey, Name: "w1", Games: 6, PerChunk: 2, Seed: 5, Log: &log}); err != nil {
		t.Fatalf("worker: %v\n%s", err, log.String())
	}
	want := []string{"chunk-w1-000000.dgames", "chunk-w1-000001.dgames", "chunk-w1-000002.dgames"}
	waitFor(t, "three chunks in games/", func() bool { return b.Stats().Written == 3 })
	if got := gamesOnDisk(t, run); !slices.Equal(got, want) {
		t.Fatalf("games/ holds %v, want %v", got, want)
	}
	for _, name := range want {
		h, games, err := selfplay.ReadFile(run.Path(runfolder.GamesDir, name))
		if err != nil || len(games) != 2 || h.Model != "accepted/0000.ckpt" {
			t.Errorf("%s: %d games by %q, %v", name, len(games), h.Model, err)
		}
	}
	if st := b.Stats(); st.Held != 3 || st.Acked != 0 {
		t.Errorf("before any plan: %+v, want 3 held, none acknowledged", st)
	}

	// A trainer killed before its plan: everything is delivered again and
	// recognised, nothing written twice.
	b.Close()
	b = newBridge(t, s, tok, run, &log)
	waitFor(t, "redelivery", func() bool { return b.Stats().Held == 3 })
	if st := b.Stats(); st.Written != 0 {
		t.Errorf("after a restart: %+v, want nothing written again", st)
	}
	b.OnPlan(1, want[:2])
	if st := b.Stats(); st.Acked != 2 || st.Held != 1 {
		t.Errorf("after a plan of two: %+v", st)
	}

	// Restart with the plan on disk: only the third comes again.
	b.Close()
	writePlan(t, run, 1, want[:2])
	b = newBridge(t, s, tok, run, &log)
	waitFor(t, "redelivery of the third", func() bool { return b.Stats().Held == 1 })

	// A trainer killed after its plan is durable but before the
	// acknowledgement: the next delivery is recognised and acknowledged.
	writePlan(t, run, 2, want[2:])
	b.Close()
	b = newBridge(t, s, tok, run, &log)
	waitFor(t, "the consumed chunk acknowledged", func() bool { return b.Stats().Duplicates >= 1 })
	if st := b.Stats(); st.Held != 0 || st.Written != 0 {
		t.Errorf("a consumed chunk delivered again: %+v, want it acknowledged, not held or written", st)
	}
	b.Close()

	// Nothing is left on the stream.
	js := jsClient(t, s, tok)
	st, err := js.Stream(ctx, ChunkStream)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an empty stream", func() bool {
		info, err := st.Info(ctx)
		return err == nil && info.State.Msgs == 0
	})
}

// writePlan writes a plan file as train.Loop does, with chunk names only.
func writePlan(t testing.TB, run *runfolder.Run, gen int, names []string) {
	t.Helper()
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf(`{"name":%q,"games":2,"positions":1}`, n))
	}
	data := fmt.Sprintf(`{"gen":%d,"chunks":[%s]}`, gen, strings.Join(parts, ","))
	if err := runfolder.WriteFileAtomic(run.Path(runfolder.GenerationsDir, fmt.Sprintf("%04d.plan.json", gen)), []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func jsClient(t testing.TB, s *Server, tok string) jetstream.JetStream {
	t.Helper()
	js, _ := rawClient(t, s, nats.Token(tok))
	return js
}

// rawClient connects to s with opts as a plain NATS client, closed when
// the test ends.
func rawClient(t testing.TB, s *Server, opts ...nats.Option) (jetstream.JetStream, *nats.Conn) {
	t.Helper()
	nc, err := nats.Connect(s.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js, nc
}

// uniform is an evaluator with uniform priors and a drawn value.
var uniform = evaltest.Constant{0.3, 0.4, 0.3}

func playGames(t testing.TB, n int, seed uint64) []*selfplay.Game {
	t.Helper()
	var games []*selfplay.Game
	cfg := selfplay.Config{SelfPlay: configs.Default().SelfPlay, Seed: seed}
	cfg.Visits, cfg.MaxPlies, cfg.Parallel = 4, 40, 4
	err := selfplay.Run(context.Background(), uniform, cfg, 0, n, func(g *selfplay.Game) error {
		games = append(games, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return games
}

func encodeChunk(t testing.TB, games []*selfplay.Game) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := selfplay.Encode(&buf, selfplay.Header{Model: "accepted/0000.ckpt"}, games); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// publishChunk publishes a chunk as worker would.
func publishChunk(t testing.TB, js jetstream.JetStream, worker, name string, data []byte) {
	t.Helper()
	msg := &nats.Msg{Subject: chunkSubject + "." + worker, Data: data, Header: nats.Header{}}
	msg.Header.Set(hdrVersion, "1")
	msg.Header.Set(hdrChunk, name)
	msg.Header.Set(nats.MsgIdHdr, msgID(name, data))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
}

// TestForgedChunks sends chunks no worker would: an illegal move under a
// valid checksum, a cut-off file, garbage, a path for a name, and another
// chunk under a taken name, and one whose result was flipped (checksum
// recomputed, every move legal). Each is quarantined with its reason and
// logged; only the good one reaches games/.
func TestForgedChunks(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	var log syncBuffer
	b := newBridge(t, s, tok, run, &log)
	defer b.Close()
	js := jsClient(t, s, tok)

	games := playGames(t, 2, 1)
	good := encodeChunk(t, games)
	g := *games[0]
	g.Plies = slices.Clone(g.Plies)
	g.Plies[2].Pos = g.Plies[4].Pos // a move that does not lead there
	illegal := encodeChunk(t, []*selfplay.Game{&g})
	other := encodeChunk(t, playGames(t, 1, 2))
	f := *games[1]
	f.Result = map[rules.Result]rules.Result{rules.WhiteWins: rules.BlackWins, rules.BlackWins: rules.WhiteWins, rules.Draw: rules.WhiteWins}[f.Result]
	flipped := encodeChunk(t, []*selfplay.Game{&f}) // checksum recomputed, every move legal

	publishChunk(t, js, "x", "chunk-x-000000.dgames", good)
	publishChunk(t, js, "x", "chunk-x-000001.dgames", illegal)
	publishChunk(t, js, "x", "chunk-x-000002.dgames", good[:len(good)-5])
	publishChunk(t, js, "x", "chunk-x-000003.dgames", []byte("not a chunk at all"))
	publishChunk(t, js, "x", "../../best", good)
	publishChunk(t, js, "x", "chunk-x-000000.dgames", other)
	publishChunk(t, js, "x", "chunk-x-000004.dgames", flipped)
	waitFor(t, "six refusals", func() bool { return b.Stats().Quarantined == 6 })
	if got := gamesOnDisk(t, run); !slices.Equal(got, []string{"chunk-x-000000.dgames"}) {
		t.Errorf("games/ holds %v, want only the good chunk", got)
	}
	if data, _ := os.ReadFile(run.Path(runfolder.GamesDir, "chunk-x-000000.dgames")); !bytes.Equal(data, good) {
		t.Errorf("the good chunk was replaced")
	}
	q, _ := filepath.Glob(run.Path(QuarantineDir, "*"+selfplay.FileExt))
	why, _ := filepath.Glob(run.Path(QuarantineDir, "*"+selfplay.FileExt+".why"))
	if len(q) != 6 || len(why) != 6 {
		t.Errorf("quarantine holds %d chunks and %d reasons, want 6 of each", len(q), len(why))
	}
	for _, want := range []string{"chunk-x-000001.dgames", "ply 2", "truncated", "bad magic", `bad chunk name "../../best"`, "different chunk of that name", "chunk-x-000004.dgames: game 0"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if best, _ := run.Best(); best != "accepted/0000.ckpt" {
		t.Errorf("best = %q", best)
	}
}

// TestDamagedModel points workers at a damaged model and at one whose
// digest does not match: the worker refuses both, says so, and keeps
// playing with the model it has.
func TestDamagedModel(t *testing.T) {
	run, s, tok, _, log := bridgedRun(t)

	js := jsClient(t, s, tok)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv, err := js.KeyValue(ctx, runBucket)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the best pointer", func() bool { _, err := kv.Get(ctx, bestKey); return err == nil })
	obs, err := js.ObjectStore(ctx, modelBucket)
	if err != nil {
		t.Fatal(err)
	}
	played, byModel, stop := startWorker(ctx, s, tok, log)
	waitFor(t, "a game with the first model", func() bool { return played("accepted/0000.ckpt") > 0 })

	data, err := os.ReadFile(run.Path("accepted/0001.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(data)
	bad[len(bad)/2] ^= 0xff
	put := func(name string, obj []byte, ptrDigest string) {
		if _, err := obs.PutBytes(ctx, name, obj); err != nil {
			t.Fatal(err)
		}
		// Signed, as the trainer would: the checks after the signature's.
		ptr := fmt.Sprintf(`{"version":1,"name":%q,"digest":%q,"size":%d,"signature":%q}`, name, ptrDigest, len(obj),
			sign(testSigner, modelMessage(name, ptrDigest)))
		if _, err := kv.Put(ctx, bestKey, []byte(ptr)); err != nil {
			t.Fatal(err)
		}
	}
	put("accepted/0001.ckpt", bad, digest(bad)) // damaged inside, pointer agrees
	waitFor(t, "the damaged model refused", func() bool { return strings.Contains(log.String(), "refusing model accepted/0001.ckpt") })
	if !strings.Contains(log.String(), "checksum") {
		t.Errorf("the refusal does not say why:\n%s", log.String())
	}
	put("accepted/0002.ckpt", data, digest(bad)) // whole, pointer disagrees
	waitFor(t, "the mismatched model refused", func() bool { return strings.Contains(log.String(), "refusing model accepted/0002.ckpt: digest") })
	n := played("accepted/0000.ckpt")
	waitFor(t, "more games with the first model", func() bool { return played("accepted/0000.ckpt") > n })
	if played("accepted/0001.ckpt")+played("accepted/0002.ckpt") != 0 {
		t.Errorf("games played with refused models: %v", byModel())
	}
	if err := stop(); err != nil {
		t.Errorf("worker: %v", err)
	}
}

// bridgedRun is a test run with its bridge on an embedded server, its best
// model accepted/0000.ckpt published to workers; log is the bridge's and
// is for the workers too.
func bridgedRun(t *testing.T) (run *runfolder.Run, s *Server, tok string, b *Bridge, log *syncBuffer) {
	t.Helper()
	run = testRun(t)
	s, tok = testServer(t, t.TempDir())
	log = &syncBuffer{}
	b = newBridge(t, s, tok, run, log)
	t.Cleanup(b.Close)
	b.OnBest("accepted/0000.ckpt")
	return run, s, tok, b, log
}

// startWorker starts a worker (w1, chunks of one game) on s. played counts
// its games by model, byModel returns all the counts, and stop stops it
// and returns its error.
func startWorker(ctx context.Context, s *Server, tok string, log *syncBuffer) (played func(string) int, byModel func() map[string]int, stop func() error) {
	var mu sync.Mutex
	counts := map[string]int{}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- Work(wctx, WorkerOptions{URL: s.URL(), Auth: Auth{Token: tok}, TrainerKey: testKey, Name: "w1", PerChunk: 1, Seed: 5, Log: log,
			OnGame: func(m string) { mu.Lock(); counts[m]++; mu.Unlock() }})
	}()
	played = func(m string) int { mu.Lock(); defer mu.Unlock(); return counts[m] }
	byModel = func() map[string]int { mu.Lock(); defer mu.Unlock(); return maps.Clone(counts) }
	return played, byModel, func() error { cancel(); return <-done }
}

// TestWorkerLoadsOncePerModel: a broker worker loads the best model once
// for all the chunks it plays with it, and again once the pointer moves.
func TestWorkerLoadsOncePerModel(t *testing.T) {
	_, s, tok, b, log := bridgedRun(t)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	played, _, stop := startWorker(ctx, s, tok, log)
	waitFor(t, "three chunks with the first model", func() bool { return strings.Contains(log.String(), "in all 3 games, 3 chunks, 1 model loads") })
	b.OnBest("accepted/0001.ckpt")
	waitFor(t, "games with the second model", func() bool { return played("accepted/0001.ckpt") >= 2 })
	if err := stop(); err != nil {
		t.Errorf("worker: %v", err)
	}
	counts := regexp.MustCompile(`worker w1: .*, (\d+) model loads`).FindAllStringSubmatch(log.String(), -1)
	if len(counts) == 0 || counts[len(counts)-1][1] != "2" {
		t.Errorf("the last chunk does not count 2 model loads:\n%s", log.String())
	}
}

// TestWrongCredential: a worker with a wrong token is refused at once with
// a clear error, and a server on a public address needs a token.
func TestWrongCredential(t *testing.T) {
	s, _ := testServer(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tok := range []string{"wrong", ""} {
		err := Work(ctx, WorkerOptions{URL: s.URL(), Auth: Auth{Token: tok}, TrainerKey: testKey, Name: "w1"})
		if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "refused the credential") {
			t.Errorf("token %q: err %v, want a refusal", tok, err)
		}
	}
	if _, err := StartServer(ServerOptions{Addr: "0.0.0.0:0", StoreDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "token is required") {
		t.Errorf("a public server without a token: err %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "token")
	tok, err := EnsureToken(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	if again, err := EnsureToken(path); err != nil || again != tok {
		t.Errorf("second EnsureToken: %q, %v; want the same token", again, err)
	}
	os.Chmod(path, 0o644)
	if _, err := ReadToken(path); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("a token file readable by others: err %v", err)
	}
}

// TestQuarantineOnce: a refused chunk the server delivers again (its
// refusal came after the acknowledgement wait, as on a loaded machine) is
// counted once, and kept and logged once if it is among the keepBurst
// kept, or else counted once in the burst's line.
func TestQuarantineOnce(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	newBridge(t, s, tok, run, nil).Close() // the stream and the trainer's consumer
	js := jsClient(t, s, tok)
	const n = 40
	for i := range n {
		publishChunk(t, js, "x", fmt.Sprintf("chunk-x-%06d.dgames", i), []byte(fmt.Sprintf("not a chunk %d", i)))
	}
	var log syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every delivery waits in the client behind the others far longer
	// than this.
	b, err := NewBridge(ctx, BridgeOptions{URL: s.URL(), Auth: Auth{Token: tok}, Run: run, Signer: testSigner, AckWait: 20 * time.Millisecond, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, fmt.Sprintf("%d refusals", n), func() bool { return b.Stats().Quarantined >= n })
	time.Sleep(500 * time.Millisecond) // deliveries again, if any, are handled
	if got := b.Stats().Quarantined; got != n {
		t.Errorf("%d chunks quarantined %d times", n, got)
	}
	b.Close() // logs the burst
	kept := strings.Count(log.String(), "broker: quarantined chunk")
	counted := 0
	for _, m := range regexp.MustCompile(`broker: (\d+) more chunks of worker x refused`).FindAllStringSubmatch(log.String(), -1) {
		c, _ := strconv.Atoi(m[1])
		counted += c
	}
	if kept < keepBurst || kept+counted != n {
		t.Errorf("%d chunks logged one by one and %d counted in bursts, want at least %d and %d in all:\n%s", kept, counted, keepBurst, n, log.String())
	}
	q, _ := filepath.Glob(run.Path(QuarantineDir, "*"+selfplay.FileExt))
	if len(q) != kept {
		t.Errorf("quarantine holds %d chunks, want the %d logged", len(q), kept)
	}
}

// TestBadCounter: a worker whose chunk counter on the broker holds no
// chunk number stops with one line saying what to do, instead of trying
// for ever.
func TestBadCounter(t *testing.T) {
	_, s, tok, _, log := bridgedRun(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv, err := jsClient(t, s, tok).KeyValue(ctx, runBucket)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"garbage", "-3"} {
		if _, err := kv.Put(ctx, seqPrefix+"w1", []byte(bad)); err != nil {
			t.Fatal(err)
		}
		err := Work(ctx, WorkerOptions{URL: s.URL(), Auth: Auth{Token: tok}, TrainerKey: testKey, Name: "w1", PerChunk: 1, Seed: 5, Log: log})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("key seq.w1 of bucket dama_run holds %q, not this worker's last chunk number", bad)) ||
			!strings.Contains(err.Error(), "dama broker add-worker") || strings.Contains(err.Error(), "\n") {
			t.Errorf("counter %q: err %v, want one line saying what to do", bad, err)
		}
	}
	if ctx.Err() != nil {
		t.Errorf("the worker tried until the test's deadline")
	}
}

// TestBridgeRefusesReplays: with the run's games in its check, the bridge
// quarantines a byte copy of a chunk the trainer took, sent under a new
// name; a chunk it passed that the trainer then refused (a replay of a
// chunk from another path, OnQuarantine) is dropped at the server for good
// (issue 47, point 1).
func TestBridgeRefusesReplays(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	games := playGames(t, 2, 1)
	held := selfplay.NewGameIndex()
	held.Add("chunk-a-000000.dgames", selfplay.IDs(games)) // taken by the trainer
	var log syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := NewBridge(ctx, BridgeOptions{URL: s.URL(), Auth: Auth{Token: tok}, Run: run, Signer: testSigner, AckWait: 4 * time.Second, Log: &log,
		Check: &selfplay.Checker{Held: held}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	js := jsClient(t, s, tok)
	publishChunk(t, js, "x", "chunk-x-000000.dgames", encodeChunk(t, games))
	waitFor(t, "the copy refused", func() bool { return b.Stats().Quarantined == 1 })
	why, err := os.ReadFile(run.Path(QuarantineDir, "1-chunk-x-000000.dgames.why"))
	if err != nil || !strings.Contains(string(why), "replay") || !strings.Contains(string(why), "chunk-a-000000.dgames") {
		t.Errorf("reason %q (%v), want a replay of chunk-a-000000.dgames", why, err)
	}
	publishChunk(t, js, "x", "chunk-x-000001.dgames", encodeChunk(t, playGames(t, 1, 2)))
	waitFor(t, "a new chunk written", func() bool { return b.Stats().Written == 1 })
	if got := gamesOnDisk(t, run); !slices.Equal(got, []string{"chunk-x-000001.dgames"}) {
		t.Errorf("games/ holds %v", got)
	}
	if err := b.OnQuarantine("chunk-x-000001.dgames", errors.New("refused by the trainer's check")); err != nil {
		t.Fatal(err)
	}
	if st := b.Stats(); st.Held != 0 || st.Quarantined != 2 {
		t.Errorf("after the trainer's refusal: %+v, want none held, two quarantined", st)
	}
	waitFor(t, "both chunks gone from the stream", func() bool { return streamMsgs(t, s, tok) == 0 })
}
