package broker

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"dama/selfplay"
)

// TestWorkerLimits: the server holds a worker to its limits with no
// trainer running: the chunks it may have waiting (the next publish is
// refused, another worker's still taken), a chunk's size (on a server
// whose payload would let it through), and the size of its counter.
func TestWorkerLimits(t *testing.T) {
	dir := t.TempDir()
	creds := map[string]*Credential{}
	for _, w := range []string{"w1", "w2"} {
		c, err := AddWorker(dir, w)
		if err != nil {
			t.Fatal(err)
		}
		creds[w] = c
	}
	roster, err := LoadRoster(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartServer(ServerOptions{Addr: "127.0.0.1:0", StoreDir: filepath.Join(dir, "js"), Roster: dir, MaxPayload: 4 * MaxChunkBytes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tjs, _ := rawClient(t, s, nats.UserInfo(TrainerUser, roster.Trainer))
	const want = 10
	if _, _, _, err := setup(ctx, tjs, want); err != nil {
		t.Fatal(err)
	}
	client := func(w string) jetstream.JetStream {
		js, _ := rawClient(t, s, nats.UserInfo(w, creds[w].Password), nats.CustomInboxPrefix(InboxPrefix(w)))
		return js
	}
	w1, w2 := client("w1"), client("w2")
	publish := func(js jetstream.JetStream, w string, i int, data []byte) error {
		msg := &nats.Msg{Subject: chunkSubject + "." + w, Data: data, Header: nats.Header{}}
		msg.Header.Set(hdrVersion, "1")
		msg.Header.Set(hdrChunk, selfplay.ChunkName(w, i))
		c, cc := context.WithTimeout(ctx, 10*time.Second)
		defer cc()
		_, err := js.PublishMsg(c, msg)
		return err
	}
	backlog := int(workerBacklog(want))
	for i := range backlog {
		if err := publish(w2, "w2", i, []byte("not a chunk "+strconv.Itoa(i))); err != nil {
			t.Fatalf("w2's chunk %d of %d: %v", i, backlog, err)
		}
	}
	if err := publish(w2, "w2", backlog, []byte("one too many")); err == nil || !strings.Contains(err.Error(), "maximum messages per subject") {
		t.Errorf("w2's chunk past its backlog of %d: err %v, want a refusal", backlog, err)
	}
	if err := publish(w1, "w1", 0, []byte("a chunk of w1")); err != nil {
		t.Errorf("w1 publishing while w2 is at its limit: %v", err)
	}
	if err := publish(w1, "w1", 1, make([]byte, MaxChunkBytes+1)); err == nil || !strings.Contains(err.Error(), "maximum") {
		t.Errorf("a chunk of %d bytes: err %v, want a refusal", MaxChunkBytes+1, err)
	}
	kv, err := w1.KeyValue(ctx, runBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, seqPrefix+"w1", bytes.Repeat([]byte("9"), maxValueBytes+1)); err == nil {
		t.Errorf("a counter of %d bytes: taken", maxValueBytes+1)
	}
	if _, err := kv.Put(ctx, seqPrefix+"w1", []byte("7")); err != nil {
		t.Errorf("w1 writing its counter: %v", err)
	}
	st, err := tjs.Stream(ctx, ChunkStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(chunkSubject+".>"))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.State.Subjects; got[chunkSubject+".w2"] != uint64(backlog) || got[chunkSubject+".w1"] != 1 {
		t.Errorf("the stream holds %v, want %d of w2 and 1 of w1", got, backlog)
	}

	// A trainer whose generations take fewer games does not lower the
	// limit under what waits: the server would drop chunks to meet it.
	if _, _, _, err := setup(ctx, tjs, 1); err != nil {
		t.Fatal(err)
	}
	info, err = st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != uint64(backlog)+1 || info.Config.MaxMsgsPerSubject != int64(backlog) {
		t.Errorf("after setting up for 1 game a generation: %d chunks, %d a worker; want %d and %d", info.State.Msgs, info.Config.MaxMsgsPerSubject, backlog+1, backlog)
	}
}

// TestQuarantineCap: the bridge's share of the quarantine keeps at most
// quarantineFiles chunks and quarantineBytes, dropping the oldest with
// their reasons, counted from what a restarted bridge finds there; the
// trainer's own quarantined chunks are left alone.
func TestQuarantineCap(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		t.Helper()
		for _, p := range []string{name, name + ".why"} {
			if err := os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("chunk-main-000003.dgames") // the trainer's, from its games folder
	old := time.Now().Add(-time.Hour)
	for i := range 150 {
		name := fmt.Sprintf("%d-chunk-w2-%06d.dgames", i, i)
		write(name)
		os.Chtimes(filepath.Join(dir, name), old, old.Add(time.Duration(i)*time.Second))
	}
	var log syncBuffer
	r := newRefusals(dir, func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) })
	for i := 150; i < 300; i++ {
		name := fmt.Sprintf("%d-chunk-w2-%06d.dgames", i, i)
		write(name)
		r.kept(name, 1)
	}
	names := func() []string {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		return got
	}
	got := names()
	if len(got) != 2*quarantineFiles+2 || !slices.Contains(got, "chunk-main-000003.dgames") ||
		slices.Contains(got, "99-chunk-w2-000099.dgames") || !slices.Contains(got, "100-chunk-w2-000100.dgames.why") {
		t.Errorf("after 300 chunks the quarantine holds %d files, want the newest %d chunks and their reasons, and the trainer's", len(got), quarantineFiles)
	}
	// Bytes: chunks of a MiB each push out the oldest.
	for i := 300; i < 300+quarantineBytes>>20+5; i++ {
		name := fmt.Sprintf("%d-chunk-w2-%06d.dgames", i, i)
		write(name)
		r.kept(name, 1<<20)
	}
	if r.bytes > quarantineBytes || len(names()) != 2*(quarantineBytes>>20)+2 {
		t.Errorf("after big chunks: %d bytes counted in %d files, want at most %d in %d", r.bytes, len(names()), quarantineBytes, 2*(quarantineBytes>>20)+2)
	}
	if log.String() != "" {
		t.Errorf("log: %s", log.String())
	}
}

// flood has worker w2 of a served run send bad chunks as fast as its
// connection takes them, rounds of 2000 small ones and 20 of almost
// MaxChunkBytes; once the first round is sent, worker w1 publishes a real
// chunk, and the flood goes on until that chunk is in games/. It returns
// how long the chunk took from its publish to games/, the bad chunks
// sent, and the run, whose bridge is still open, once the server has
// handed the trainer all that it stored of the flood.
func flood(t testing.TB) (delay time.Duration, sent int, r *rolesRun) {
	r = newRolesRun(t)
	c := r.creds["w2"]
	_, nc := rawClient(t, r.s, nats.UserInfo(c.User, c.Password), nats.CustomInboxPrefix(InboxPrefix("w2")))
	bad := encodeChunk(t, playGames(t, 1, 7))
	bad[len(bad)/2] ^= 1 // its checksum fails: read through before refused
	big := make([]byte, MaxChunkBytes-4096)
	rand.Read(big)
	round := func() error {
		for i := range 2000 {
			datas := [][]byte{bad}
			if i%100 == 0 {
				datas = append(datas, big)
			}
			for _, data := range datas {
				msg := &nats.Msg{Subject: chunkSubject + ".w2", Data: data, Header: nats.Header{}}
				msg.Header.Set(hdrVersion, "1")
				msg.Header.Set(hdrChunk, selfplay.ChunkName("w2", sent))
				if err := nc.PublishMsg(msg); err != nil {
					return err
				}
				sent++
			}
		}
		return nc.Flush()
	}
	if err := round(); err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if err := round(); err != nil {
				done <- err
				return
			}
		}
	}()
	chunk := encodeChunk(t, playGames(t, 1, 8))
	c1 := r.creds["w1"]
	js1, _ := rawClient(t, r.s, nats.UserInfo(c1.User, c1.Password), nats.CustomInboxPrefix(InboxPrefix("w1")))
	name := selfplay.ChunkName("w1", 0)
	t0 := time.Now()
	publishChunk(t, js1, "w1", name, chunk)
	waitFor(t, "w1's chunk in games/ despite the flood", func() bool { return slices.Contains(gamesOnDisk(t, r.run), name) })
	delay = time.Since(t0)
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	tjs := r.trainerJS(t)
	waitFor(t, "the flood handled", func() bool {
		info, err := tjs.Consumer(context.Background(), ChunkStream, trainerName)
		if err != nil {
			return false
		}
		ci, err := info.Info(context.Background())
		return err == nil && ci.NumPending == 0 && ci.NumAckPending <= 1 // w1's chunk, held for a plan
	})
	return delay, sent, r
}

