package broker

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"dama/runfolder"
	"dama/selfplay"
)

// rolesRun is a run served with roles: a roster with workers w1 and w2, the
// bridge connected as the trainer, and the first model published.
type rolesRun struct {
	run    *runfolder.Run
	dir    string // the broker folder
	s      *Server
	b      *Bridge
	log    *syncBuffer
	signer ed25519.PrivateKey
	creds  map[string]*Credential
}

func newRolesRun(t testing.TB) *rolesRun {
	t.Helper()
	r := &rolesRun{run: testRun(t), dir: t.TempDir(), log: &syncBuffer{}, creds: map[string]*Credential{}}
	var err error
	if r.signer, err = EnsureSigner(r.dir); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"w1", "w2"} {
		if r.creds[w], err = AddWorker(r.dir, w); err != nil {
			t.Fatal(err)
		}
	}
	roster, err := LoadRoster(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.s, err = StartServer(ServerOptions{Addr: "127.0.0.1:0", StoreDir: filepath.Join(r.dir, "js"), Roster: r.dir}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.s.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.b, err = NewBridge(ctx, BridgeOptions{URL: r.s.URL(), Auth: roster.TrainerAuth(), Run: r.run, Signer: r.signer, Log: r.log, AckWait: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.b.Close)
	r.b.OnBest("accepted/0000.ckpt")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", r.log.String())
		}
	})
	return r
}

// client connects as a raw NATS client with worker name's credential, as
// an attacker holding it would; errs collects what the server refuses.
func (r *rolesRun) client(t *testing.T, name string) (jetstream.JetStream, *nats.Conn, *syncBuffer) {
	t.Helper()
	c := r.creds[name]
	errs := &syncBuffer{}
	js, nc := rawClient(t, r.s, nats.UserInfo(c.User, c.Password), nats.CustomInboxPrefix(InboxPrefix(name)),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs.Write([]byte(err.Error() + "\n")) }))
	return js, nc, errs
}

