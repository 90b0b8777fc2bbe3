package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"dama/broker"
	"dama/runfolder"
	"dama/selfplay"
)

// With DAMA_TEST_AS_BROKER=STOREDIR|ADDR|TOKENFILE the test binary is a
// NATS server process, which a test can SIGKILL on its own.
func init() {
	spec := os.Getenv("DAMA_TEST_AS_BROKER")
	if spec == "" {
		return
	}
	parts := strings.Split(spec, "|")
	tok, err := broker.ReadToken(parts[2])
	if err == nil {
		_, err = broker.StartServer(broker.ServerOptions{Addr: parts[1], StoreDir: parts[0], Token: tok})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("broker: serving")
	select {}
}

// lockedBuffer collects a process's output; the test reads it while the
// process writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proc is a dama process the test may kill and start again.
type proc struct {
	args []string
	env  string       // an extra environment variable
	out  lockedBuffer // every incarnation's output
	cmd  *exec.Cmd
	done chan struct{} // closed when the incarnation has ended
	err  error         // its exit error, once done
}

func (p *proc) start(t *testing.T) {
	t.Helper()
	p.cmd = damaCmd(p.args...)
	if p.env != "" {
		p.cmd.Env = append(p.cmd.Env, p.env)
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	p.done = done
	go func(cmd *exec.Cmd) {
		p.err = cmd.Wait()
		close(done)
	}(p.cmd)
}

// kill sends SIGKILL and waits; it reports false if the process had ended.
func (p *proc) kill() bool {
	select {
	case <-p.done:
		return false
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	return true
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var publishedLine = regexp.MustCompile(`published (chunk-\S+) \((\d+) games`)

// TestBrokerSurvivesKills runs a trainer serving the broker and three
// worker processes connected to it only through the broker, and SIGKILLs
// workers and the trainer (with its embedded server) at random moments,
// starting each again with the same command. At the end every chunk a
// worker saw stored is in the run's games folder or still on the stream,
// no chunk is consumed twice, and the workers followed the promotions.
func TestBrokerSurvivesKills(t *testing.T) {
	gens, kills := 3, 10
	if testing.Short() {
		gens, kills = 2, 4
	}
	brokerKills(t, gens, kills, false)
}

// TestBrokerServerKills runs the same over a NATS server in a process of
// its own (dama train --broker), which is SIGKILLed too.
func TestBrokerServerKills(t *testing.T) {
	if testing.Short() {
		t.Skip("TestBrokerSurvivesKills covers the short run")
	}
	brokerKills(t, 3, 12, true)
}

func brokerKills(t *testing.T, gens, kills int, external bool) {
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	url := "nats://" + addr
	trainerArgs := []string{"train", "--run", dir, "--serve", addr}
	// The token of the external server; with --serve, of the server that
	// reads the stream at the end.
	tokenFile := filepath.Join(t.TempDir(), "token")
	if _, err := broker.EnsureToken(tokenFile); err != nil {
		t.Fatal(err)
	}
	var server *proc
	store := filepath.Join(dir, "broker", "jetstream")
	if external {
		store = filepath.Join(t.TempDir(), "jetstream")
		server = &proc{env: "DAMA_TEST_AS_BROKER=" + store + "|" + addr + "|" + tokenFile}
		server.start(t)
		defer server.kill()
		trainerArgs = []string{"train", "--run", dir, "--broker", url, "--token-file", tokenFile}
	}
	// Each worker's credential, issued before the trainer starts.
	var workerArgs [][]string
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("w%d", i)
		cred := filepath.Join(t.TempDir(), name+".cred")
		if code, _, errs := runCmd(t, "broker", "add-worker", name, "--run", dir, "--out", cred); code != 0 {
			t.Fatalf("dama broker add-worker %s: %s", name, errs)
		}
		args := []string{"selfplay", "worker", "--broker", url, "--credential", cred, "--worker", name, "--chunk", "2"}
		if external {
			args = append(args, "--token-file", tokenFile)
		}
		workerArgs = append(workerArgs, args)
	}
	trainer := &proc{args: append(append(trainerArgs, fastRun...),
		"--set", "run.generations="+strconv.Itoa(gens), "--set", "arena.gating=none", "--set", "selfplay.games_per_generation=12")}
	trainer.start(t)
	defer trainer.kill()
	var workers []*proc
	for _, args := range workerArgs {
		w := &proc{args: args}
		w.start(t)
		defer w.kill()
		workers = append(workers, w)
	}

	rng := rand.New(rand.NewPCG(10, 10))
	trainerKills, workerKills, serverKills := 0, 0, 0
	finished := false
	for k := 0; k < kills && !finished; k++ {
		select {
		case <-trainer.done:
			if trainer.err != nil {
				t.Fatalf("dama train: %v\n%s", trainer.err, trainer.out.String())
			}
			finished = true
			continue
		case <-time.After(time.Duration(200+rng.IntN(1000)) * time.Millisecond):
		}
		if external && k%3 == 0 {
			server.kill()
			serverKills++
			time.Sleep(time.Duration(rng.IntN(500)) * time.Millisecond) // a while without a server
			server.start(t)
		} else if k%3 == 1 {
			trainer.kill()
			trainerKills++
			trainer.start(t)
		} else {
			w := workers[rng.IntN(len(workers))]
			if w.kill() {
				workerKills++
			}
			w.start(t)
		}
	}
	if !finished {
		select {
		case <-trainer.done:
			if trainer.err != nil {
				t.Fatalf("dama train: %v\n%s", trainer.err, trainer.out.String())
			}
		case <-time.After(3 * time.Minute):
			t.Fatalf("the run did not finish:\n%s", trainer.out.String())
		}
	}
	// Workers follow promotions: each one comes to play with the final
	// best model (gating is off, so every generation promoted), which the
	// trainer published as it stopped. An embedded server stopped with
	// the trainer: a server on the same storage and port takes its place,
	// and the workers reconnect to it by themselves.
	var follow *broker.Server
	if !external {
		var err error
		if follow, err = broker.StartServer(broker.ServerOptions{Addr: addr, StoreDir: store, Roster: filepath.Join(dir, "broker")}); err != nil {
			t.Fatal(err)
		}
		defer follow.Shutdown()
	}
	run := &runfolder.Run{Dir: dir}
	best, err := run.Best()
	if err != nil || best != filepath.Join(runfolder.AcceptedDir, runfolder.CandidateName(gens)) {
		t.Errorf("best = %q, %v; want generation %d's", best, err, gens)
	}
	followStart := time.Now()
	var followed []string
	for i, w := range workers {
		for end := time.Now().Add(time.Minute); !strings.Contains(w.out.String(), "playing with "+best); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Errorf("worker %d did not take up the best model %s within a minute", i+1, best)
				break
			}
		}
		followed = append(followed, time.Since(followStart).Round(time.Millisecond).String())
	}
	for _, w := range workers {
		select {
		case <-w.done:
		default:
			w.cmd.Process.Signal(os.Interrupt)
		}
	}
	for i, w := range workers {
		select {
		case <-w.done:
		case <-time.After(60 * time.Second):
			t.Errorf("worker %d did not stop:\n%s", i+1, w.out.String())
			w.kill()
		}
	}
	if trainerKills == 0 || external && serverKills == 0 {
		t.Errorf("the run finished before the trainer (%d kills) or the server (%d) was killed", trainerKills, serverKills)
	}

	used := checkRun(t, dir, gens)
	// What the workers saw stored, against what the run and the stream hold.
	published := map[string]int{}
	for _, w := range workers {
		for _, m := range publishedLine.FindAllStringSubmatch(w.out.String(), -1) {
			n, _ := strconv.Atoi(m[2])
			if _, dup := published[m[1]]; dup {
				t.Errorf("%s published twice", m[1])
			}
			published[m[1]] = n
		}
	}
	files, _ := selfplay.Chunks(run.Path(runfolder.GamesDir))
	inGames := map[string]bool{}
	models := map[string]bool{}
	for _, f := range files {
		inGames[filepath.Base(f)] = true
		h, _, err := selfplay.ReadFile(f)
		if err == nil {
			models[h.Model] = true
		}
	}
	if external {
		server.kill()
	} else {
		follow.Shutdown()
	}
	onStream := streamChunks(t, store, tokenFile)
	// A chunk consumed by a plan may still be on the stream when the
	// trainer was killed between the plan and the acknowledgement: the
	// next delivery is recognised and acknowledged (broker's
	// TestWorkerBridge checks that path).
	lost, games, ackPending := 0, 0, 0
	for name, n := range published {
		games += n
		if !inGames[name] && !onStream[name] {
			lost++
			t.Errorf("published chunk %s is neither in games/ nor on the stream", name)
		}
		if onStream[name] && used[name] > 0 {
			ackPending++
		}
	}
	if q, _ := os.ReadDir(run.Path(broker.QuarantineDir)); len(q) > 0 {
		t.Errorf("%d chunks quarantined in a run of honest workers", len(q))
	}
	var modelList []string
	for m := range models {
		modelList = append(modelList, m)
	}
	sort.Strings(modelList)
	if t.Failed() {
		t.Logf("trainer's output:\n%s", trainer.out.String())
		for i, w := range workers {
			t.Logf("worker %d's output:\n%s", i+1, w.out.String())
		}
	}
	what := "trainer+server"
	if external {
		what = fmt.Sprintf("server %d, trainer", serverKills)
	}
	t.Logf("kills: %s %d, workers %d; published %d chunks (%d games); consumed %d chunks in %d plans (each once), in games/ %d, left on the stream %d (of them consumed, acknowledgement lost to a kill: %d), lost %d; models in the chunks %v; the workers played with the final best %v after the trainer stopped",
		what, trainerKills, workerKills, len(published), games, len(used), gens, len(inGames), len(onStream), ackPending, lost, modelList, followed)
}

// streamChunks starts a server on JetStream storage and lists the chunks
// still on the stream.
func streamChunks(t *testing.T, store, tokenFile string) map[string]bool {
	t.Helper()
	tok, err := broker.ReadToken(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := broker.StartServer(broker.ServerOptions{Addr: "127.0.0.1:0", StoreDir: store, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nc, err := broker.Connect(ctx, s.URL(), "test", broker.Auth{Token: tok}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, broker.ChunkStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil {
			continue // deleted once acknowledged
		}
		out[m.Header.Get("Dama-Chunk")] = true
	}
	return out
}

// TestBrokerFlags: a wrong credential is refused with a one-line error,
// and flags that do not go together are named.
func TestBrokerFlags(t *testing.T) {
	dir := t.TempDir()
	tok, err := broker.EnsureToken(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := broker.StartServer(broker.ServerOptions{Addr: "127.0.0.1:0", StoreDir: filepath.Join(dir, "js"), Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	cred := filepath.Join(dir, "w1.cred")
	if code, _, errs := runCmd(t, "broker", "add-worker", "w1", "--run", dir, "--out", cred); code != 0 {
		t.Fatalf("dama broker add-worker: %s", errs)
	}
	wrongFile := filepath.Join(dir, "wrong-token")
	if err := os.WriteFile(wrongFile, []byte("wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		// The refusal names the flag that gave the credential.
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--credential", cred, "--token", "wrong", "--worker", "w1"}, "the broker refused the credential, --token:"},
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--credential", cred, "--worker", "w1"}, "the broker refused the credential, --credential " + cred + ", for 5s:"},
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--credential", cred, "--token-file", wrongFile, "--worker", "w1"}, "the broker refused the credential, --token-file " + wrongFile + ":"},
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--credential", cred, "--token-file", filepath.Join(dir, "none"), "--worker", "w1"}, "token file"},
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--run", dir}, "--run and --broker do not go together"},
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--credential", cred, "--model", "x.ckpt"}, "--model does not go with --broker"},
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--worker", "w1"}, "--broker needs --credential FILE"},
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--credential", cred, "--worker", "w2"}, "is worker w1's"},
		{[]string{"selfplay", "worker", "--broker", strings.Replace(s.URL(), "://", "://"+tok+"@", 1), "--credential", cred}, "bypasses the credential-file checks"},
		{[]string{"selfplay", "worker", "--broker", s.URL(), "--credential", filepath.Join(dir, "token")}, "credential file"},
		{[]string{"broker", "revoke", "w9", "--run", dir}, `no worker "w9"`},
		{[]string{"broker", "add-worker", "main", "--run", dir}, "the trainer's own"},
		{[]string{"broker", "add-worker", "w2", "--run", filepath.Join(dir, "none")}, "not a folder"},
		{[]string{"selfplay", "worker", "--run", dir, "--token", "x"}, "--token goes with --broker"},
		{[]string{"train", "--run", dir, "--serve", "127.0.0.1:0", "--broker", s.URL()}, "--serve and --broker do not go together"},
		{[]string{"train", "--run", dir, "--serve", "127.0.0.1:0", "--token", "x", "--config", "quick"}, "--serve keeps its own users"},
	} {
		code, _, errs := runCmd(t, c.args...)
		if code != 1 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("dama %s: exit %d, stderr %q; want exit 1 and one line with %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}
