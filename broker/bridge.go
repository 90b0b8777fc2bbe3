package broker

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"dama/internal/atomicfile"
	"dama/runfolder"
	"dama/selfplay"
)

// QuarantineDir is the run subfolder that keeps refused chunks, named
// <stream sequence>-<chunk name>, each with its reason beside it (the
// name and ".why"), for inspection; nothing reads them.
const QuarantineDir = runfolder.QuarantineDir

// chunkName matches the file name of a worker's chunk (selfplay.ChunkName).
var chunkName = regexp.MustCompile(`^chunk-[A-Za-z0-9_.-]+-[0-9]{6,}\` + selfplay.FileExt + `$`)

// BridgeOptions configures the trainer's side of the broker.
type BridgeOptions struct {
	URL  string
	Auth Auth
	// Local, if set, is the server in this process: the bridge talks to it
	// without the network (and without TLS), still with Auth.
	Local *Server
	Run   *runfolder.Run // the run folder, the trainer's own record
	// Signer is the trainer's key (EnsureSigner): the bridge signs each
	// best model and the configuration it publishes with it.
	Signer ed25519.PrivateKey
	Log    io.Writer // one line per refused chunk, model published, connection change (nil: none)
	// Check is the trainer's validation of chunks (selfplay.RunChecker);
	// nil: format, legality and results only.
	Check *selfplay.Checker
	// AckWait is how long the server waits for a word on a delivered
	// chunk before delivering it again (default 15s); the bridge keeps
	// held chunks alive well within it.
	AckWait time.Duration
	// Want is the games a generation takes (selfplay.games_per_generation):
	// workers play no new chunk while as many wait for the trainer (0: no
	// limit).
	Want int
}

// BridgeStats counts what a bridge did with the chunks it was delivered.
type BridgeStats struct {
	Written     int // good chunks written into games/
	Held        int // chunks in games/ waiting for a plan
	Acked       int // chunks acknowledged because a plan names them
	Duplicates  int // deliveries of a chunk already written or consumed
	Quarantined int // chunks refused
}

// Bridge is the trainer's side of the broker: it feeds chunks from the
// stream into the run's games folder, acknowledges them once a plan takes
// them, and publishes the configuration and each best model to workers.
// Hook OnPlan and OnBest into train.Options.
type Bridge struct {
	opt  BridgeOptions
	nc   *nats.Conn
	js   jetstream.JetStream
	kv   jetstream.KeyValue
	obs  jetstream.ObjectStore
	cc   jetstream.ConsumeContext
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	consumed map[string]bool            // chunks named in a durable plan
	held     map[string][]jetstream.Msg // delivered, in games/, not yet in a plan
	refused  map[uint64]string          // stream messages quarantined, with why: a delivery again is refused again, quietly
	refusals *refusals                  // bounds the quarantine and its log lines
	stats    BridgeStats
	wantBest string // the best model to publish
	// configDirty asks the publisher to put the configuration again
	// (OnConfig), even with the same best model.
	configDirty bool
	sentBest    string // the best model last published
	bestSig     chan struct{}

	state     string         // the run's state for workers
	finished  bool           // SetFinished was called: Close puts StateDone
	heldGames map[string]int // games of each held chunk
	arrived   int            // chunks held since the bridge started
	stateSig  chan struct{}
}

// NewBridge connects to the broker, creates the run's stream, buckets and
// the trainer's durable consumer if needed, and starts taking chunks.
func NewBridge(ctx context.Context, opt BridgeOptions) (*Bridge, error) {
	if opt.Run == nil {
		return nil, errors.New("broker: the bridge needs a run folder")
	}
	if len(opt.Signer) != ed25519.PrivateKeySize {
		return nil, errors.New("broker: the bridge needs the trainer's signing key")
	}
	if opt.AckWait <= 0 {
		opt.AckWait = 15 * time.Second
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	b := &Bridge{opt: opt, held: map[string][]jetstream.Msg{}, refused: map[uint64]string{}, bestSig: make(chan struct{}, 1),
		state: StateRunning, heldGames: map[string]int{}, stateSig: make(chan struct{}, 1)}
	var err error
	if b.consumed, err = opt.Run.ConsumedChunks(); err != nil {
		return nil, err
	}
	for _, sub := range []string{runfolder.GamesDir, QuarantineDir} {
		if err := os.MkdirAll(opt.Run.Path(sub), 0o755); err != nil {
			return nil, err
		}
	}
	b.refusals = newRefusals(opt.Run.Path(QuarantineDir), b.logf)
	var extra []nats.Option
	if opt.Local != nil {
		extra = append(extra, nats.InProcessServer(opt.Local.s))
	}
	b.nc, err = Connect(ctx, opt.URL, "dama trainer", opt.Auth, b.logf, extra...)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			b.nc.Close()
		}
	}()
	if b.js, err = jetstream.New(b.nc); err != nil {
		return nil, err
	}
	var st jetstream.Stream
	if b.kv, b.obs, st, err = setup(ctx, b.js, opt.Want); err != nil {
		return nil, err
	}
	cons, err := st.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: trainerName, Description: "dama trainer: acknowledges a chunk once a generation plan takes it",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: opt.AckWait, MaxDeliver: -1, MaxAckPending: 1 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("broker: consumer %s: %w", trainerName, err)
	}
	// Pulls of at most pullBytes: the client holds no more than that of
	// chunks not yet handled, however large the chunks a worker sends.
	b.cc, err = cons.Consume(b.handle, jetstream.PullMaxBytes(pullBytes), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if !errors.Is(err, jetstream.ErrNoHeartbeat) {
			b.logf("broker: taking chunks: %v", err)
		}
	}))
	if err != nil {
		return nil, fmt.Errorf("broker: consuming %s: %w", ChunkStream, err)
	}
	bctx, cancel := context.WithCancel(context.Background())
	b.stop = cancel
	b.wg.Add(3)
	go b.keepAlive(bctx)
	go b.publishBest(bctx)
	go b.publishState(bctx)
	ok = true
	return b, nil
}

// Close stops taking chunks, tells workers the run is paused (done after
// SetFinished) and disconnects, after giving a pending best model up to
// ten seconds to be published; unacknowledged chunks are delivered again
// to the next bridge.
func (b *Bridge) Close() {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b.mu.Lock()
		sent := b.wantBest == b.sentBest
		b.mu.Unlock()
		if sent {
			break
		}
	}
	b.cc.Stop()
	b.refusals.close()
	b.stop()
	b.wg.Wait()
	b.putFinalState()
	b.nc.Close()
}

// Stats returns the counts so far.
func (b *Bridge) Stats() BridgeStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stats
	s.Held = len(b.held)
	return s
}

func (b *Bridge) logf(format string, args ...any) {
	fmt.Fprintf(b.opt.Log, format+"\n", args...)
}

// handle takes one delivered chunk.
func (b *Bridge) handle(m jetstream.Msg) {
	var seq uint64
	if md, err := m.Metadata(); err == nil {
		seq = md.Sequence.Stream
	}
	name := m.Headers().Get(hdrChunk)
	data := m.Data()
	b.mu.Lock()
	why, refused := b.refused[seq]
	b.mu.Unlock()
	if refused {
		// Refused before (by this bridge or the trainer), delivered again
		// before the refusal reached the server.
		if err := m.TermWithReason("refused: " + why); err != nil {
			b.logf("broker: refusing stream message %d: %v", seq, err)
		}
		return
	}
	if v := m.Headers().Get(hdrVersion); v != strconv.Itoa(protocolVersion) {
		b.quarantine(m, seq, name, data, fmt.Sprintf("broker protocol version %q, this trainer speaks %d", v, protocolVersion))
		return
	}
	if !chunkName.MatchString(name) {
		b.quarantine(m, seq, name, data, fmt.Sprintf("bad chunk name %q", name))
		return
	}
	if why := checkPublisher(m.Subject(), name); why != "" {
		b.quarantine(m, seq, name, data, why)
		return
	}
	if b.holdOrAck(name, m, false, 0) {
		return
	}
	_, games, err := b.opt.Check.CheckData(name, data)
	if err != nil {
		if !selfplay.Refused(err) {
			b.logf("broker: checking %s: %v (the broker will deliver it again)", name, err)
			m.NakWithDelay(5 * time.Second)
			return
		}
		b.quarantine(m, seq, name, data, err.Error())
		return
	}
	path := b.opt.Run.Path(runfolder.GamesDir, name)
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			b.holdOrAck(name, m, true, len(games)) // delivered again: written before
			return
		}
		b.quarantine(m, seq, name, data, "a different chunk of that name is already in "+runfolder.GamesDir)
		return
	}
	// Held before it is visible in games/, so a plan that takes it finds it.
	b.mu.Lock()
	b.held[name] = append(b.held[name], m)
	b.mu.Unlock()
	if err := atomicfile.WriteFile(path, data); err != nil {
		b.mu.Lock()
		delete(b.held, name)
		b.mu.Unlock()
		b.logf("broker: writing %s: %v (the broker will deliver it again)", name, err)
		m.NakWithDelay(5 * time.Second)
		return
	}
	b.mu.Lock()
	b.stats.Written++
	b.heldGames[name] = len(games)
	b.arrived++
	b.mu.Unlock()
	b.stateChanged()
}

// checkPublisher reports why a chunk called name may not come on subject,
// or "" if it may: a worker publishes on chunkSubject.<its name> (the
// server lets it publish on no other) and only chunks of its own name.
// Chunks on chunkSubject itself were stored before workers had names on
// the broker.
func checkPublisher(subject, name string) string {
	if subject == chunkSubject {
		return ""
	}
	worker, ok := strings.CutPrefix(subject, chunkSubject+".")
	rest, own := strings.CutPrefix(name, "chunk-"+worker+"-")
	if !ok || !own || !chunkSeq.MatchString(rest) {
		return fmt.Sprintf("chunk %q came on %s: not a name of that worker's", name, subject)
	}
	return ""
}

// chunkSeq is what follows "chunk-<worker>-" in a chunk's name.
var chunkSeq = regexp.MustCompile(`^[0-9]{6,}\` + selfplay.FileExt + `$`)

// holdOrAck acknowledges m when a plan already took name and reports true.
// Otherwise, with hold, it keeps m, a chunk of games games, with the
// chunk's other deliveries until a plan takes it (and reports true);
// without, it reports false.
func (b *Bridge) holdOrAck(name string, m jetstream.Msg, hold bool, games int) bool {
	b.mu.Lock()
	if b.consumed[name] {
		b.stats.Duplicates++
		b.mu.Unlock()
		b.ack(m)
		return true
	}
	if hold {
		if len(b.held[name]) > 0 {
			b.stats.Duplicates++
		}
		b.held[name] = append(b.held[name], m)
		if _, ok := b.heldGames[name]; !ok {
			b.heldGames[name] = games
			b.arrived++
		}
	}
	b.mu.Unlock()
	if hold {
		b.stateChanged()
	}
	return hold
}

func (b *Bridge) ack(msgs ...jetstream.Msg) {
	// One deadline for all: with the broker away, a plan waits five
	// seconds at most, and the chunks are acknowledged on redelivery.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	failed := 0
	var first error
	for _, m := range msgs {
		if err := m.DoubleAck(ctx); err != nil && !errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
			failed++
			if first == nil {
				first = err
			}
		}
	}
	if failed > 0 {
		b.logf("broker: acknowledging %d of %d chunks: %v (they will come again and be acknowledged then)", failed, len(msgs), first)
	}
}

// quarantine keeps a refused chunk out of the games folder, logs why and
// tells the server never to deliver it again.
func (b *Bridge) quarantine(m jetstream.Msg, seq uint64, name string, data []byte, why string) {
	// A delivery again before the refusal reached the server (it waited
	// in the client past AckWait) is already kept, counted and logged.
	b.mu.Lock()
	_, again := b.refused[seq]
	again = again && seq != 0
	if seq != 0 {
		b.refused[seq] = why
		if len(b.refused) > maxRefused {
			forgetOldest(b.refused)
		}
	}
	b.mu.Unlock()
	if !again {
		b.keepRefused(m.Subject(), seq, name, data, why)
	}
	if err := m.TermWithReason("refused: " + why); err != nil {
		b.logf("broker: refusing stream message %d: %v", seq, err)
	}
}

// maxRefused bounds the stream messages the bridge remembers refusing: a
// delivery again comes within seconds, not after this many others.
const maxRefused = 1 << 16

// forgetOldest removes the older half of the sequences in refused.
func forgetOldest[V any](refused map[uint64]V) {
	seqs := slices.Sorted(maps.Keys(refused))
	for _, s := range seqs[:len(seqs)/2] {
		delete(refused, s)
	}
}

// keepRefused counts a refused chunk that came on subject and, within
// the rate of refusals kept (b.refusals), writes it and its reason into
// QuarantineDir and logs it.
func (b *Bridge) keepRefused(subject string, seq uint64, name string, data []byte, why string) {
	defer func() {
		b.mu.Lock()
		b.stats.Quarantined++
		b.mu.Unlock()
	}()
	if !b.refusals.keep(publisher(subject), len(data), why) {
		return
	}
	safe := name
	if !chunkName.MatchString(safe) {
		safe = "unnamed" + selfplay.FileExt
	}
	file := fmt.Sprintf("%d-%s", seq, safe)
	if _, err := selfplay.QuarantineData(b.opt.Run.Path(QuarantineDir), file, data, errors.New(why)); err != nil {
		b.logf("broker: writing %s: %v", file, err)
	}
	b.refusals.kept(file, len(data))
	b.logf("broker: quarantined chunk %q (stream message %d, %d bytes) as %s: %s", name, seq, len(data), filepath.Join(QuarantineDir, file), why)
}

// pullBytes bounds the chunks the bridge's client holds before handling.
const pullBytes = 16 << 20

// OnPlan acknowledges the chunks a durable plan names; it is
// train.Options.OnPlan. A chunk whose acknowledgement is lost comes again
// and is acknowledged then.
func (b *Bridge) OnPlan(gen int, chunks []string) error {
	var msgs []jetstream.Msg
	b.mu.Lock()
	for _, name := range chunks {
		b.consumed[name] = true
		delete(b.heldGames, name)
		if ms, ok := b.held[name]; ok {
			msgs = append(msgs, ms...)
			b.stats.Acked++
			delete(b.held, name)
		}
	}
	b.mu.Unlock()
	b.stateChanged()
	if len(msgs) > 0 {
		b.ack(msgs...)
	}
	return nil
}

// OnQuarantine drops for good the deliveries of a chunk that the bridge
// wrote into games/ and the trainer then refused (moved to the quarantine
// folder with its reason): a chunk that repeats a game the run holds, of
// a chunk the bridge had not seen, is found only there. It is
// train.Options.OnQuarantine.
func (b *Bridge) OnQuarantine(name string, why error) error {
	b.mu.Lock()
	msgs := b.held[name]
	delete(b.held, name)
	delete(b.heldGames, name)
	for _, m := range msgs {
		if md, err := m.Metadata(); err == nil && md.Sequence.Stream != 0 {
			b.refused[md.Sequence.Stream] = why.Error()
		}
	}
	if len(msgs) > 0 {
		b.stats.Quarantined++
	}
	b.mu.Unlock()
	for _, m := range msgs {
		if err := m.TermWithReason("refused by the trainer: " + why.Error()); err != nil {
			b.logf("broker: refusing chunk %s: %v", name, err)
		}
	}
	if len(msgs) > 0 {
		b.stateChanged()
	}
	return nil
}

// keepAlive tells the server, well within AckWait, that held chunks are
// still being worked on.
func (b *Bridge) keepAlive(ctx context.Context) {
	defer b.wg.Done()
	t := time.NewTicker(b.opt.AckWait / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b.mu.Lock()
		var msgs []jetstream.Msg
		for _, ms := range b.held {
			msgs = append(msgs, ms...)
		}
		b.mu.Unlock()
		for _, m := range msgs {
			m.InProgress()
		}
	}
}

// OnBest publishes the best model (relative to the run folder) and the
// run's configuration to workers; it is train.Options.OnBest. It returns
// at once: a background loop publishes, and tries again while the broker
// cannot be reached.
func (b *Bridge) OnBest(rel string) error {
	b.mu.Lock()
	b.wantBest = rel
	b.mu.Unlock()
	b.wake()
	return nil
}

// wake tells the publishing loop that there is something to publish.
func (b *Bridge) wake() {
	select {
	case b.bestSig <- struct{}{}:
	default:
	}
}

// OnConfig publishes the run's configuration again after the trainer
// rewrote it (a phase of its schedule began); it is train.Options.OnConfig.
// Workers play by it from their next chunk. It returns at once, as OnBest.
func (b *Bridge) OnConfig() error {
	b.mu.Lock()
	b.configDirty = true
	b.mu.Unlock()
	b.wake()
	return nil
}

func (b *Bridge) publishBest(ctx context.Context) {
	defer b.wg.Done()
	done := ""
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.bestSig:
		case <-retry.C:
		}
		b.mu.Lock()
		rel, dirty := b.wantBest, b.configDirty
		b.configDirty = false
		b.mu.Unlock()
		if rel == "" || (rel == done && !dirty) {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		err := b.putBest(pctx, rel)
		cancel()
		if err != nil {
			if dirty {
				b.mu.Lock()
				b.configDirty = true
				b.mu.Unlock()
			}
			if ctx.Err() == nil {
				b.logf("broker: publishing best model %s: %v (trying again)", rel, err)
				retry.Reset(2 * time.Second)
			}
			continue
		}
		done = rel
		b.mu.Lock()
		b.sentBest = rel
		b.mu.Unlock()
		b.logf("broker: best model %s published to workers", rel)
	}
}

// putBest puts the configuration, the model object and then the pointer,
// so that a worker never sees a pointer to a missing model.
func (b *Bridge) putBest(ctx context.Context, rel string) error {
	cfg, err := os.ReadFile(b.opt.Run.Path(runfolder.ConfigFile))
	if err != nil {
		return err
	}
	// The signature first: a worker that reads the new configuration
	// with the old signature waits and reads both again.
	sig := signConfig(b.opt.Signer, cfg)
	if e, err := b.kv.Get(ctx, configSigKey); err != nil || !bytes.Equal(e.Value(), sig) {
		if _, err := b.kv.Put(ctx, configSigKey, sig); err != nil {
			return err
		}
	}
	if e, err := b.kv.Get(ctx, configKey); err != nil || !bytes.Equal(e.Value(), cfg) {
		if _, err := b.kv.Put(ctx, configKey, cfg); err != nil {
			return err
		}
	}
	data, err := os.ReadFile(b.opt.Run.Path(rel))
	if err != nil {
		return err
	}
	name := filepath.ToSlash(rel)
	h := sha256.New()
	h.Write(data)
	if info, err := b.obs.GetInfo(ctx, name); err != nil || info.Digest != jetstream.GetObjectDigestValue(h) {
		if _, err := b.obs.PutBytes(ctx, name, data); err != nil {
			return err
		}
	}
	ptr, _ := json.Marshal(signBest(b.opt.Signer, name, data))
	_, err = b.kv.Put(ctx, bestKey, ptr)
	return err
}