// trainerJS is a client with the trainer's credential.
func (r *rolesRun) trainerJS(t testing.TB) jetstream.JetStream {
	t.Helper()
	roster, err := LoadRoster(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := rawClient(t, r.s, nats.UserInfo(TrainerUser, roster.Trainer))
	return js
}

// worker starts a real worker with name's credential; done has its
// result once it ends by itself, stop ends it and returns its result.
func (r *rolesRun) worker(ctx context.Context, name string) (played func(string) int, stop func() error, done <-chan error) {
	c := r.creds[name]
	key, _ := c.PublicKey()
	counts := map[string]int{}
	var mu syncBuffer // its lock guards counts
	wctx, cancel := context.WithCancel(ctx)
	res := make(chan error, 1)
	go func() {
		res <- Work(wctx, WorkerOptions{URL: r.s.URL(), Auth: Auth{User: c.User, Password: c.Password}, TrainerKey: key,
			Name: name, PerChunk: 1, Seed: 5, Log: r.log,
			OnGame: func(m string) { mu.mu.Lock(); counts[m]++; mu.mu.Unlock() }})
	}()
	played = func(m string) int { mu.mu.Lock(); defer mu.mu.Unlock(); return counts[m] }
	return played, func() error { cancel(); return <-res }, res
}

// TestWorkerRoles plays the attacks of a worker's credential against a
// served run: each is refused by the server or by the trainer, while a real
// worker with the same rights plays and publishes. Nothing the attacker
// sends reaches games/ (so no plan), the worker plays no unsigned model,
// the trainer keeps its consumer, and no consumer is made or deleted on
// the run's bucket or the models (durable, delivering to a subject of the
// attacker's choice, or 500 at once), by the attacker or the real worker.
func TestWorkerRoles(t *testing.T) {
	r := newRolesRun(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	played, stop, _ := r.worker(ctx, "w1")
	waitFor(t, "games of w1 with the first model", func() bool { return played("accepted/0000.ckpt") >= 2 })
	waitFor(t, "w1's chunks in games/", func() bool { return len(gamesOnDisk(t, r.run)) >= 2 })

	js, nc, errs := r.client(t, "w2")
	// A refused request gets no answer: it fails when this ends.
	short := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, time.Second) }
	refused := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: allowed to a worker", what)
		}
	}
	c, cc := short()
	_, err := js.CreateStream(c, jetstream.StreamConfig{Name: "EVIL", Subjects: []string{"evil.>"}})
	cc()
	refused("creating a stream", err)
	c, cc = short()
	refused("deleting the chunk stream", js.DeleteStream(c, ChunkStream))
	cc()
	c, cc = short()
	refused("deleting the trainer's consumer", js.DeleteConsumer(c, ChunkStream, trainerName))
	cc()
	c, cc = short()
	_, err = js.CreateOrUpdateConsumer(c, ChunkStream, jetstream.ConsumerConfig{Durable: "thief"})
	cc()
	refused("creating a consumer on the chunks", err)
	c, cc = short()
	_, err = js.OrderedConsumer(c, ChunkStream, jetstream.OrderedConsumerConfig{})
	if err == nil {
		// The consumer is made on first use.
		oc, _ := js.OrderedConsumer(c, ChunkStream, jetstream.OrderedConsumerConfig{})
		_, err = oc.Next(jetstream.FetchMaxWait(time.Second))
	}
	cc()
	refused("reading the chunks", err)

	// Consumers on the run's bucket and the models: durable ones kept on
	// the trainer's disk (500 asked for at once), one delivering to w1's
	// chunk subject, and deleting the trainer's and another worker's.
	tjs := r.trainerJS(t)
	for _, st := range []string{"KV_" + runBucket, "OBJ_" + modelBucket} {
		if _, err := tjs.CreateOrUpdateConsumer(ctx, st, jetstream.ConsumerConfig{Durable: "victim"}); err != nil {
			t.Fatal(err)
		}
	}
	best := kvSubject(bestKey)
	for i := range 500 {
		body := fmt.Sprintf(`{"stream_name":"KV_%s","config":{"durable_name":"evil%d","filter_subject":%q,"ack_policy":"none","deliver_policy":"all"}}`, runBucket, i, best)
		nc.PublishRequest(fmt.Sprintf("$JS.API.CONSUMER.CREATE.KV_%s.evil%d.%s", runBucket, i, best), nc.NewRespInbox(), []byte(body))
	}
	nc.PublishRequest("$JS.API.CONSUMER.CREATE.KV_"+runBucket+".push."+best, nc.NewRespInbox(), []byte(fmt.Sprintf(
		`{"stream_name":"KV_%s","config":{"name":"push","deliver_subject":"%s.w1","filter_subject":%q,"ack_policy":"none","deliver_policy":"all"}}`, runBucket, chunkSubject, best)))
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	c, cc = short()
	_, err = js.CreateOrUpdateConsumer(c, "KV_"+runBucket, jetstream.ConsumerConfig{Durable: "evil", FilterSubject: best})
	cc()
	refused("a durable consumer on the run's bucket", err)
	c, cc = short()
	_, err = js.CreateOrUpdateConsumer(c, "OBJ_"+modelBucket, jetstream.ConsumerConfig{Durable: "evil", FilterSubject: "$O." + modelBucket + ".C.x"})
	cc()
	refused("a durable consumer on the models", err)
	c, cc = short()
	_, err = js.OrderedConsumer(c, "KV_"+runBucket, jetstream.OrderedConsumerConfig{FilterSubjects: []string{best}})
	if err == nil {
		oc, _ := js.OrderedConsumer(c, "KV_"+runBucket, jetstream.OrderedConsumerConfig{FilterSubjects: []string{best}})
		_, err = oc.Next(jetstream.FetchMaxWait(time.Second))
	}
	cc()
	refused("an ordered consumer on the run's bucket", err)
	for _, st := range []string{"KV_" + runBucket, "OBJ_" + modelBucket} {
		c, cc = short()
		refused("deleting a consumer of "+st, js.DeleteConsumer(c, st, "victim"))
		cc()
	}

	// Subscribing to everything, or to the chunks, gets nothing.
	var got []string
	for _, subj := range []string{">", chunkSubject + ".>", "$KV.>"} {
		sub, err := nc.SubscribeSync(subj)
		if err != nil {
			continue
		}
		if m, err := sub.NextMsg(time.Second); err == nil {
			got = append(got, m.Subject)
		}
	}
	if len(got) > 0 {
		t.Errorf("a worker's subscription received %v", got)
	}

	kv, err := js.KeyValue(ctx, runBucket)
	if err != nil {
		t.Fatalf("a worker cannot open the run's bucket: %v", err)
	}
	if _, err := kv.Get(ctx, bestKey); err != nil {
		t.Errorf("a worker cannot read the best pointer: %v", err)
	}
	c, cc = short()
	_, err = kv.Get(c, seqPrefix+"w1")
	cc()
	refused("reading w1's counter", err)
	c, cc = short()
	_, err = kv.Put(c, seqPrefix+"w1", []byte("99"))
	cc()
	refused("writing w1's counter", err)

	// A model uploaded and the best pointer moved to it, its digest
	// recomputed.
	obs, err := js.ObjectStore(ctx, modelBucket)
	if err != nil {
		t.Fatalf("a worker cannot open the models: %v", err)
	}
	evil, err := os.ReadFile(r.run.Path("accepted/0001.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	c, cc = short()
	_, err = obs.PutBytes(c, "accepted/evil.ckpt", evil)
	cc()
	refused("uploading a model", err)
	ptr, _ := json.Marshal(bestPointer{Version: protocolVersion, Name: "accepted/0000.ckpt", Digest: digest(evil), Size: len(evil)})
	c, cc = short()
	_, err = kv.Put(c, bestKey, ptr)
	cc()
	refused("writing the best pointer", err)
	c, cc = short()
	_, err = kv.Put(c, configKey, []byte("selfplay:\n  visits: 2\n"))
	cc()
	refused("writing the configuration", err)

	// Chunks under w1's name: on w1's subject the server refuses; on w2's
	// own, the trainer quarantines it.
	data := encodeChunk(t, playGames(t, 1, 3))
	for _, subj := range []string{chunkSubject + ".w1", chunkSubject} {
		msg := &nats.Msg{Subject: subj, Data: data, Header: nats.Header{}}
		msg.Header.Set(hdrVersion, "1")
		msg.Header.Set(hdrChunk, "chunk-w1-900100"+selfplay.FileExt)
		c, cc = short()
		_, err = js.PublishMsg(c, msg)
		cc()
		refused("publishing on "+subj, err)
	}
	quarantined := r.b.Stats().Quarantined
	publishChunk(t, js, "w2", "chunk-w1-900101"+selfplay.FileExt, data)
	waitFor(t, "the chunk under w1's name quarantined", func() bool { return r.b.Stats().Quarantined == quarantined+1 })
	if !strings.Contains(r.log.String(), "not a name of that worker's") {
		t.Errorf("the quarantine does not say why:\n%s", r.log.String())
	}

	for _, want := range []string{"Permissions Violation for Publish", "Permissions Violation for Subscription"} {
		if !strings.Contains(strings.ToLower(errs.String()), strings.ToLower(want)) {
			t.Errorf("the server did not report %q to the attacker:\n%s", want, errs.String())
		}
	}
	for _, name := range gamesOnDisk(t, r.run) {
		if !strings.HasPrefix(name, "chunk-w1-") || name == "chunk-w1-900100"+selfplay.FileExt || name == "chunk-w1-900101"+selfplay.FileExt {
			t.Errorf("games/ holds %s, not a chunk of the real w1", name)
		}
	}
	if _, err := tjs.Consumer(ctx, ChunkStream, trainerName); err != nil {
		t.Errorf("the trainer's consumer: %v", err)
	}
	// The attacker made no consumer and deleted none; the real worker
	// made none either.
	for _, st := range []string{"KV_" + runBucket, "OBJ_" + modelBucket} {
		var names []string
		if stream, err := tjs.Stream(ctx, st); err != nil {
			t.Error(err)
		} else {
			lister := stream.ConsumerNames(ctx)
			for n := range lister.Name() {
				names = append(names, n)
			}
			if lister.Err() != nil {
				t.Errorf("listing the consumers of %s: %v", st, lister.Err())
			}
		}
		if !slices.Equal(names, []string{"victim"}) {
			t.Errorf("consumers of %s: %d, the first %q; want only the trainer's", st, len(names), names[:min(len(names), 5)])
		}
	}
	if _, err := tjs.Stream(ctx, "EVIL"); err == nil {
		t.Errorf("the worker's stream exists")
	}
	// The trainer's plans take what is in games/, as a run does: without
	// them a fast worker meets its backlog limit and waits.
	take := func() {
		if err := r.b.OnPlan(1, gamesOnDisk(t, r.run)); err != nil {
			t.Error(err)
		}
	}
	take()
	n := len(gamesOnDisk(t, r.run))
	waitFor(t, "w1 still publishing", func() bool { take(); return len(gamesOnDisk(t, r.run)) > n })
	if played("accepted/0001.ckpt")+played("accepted/evil.ckpt") != 0 {
		t.Errorf("w1 played a model the trainer did not promote")
	}
	// The trainer's promotion reaches the worker; the worker's own reads
	// and writes never met a refusal.
	r.b.OnBest("accepted/0001.ckpt")
	waitFor(t, "w1 playing the promoted model", func() bool { take(); return played("accepted/0001.ckpt") > 0 })
	if strings.Contains(strings.ToLower(r.log.String()), "permissions violation") {
		t.Errorf("the real worker was refused something:\n%s", r.log.String())
	}
	if err := stop(); err != nil {
		t.Errorf("w1: %v", err)
	}
}

// TestUnsignedModelAndConfig: with the rights to write the pointer and
// the configuration (the trainer's, as a server without roles would
// give), a model whose pointer is unsigned or signed by another key is
// not played, and a worker does not adopt an unsigned configuration.
func TestUnsignedModelAndConfig(t *testing.T) {
	r := newRolesRun(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	played, stop, _ := r.worker(ctx, "w1")
	waitFor(t, "games of w1 with the first model", func() bool { return played("accepted/0000.ckpt") >= 1 })

	tjs := r.trainerJS(t)
	kv, err := tjs.KeyValue(ctx, runBucket)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tjs.ObjectStore(ctx, modelBucket)
	if err != nil {
		t.Fatal(err)
	}
	evil, err := os.ReadFile(r.run.Path("accepted/0001.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.PutBytes(ctx, "accepted/evil.ckpt", evil); err != nil {
		t.Fatal(err)
	}
	other := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	for _, p := range []bestPointer{
		{Version: protocolVersion, Name: "accepted/evil.ckpt", Digest: digest(evil), Size: len(evil)},
		signBest(other, "accepted/evil.ckpt", evil),
	} {
		ptr, _ := json.Marshal(p)
		if _, err := kv.Put(ctx, bestKey, ptr); err != nil {
			t.Fatal(err)
		}
		why := "not signed"
		if p.Signature != "" {
			why = "does not verify"
		}
		waitFor(t, "the pointer refused", func() bool {
			return strings.Contains(r.log.String(), "not playing model accepted/evil.ckpt") && strings.Contains(r.log.String(), why)
		})
	}
	n := played("accepted/0000.ckpt")
	waitFor(t, "more games with the first model", func() bool { return played("accepted/0000.ckpt") > n+1 })
	time.Sleep(4 * time.Second) // the worker reads the pointer every 3 s as well
	if played("accepted/evil.ckpt") != 0 {
		t.Errorf("games played with an unsigned model")
	}
	if c := strings.Count(r.log.String(), "not playing model accepted/evil.ckpt"); c != 2 {
		t.Errorf("the refusals logged %d times, want once per pointer:\n%s", c, r.log.String())
	}
	if err := stop(); err != nil {
		t.Errorf("w1: %v", err)
	}

	cfg, err := os.ReadFile(r.run.Path(runfolder.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	bad := []byte(strings.Replace(string(cfg), "visits: 4", "visits: 2", 1))
	if slices.Equal(bad, cfg) {
		t.Fatal("the test config has no visits: 4")
	}
	if _, err := kv.Put(ctx, configKey, bad); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 4*time.Second)
	defer wcancel()
	played2, stop2, _ := r.worker(wctx, "w2")
	<-wctx.Done()
	if err := stop2(); err != nil {
		t.Errorf("w2: %v", err)
	}
	if played2("accepted/0000.ckpt") != 0 {
		t.Errorf("a worker played with an unsigned configuration")
	}
	if !strings.Contains(r.log.String(), "worker w2: waiting for the trainer's run: the configuration's digest") {
		t.Errorf("w2 does not say why it waits:\n%s", r.log.String())
	}
}

// TestRevokeWorker: a revoked worker is disconnected, refused on
// reconnecting, and its Work ends with the refusal; a worker added while
// the server runs is let in.
func TestRevokeWorker(t *testing.T) {
	if raceDetector {
		// nats-server v2.15.2's ReloadOptions (how a changed roster takes
		// effect) writes the server's options while its JetStream direct
		// gets read them without a lock: a data race inside the library,
		// seen by -race in CI once in four runs. The test runs without
		// -race; replacing the reload with a custom authenticator is the
		// way out.
		t.Skip("the roster reload races inside nats-server (ReloadOptions vs direct get); run without -race")
	}
	r := newRolesRun(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	played, _, done := r.worker(ctx, "w1")
	waitFor(t, "games of w1", func() bool { return played("accepted/0000.ckpt") >= 1 })
	var err error
	if r.creds["w3"], err = AddWorker(r.dir, "w3"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server taking w3", func() bool {
		nc, err := nats.Connect(r.s.URL(), nats.UserInfo("w3", r.creds["w3"].Password))
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	played3, stop3, _ := r.worker(ctx, "w3")
	waitFor(t, "games of w3, added while the server runs", func() bool { return played3("accepted/0000.ckpt") >= 1 })
	if err := stop3(); err != nil {
		t.Errorf("w3: %v", err)
	}
	if err := RevokeWorker(r.dir, "w1"); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-done:
		if !errors.Is(err, ErrAuth) {
			t.Errorf("revoked w1 ended with %v, want a refusal", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("w1 still working 30 s after its revocation")
	}
	c := r.creds["w1"]
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	key, _ := c.PublicKey()
	err = Work(wctx, WorkerOptions{URL: r.s.URL(), Auth: Auth{User: c.User, Password: c.Password}, TrainerKey: key, Name: "w1"})
	if !errors.Is(err, ErrAuth) {
		t.Errorf("a revoked worker starting again: err %v, want a refusal", err)
	}
	if err := RevokeWorker(r.dir, "w1"); err == nil {
		t.Errorf("revoking w1 twice: no error")
	}
}

// TestCredentialFiles: a credential and the roster are private files, and
// a worker name the trainer uses is refused.
func TestCredentialFiles(t *testing.T) {
	dir := t.TempDir()
	c, err := AddWorker(dir, "gpu1")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gpu1.cred")
	if err := WriteCredential(path, c); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(dir, RosterFile), filepath.Join(dir, SignerFile)} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", p, st.Mode().Perm(), err)
		}
	}
	back, err := ReadCredential(path)
	if err != nil || *back != *c {
		t.Errorf("read back %+v, %v; want %+v", back, err, c)
	}
	os.Chmod(path, 0o644)
	if _, err := ReadCredential(path); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("a credential readable by others: err %v", err)
	}
	for _, name := range []string{TrainerUser, "main", "a b", ""} {
		if _, err := AddWorker(dir, name); err == nil {
			t.Errorf("worker name %q accepted", name)
		}
	}
}

// TestLegacyChunkSubject: a stream made before workers had subjects of
// their own (subject "dama.chunks") is updated by the bridge, and the
// chunks already on it are still taken.
func TestLegacyChunkSubject(t *testing.T) {
	run := testRun(t)
	s, tok := testServer(t, t.TempDir())
	js := jsClient(t, s, tok)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: ChunkStream, Subjects: []string{chunkSubject},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	data := encodeChunk(t, playGames(t, 1, 4))
	msg := &nats.Msg{Subject: chunkSubject, Data: data, Header: nats.Header{}}
	msg.Header.Set(hdrVersion, "1")
	msg.Header.Set(hdrChunk, "chunk-old-000000"+selfplay.FileExt)
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	b := newBridge(t, s, tok, run, nil)
	defer b.Close()
	waitFor(t, "the old chunk in games/", func() bool { return slices.Contains(gamesOnDisk(t, run), "chunk-old-000000"+selfplay.FileExt) })
	if _, err := js.PublishMsg(ctx, msg); err == nil {
		t.Errorf("the stream still takes chunks on %s", chunkSubject)
	}
}

// TestWorkerAddedJustNow: a worker started before the server has taken
// its credential (dama broker add-worker a moment before) is refused,
// says so, tries again and plays once the server takes it.
func TestWorkerAddedJustNow(t *testing.T) {
	r := newRolesRun(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pw, err := randomSecret()
	if err != nil {
		t.Fatal(err)
	}
	r.creds["w3"] = &Credential{Version: 1, Worker: "w3", User: "w3", Password: pw, TrainerKey: r.creds["w1"].TrainerKey}
	played, stop, done := r.worker(ctx, "w3") // not in the roster yet: refused
	waitFor(t, "w3 refused and trying again", func() bool {
		return strings.Contains(r.log.String(), "worker w3: broker "+r.s.URL()+": user w3 refused; trying again for 5s")
	})
	roster, err := LoadRoster(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	roster.Workers["w3"] = pw
	if err := roster.save(r.dir); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "games of w3", func() bool {
		select {
		case err := <-done:
			t.Fatalf("w3 ended: %v", err)
		default:
		}
		return played("accepted/0000.ckpt") >= 1
	})
	if err := stop(); err != nil {
		t.Errorf("w3: %v", err)
	}
}