// TestFlood: a worker flooding the broker with bad chunks gets keepBurst
// of them kept and logged one by one, and one more per keepEvery the
// flood lasts; lines, one per burstLine at most, count the others; the
// server stores no more of them than the worker's backlog past what the
// trainer refused; and another worker's chunk still reaches games/ (how
// fast is BenchmarkFloodDelay's).
func TestFlood(t *testing.T) {
	began := time.Now()
	delay, sent, r := flood(t)
	lasted := time.Since(began)
	t.Logf("w1's chunk reached games/ %v after its publish, during a flood of %d chunks", delay, sent)
	r.b.Close()
	n := r.b.Stats().Quarantined
	if n > sent || n < 2020 {
		t.Errorf("%d chunks refused of the %d sent", n, sent)
	}
	log := r.log.String()
	kept := strings.Count(log, "broker: quarantined chunk")
	if most := keepBurst + int(lasted/keepEvery) + 1; kept < keepBurst || kept > most {
		t.Errorf("%d refusals logged one by one in %v, want %d to %d", kept, lasted, keepBurst, most)
	}
	counted, lines := 0, 0
	for _, m := range regexp.MustCompile(`broker: (\d+) more chunks of worker w2 refused`).FindAllStringSubmatch(log, -1) {
		c, _ := strconv.Atoi(m[1])
		counted += c
		lines++
	}
	if kept+counted != n || lines > int(lasted/burstLine)+2 {
		t.Errorf("%d refusals kept and %d counted in %d lines over %v; want %d in all, a line per %v", kept, counted, lines, lasted, n, burstLine)
	}
	q, _ := filepath.Glob(r.run.Path(QuarantineDir, "*"))
	if len(q) != 2*kept {
		t.Errorf("quarantine holds %d files, want %d chunks and their reasons", len(q), kept)
	}
}

// BenchmarkFloodDelay times a real chunk of one worker published behind a
// flood of another's (flood): from its publish to games/.
func BenchmarkFloodDelay(b *testing.B) {
	var total time.Duration
	flooded := 0
	for i := 0; i < b.N; i++ {
		d, sent, _ := flood(b)
		total += d
		flooded += sent
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/chunk")
	b.ReportMetric(float64(flooded)/float64(b.N), "flood-chunks")
}

// TestForgetOldest: the bridge's memory of refused stream messages keeps
// the newer half when it is full.
func TestForgetOldest(t *testing.T) {
	refused := map[uint64]bool{}
	for _, s := range []uint64{9, 3, 7, 1, 5, 10, 2, 8, 4, 6} {
		refused[s] = true
	}
	forgetOldest(refused)
	if got := slices.Sorted(maps.Keys(refused)); !slices.Equal(got, []uint64{6, 7, 8, 9, 10}) {
		t.Errorf("kept %v, want 6 to 10", got)
	}
}
