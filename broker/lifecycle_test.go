package broker

import (
	"context"
	"crypto/ed25519"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/runfolder"
	"dama/selfplay"
)

// TestWorkerLogFormat: every line of a broker worker's log, through
// selfplay.StampedLog as dama selfplay --broker writes it, starts with the
// time and the worker's name; Quiet hides the per-chunk progress lines and
// nothing else.
func TestWorkerLogFormat(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	b := newBridge(t, s, tok, run, nil)
	defer b.Close()
	b.OnBest(filepath.Join(runfolder.AcceptedDir, runfolder.CandidateName(0)))
	line := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z worker w1: \S`)
	for _, quiet := range []bool{false, true} {
		var log syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := Work(ctx, WorkerOptions{URL: s.URL(), Auth: Auth{Token: tok}, TrainerKey: testKey, Name: "w1", Games: 2, PerChunk: 1,
			Seed: 3, Log: selfplay.StampedLog(&log, nil), Quiet: quiet})
		cancel()
		if err != nil {
			t.Fatalf("quiet %v: %v\n%s", quiet, err, log.String())
		}
		out := log.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if !line.MatchString(l) {
				t.Errorf("quiet %v: log line %q: want the time and the worker's name first", quiet, l)
			}
		}
		published := strings.Count(out, " published chunk-w1-")
		if want := map[bool]int{false: 2, true: 0}[quiet]; published != want {
			t.Errorf("quiet %v: %d progress lines, want %d:\n%s", quiet, published, want, out)
		}
		if !strings.Contains(out, "playing with accepted/0000.ckpt") {
			t.Errorf("quiet %v: no line about the model played:\n%s", quiet, out)
		}
	}
}

// lifecycleBridge is a bridge as dama train --serve starts it, with want
// games a generation.
func lifecycleBridge(t *testing.T, s *Server, tok string, run *runfolder.Run, log *syncBuffer, want int) *Bridge {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := NewBridge(ctx, BridgeOptions{URL: s.URL(), Auth: Auth{Token: tok}, Run: run, Signer: testSigner, AckWait: 4 * time.Second, Log: log, Want: want})
	if err != nil {
		t.Fatal(err)
	}
	b.OnBest(filepath.Join(runfolder.AcceptedDir, runfolder.CandidateName(0)))
	return b
}

// runWorker runs a broker worker until it ends by itself or the test
// ends; done has its result.
func runWorker(t *testing.T, s *Server, tok string, log *syncBuffer) <-chan error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		done <- Work(ctx, WorkerOptions{URL: s.URL(), Auth: Auth{Token: tok}, TrainerKey: testKey, Name: "w1", PerChunk: 1, Seed: 9, Log: log})
	}()
	return done
}

// TestBackPressure: a worker plays no new chunk while the games waiting
// for the trainer reach what a generation takes, resumes once a plan takes
// them, and stops, with nil and one line, when the trainer says the run is
// done.
func TestBackPressure(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	var log syncBuffer
	const want = 3
	b := lifecycleBridge(t, s, tok, run, &log, want)
	done := runWorker(t, s, tok, &log)
	waitFor(t, "the worker to wait", func() bool {
		return strings.Contains(log.String(), "a generation takes 3; waiting before the next chunk")
	})
	time.Sleep(1500 * time.Millisecond)
	first := gamesOnDisk(t, run)
	// One chunk may cross the trainer's count of the waiting games.
	if n := len(first); n < want || n > want+1 {
		t.Fatalf("%d chunks of 1 game published against %d wanted, want %d or %d:\n%s", n, want, want, want+1, log.String())
	}
	if got := b.Stats().Written; got != len(first) {
		t.Errorf("the bridge wrote %d chunks, games/ holds %d", got, len(first))
	}
	b.OnPlan(1, first)
	waitFor(t, "the worker to resume", func() bool { return len(gamesOnDisk(t, run)) >= len(first)+want })
	if !strings.Contains(log.String(), "worker w1: resuming") {
		t.Errorf("no line saying the worker resumed:\n%s", log.String())
	}
	b.SetFinished()
	b.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker of a finished run: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the worker did not stop when the run was done")
	}
	if strings.Count(log.String(), "worker w1: the run is finished; stopping") != 1 {
		t.Errorf("want one line saying the run is finished:\n%s", log.String())
	}
}

// TestPausedTrainer: a trainer that stops cleanly tells workers it is
// paused; they play no new chunk until a trainer takes chunks again.
func TestPausedTrainer(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	var log syncBuffer
	b := lifecycleBridge(t, s, tok, run, &log, 0)
	done := runWorker(t, s, tok, &log)
	waitFor(t, "a chunk", func() bool { return b.Stats().Written >= 1 })
	b.Close()
	waitFor(t, "the worker to wait", func() bool {
		return strings.Contains(log.String(), "worker w1: the trainer is paused; waiting before the next chunk")
	})
	time.Sleep(500 * time.Millisecond) // a chunk in play when the trainer stopped is published
	n := len(gamesOnDisk(t, run)) + streamMsgs(t, s, tok)
	time.Sleep(1500 * time.Millisecond)
	if m := len(gamesOnDisk(t, run)) + streamMsgs(t, s, tok); m != n {
		t.Errorf("a paused trainer: %d chunks became %d", n, m)
	}
	b = lifecycleBridge(t, s, tok, run, &log, 0)
	waitFor(t, "the worker to resume", func() bool { return b.Stats().Written >= 1 && strings.Contains(log.String(), "worker w1: resuming") })
	b.SetFinished()
	b.Close()
	if err := <-done; err != nil {
		t.Fatalf("worker: %v", err)
	}
}

// streamMsgs counts the chunks on the stream.
func streamMsgs(t *testing.T, s *Server, tok string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := jsClient(t, s, tok).Stream(ctx, ChunkStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return int(info.State.Msgs)
}

// TestRunStateRoles: a worker's credential can read, not write the run's state,
// and a state that is not the trainer's signed one (written with the
// trainer's rights, as on an external server with looser permissions) is
// ignored with a line: the worker keeps playing.
func TestRunStateRoles(t *testing.T) {
	r := newRolesRun(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	played, stop, done := r.worker(ctx, "w1")
	waitFor(t, "a game", func() bool { return played("accepted/0000.ckpt") > 0 })
	js, _, _ := r.client(t, "w2")
	kv, err := js.KeyValue(ctx, runBucket)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := kv.Get(ctx, stateKey); err != nil || !strings.Contains(string(e.Value()), `"state":"running"`) {
		t.Fatalf("a worker reading the run's state: %v", err)
	}
	forged := signState(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)), runState{State: StateDone})
	// A refused request gets no answer: it fails when this ends.
	short, cancelShort := context.WithTimeout(ctx, time.Second)
	_, err = kv.Put(short, stateKey, forged)
	cancelShort()
	if err == nil {
		t.Fatal("a worker's credential wrote the run's state")
	}
	tkv, err := r.trainerJS(t).KeyValue(ctx, runBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tkv.Put(ctx, stateKey, forged); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the forged state refused", func() bool {
		return strings.Contains(r.log.String(), "worker w1: ignoring the run's state") && strings.Contains(r.log.String(), "signature does not verify")
	})
	n := played("accepted/0000.ckpt")
	waitFor(t, "more games", func() bool { return played("accepted/0000.ckpt") > n })
	select {
	case err := <-done:
		t.Fatalf("the worker stopped on a forged state: %v", err)
	default:
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestFinishedWaitsForClose: SetFinished publishes nothing by itself; the
// run's state says done only once Close has put the final best pointer,
// so no worker reads "done" while the pointer still names the model
// before the last (TestBrokerServerKills caught workers stopping on it).
func TestFinishedWaitsForClose(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	var log syncBuffer
	b := lifecycleBridge(t, s, tok, run, &log, 0)
	kv, err := jsClient(t, s, tok).KeyValue(context.Background(), runBucket)
	if err != nil {
		t.Fatal(err)
	}
	state := func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e, err := kv.Get(ctx, stateKey)
		if err != nil {
			return err.Error()
		}
		st, err := readState(testKey, e.Value())
		if err != nil {
			t.Fatal(err)
		}
		return st.State
	}
	waitFor(t, "the running state", func() bool { return state() == StateRunning })
	b.SetFinished()
	b.stateChanged()
	time.Sleep(2500 * time.Millisecond) // past the publisher's retry timer too
	if got := state(); got != StateRunning {
		t.Fatalf("after SetFinished, before Close: state %q, want %q", got, StateRunning)
	}
	b.Close()
	if got := state(); got != StateDone {
		t.Fatalf("after Close: state %q, want %q", got, StateDone)
	}
}

// TestCountedOwn: a state counts at most as many of a worker's chunks as
// arrived since the state before it, the oldest first; a trainer that
// started again counts from zero.
func TestCountedOwn(t *testing.T) {
	for _, c := range []struct {
		unseen   []int
		was, now int
		want     []int
	}{
		{[]int{1, 1, 1}, 0, 2, []int{1}},  // computed before the third chunk arrived
		{[]int{2, 3}, 5, 5, []int{2, 3}},  // no arrival: nothing counted
		{[]int{2, 3}, 5, 6, []int{3}},     // one arrival: the oldest chunk
		{[]int{2, 3}, 5, 9, []int{}},      // more arrivals than chunks (other workers')
		{[]int{4}, 40, 1, []int{}},        // a new trainer, one arrival
		{[]int{4, 4}, 40, 0, []int{4, 4}}, // a new trainer, none yet
		{nil, 0, 7, []int{}},              // the first state
	} {
		in := append([]int(nil), c.unseen...)
		got := countedOwn(in, c.was, c.now)
		if !slices.Equal(got, c.want) {
			t.Errorf("countedOwn(%v, %d, %d) = %v, want %v", c.unseen, c.was, c.now, got, c.want)
		}
	}
}

// TestPaceStaleState: a state put before the worker's last chunk arrived
// does not let the worker play past Want (the race behind a flaky
// TestBackPressure: three chunks published, then a state counting two of
// them, read as two games waiting and none of the worker's).
func TestPaceStaleState(t *testing.T) {
	var log syncBuffer
	w := &worker{opt: WorkerOptions{Name: "w1", TrainerKey: testKey, Log: &log}, sig: make(chan struct{}, 1), stateSig: make(chan struct{}, 1)}
	state := func(waiting, arrived int) {
		w.seeState(signState(testSigner, runState{State: StateRunning, Waiting: waiting, Want: 3, Arrived: arrived}))
	}
	played := func() bool {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // a worker held back returns PaceStop at once
		p, err := w.Pace(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return p == selfplay.PacePlay
	}
	state(0, 0)
	for i := range 3 {
		if !played() {
			t.Fatalf("held back before chunk %d of 3:\n%s", i, log.String())
		}
		w.mu.Lock()
		w.ownUnseen = append(w.ownUnseen, 1)
		w.mu.Unlock()
	}
	if played() {
		t.Fatalf("played a fourth chunk with three published:\n%s", log.String())
	}
	state(2, 2) // stale: the third chunk had not arrived
	if played() {
		t.Fatalf("a state counting two of three chunks let the worker play:\n%s", log.String())
	}
	state(3, 3)
	if played() {
		t.Fatalf("three games waiting let the worker play:\n%s", log.String())
	}
	state(0, 3) // a plan took them
	if !played() {
		t.Fatalf("held back with no game waiting:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "worker w1: resuming") {
		t.Errorf("no line saying the worker resumed:\n%s", log.String())
	}
}
