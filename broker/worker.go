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
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"dama/configs"
	"dama/model"
	"dama/selfplay"
)

// WorkerOptions configures a self-play worker that talks only to the
// broker.
type WorkerOptions struct {
	URL  string
	Auth Auth
	Name string // unique among the run's workers: letters, digits, '_', '.', '-'
	// TrainerKey is the trainer's public key (Credential.PublicKey): the
	// worker plays only models and a configuration signed with it.
	TrainerKey ed25519.PublicKey
	Games      int    // stop after this many games (0: until cancelled)
	PerChunk   int    // games per chunk (default 16)
	Seed       uint64 // base seed; give each worker its own
	Log        io.Writer
	Quiet      bool // no progress lines (one per chunk published); see selfplay.Worker.Quiet
	// OnGame, if set, is called after each finished game with the name of
	// the model that played it.
	OnGame func(model string)
}

var workerName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]*[A-Za-z0-9_-]$|^[A-Za-z0-9_-]$`)

// checkWorkerName refuses a name a worker cannot have.
func checkWorkerName(name string) error {
	if !workerName.MatchString(name) {
		return fmt.Errorf("broker: worker name %q: use letters, digits, '_', '.' and '-', not starting or ending with '.'", name)
	}
	if name == "main" || name == TrainerUser {
		return fmt.Errorf("broker: worker name %q is the trainer's own; choose another", name)
	}
	return nil
}

// worker is the state of one Work call.
type worker struct {
	opt WorkerOptions
	nc  *nats.Conn
	js  jetstream.JetStream
	kv  jetstream.KeyValue
	obs jetstream.ObjectStore
	cfg *configs.Config
	// cfgBytes is the published configuration cfg was read from.
	cfgBytes []byte
	mu       sync.Mutex
	best     *bestPointer  // newest pointer seen whose signature verifies
	sig      chan struct{} // a new pointer was seen

	refused string // the last pointer refused (its bytes), logged once

	run          runState      // the run's state, as last seen (zero: none yet, a trainer from before run states)
	ownUnseen    []int         // games of each chunk this worker published that no state seen yet counts, oldest first
	stateSig     chan struct{} // a new run state was seen
	refusedState string        // the last state refused, logged once
	stateSeen    string        // the last state taken (its bytes): read again, it changes nothing
	waitingFor   string        // why Pace last held the worker back, logged once ("" : it did not)
	tried        string        // the key of the pointer last loaded or refused

	reconnected [2]chan struct{} // the connection came back (each watch is renewed)

	// A reconnect cancels the requests in flight: their replies were lost
	// with the old connection, and waiting for their timeout would hold
	// the worker for nothing.
	recMu     sync.Mutex
	recCtx    context.Context
	recCancel context.CancelFunc
}

// interrupt cancels the requests in flight.
func (w *worker) interrupt() {
	w.recMu.Lock()
	defer w.recMu.Unlock()
	if w.recCancel != nil {
		w.recCancel()
	}
	w.recCtx, w.recCancel = context.WithCancel(context.Background())
}

// request returns a context for one request to the broker: ctx with
// timeout, cancelled too by a reconnect.
func (w *worker) request(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	w.recMu.Lock()
	rec := w.recCtx
	w.recMu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	if rec == nil {
		return rctx, cancel
	}
	stop := context.AfterFunc(rec, cancel)
	return rctx, func() { stop(); cancel() }
}

// key identifies a pointer: the same bytes under another name are another
// model to the worker (its chunks name the model).
func (p *bestPointer) key() string { return p.Name + "@" + p.Digest }

// Work plays self-play games for a run on the broker at opt.URL: it fetches
// the run's configuration, then plays chunks of games with the newest best
// model (a selfplay.Worker with the broker as its model source and chunk
// sink: it loads a model once, when it becomes the best; a promotion
// interrupts the chunk in play, whose finished games are published and
// the rest dropped), and publishes each chunk. It
// returns nil when Games games are published or ctx is cancelled (after
// publishing the finished games); a refused credential is an error at once.
func Work(ctx context.Context, opt WorkerOptions) error {
	if err := checkWorkerName(opt.Name); err != nil {
		return err
	}
	if len(opt.TrainerKey) != ed25519.PublicKeySize {
		return errors.New("broker: a worker needs the trainer's public key (its credential file, from dama broker add-worker)")
	}
	if opt.PerChunk <= 0 {
		opt.PerChunk = 16
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	w := &worker{opt: opt, sig: make(chan struct{}, 1), stateSig: make(chan struct{}, 1)}
	for i := range w.reconnected {
		w.reconnected[i] = make(chan struct{}, 1)
	}
	w.interrupt()
	// A credential refused on reconnecting (the worker was revoked) ends
	// the work with that error: the client gives up after the second
	// refusal.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var err error
	w.nc, err = Connect(ctx, opt.URL, "dama worker "+opt.Name, opt.Auth, w.logf,
		nats.CustomInboxPrefix(InboxPrefix(opt.Name)),
		nats.ClosedHandler(func(nc *nats.Conn) {
			if err := refusal(nc, opt.URL); err != nil {
				cancel(err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			w.logf("broker: reconnected to %s", nc.ConnectedUrlRedacted())
			w.interrupt()
			for _, c := range w.reconnected {
				select {
				case c <- struct{}{}:
				default:
				}
			}
		}))
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer w.nc.Close()
	js, err := jetstream.New(w.nc)
	if err != nil {
		return err
	}
	w.js = js
	if err := w.attach(ctx, js); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	go w.watch(ctx, bestKey, w.reconnected[0], w.see)
	go w.watch(ctx, stateKey, w.reconnected[1], w.seeState)
	sw := &selfplay.Worker{
		Name: opt.Name, Source: w, Sink: w, Settings: w.cfg.SelfPlay,
		Seed: opt.Seed, Games: opt.Games, PerChunk: opt.PerChunk, Log: opt.Log, Quiet: opt.Quiet,
		Refresh: w.settings,
	}
	if opt.OnGame != nil {
		sw.OnGame = func(m selfplay.ModelRef, _ *selfplay.Game) { opt.OnGame(m.Name) }
	}
	defer sw.Close()
	err = sw.Run(ctx)
	// The refusal may end the work before the closed handler has run.
	if r := refusal(w.nc, opt.URL); r != nil {
		return r
	}
	return err
}

// refusal is the error of a connection the server closed because it
// refused the credential, or nil.
func refusal(nc *nats.Conn, url string) error {
	if !nc.IsClosed() {
		return nil
	}
	if err := nc.LastError(); err != nil && isAuthError(err) {
		return fmt.Errorf("broker %s: %w: %v", url, ErrAuth, err)
	}
	return nil
}

func (w *worker) logf(format string, args ...any) {
	fmt.Fprintf(w.opt.Log, "worker %s: "+format+"\n", append([]any{w.opt.Name}, args...)...)
}

// retry calls f every second until it succeeds or ctx ends, logging the
// first failure; a backoffPermanent error ends it at once. Each attempt
// gets callTimeout: a call caught by a server restart must not wait for
// ever.
func (w *worker) retry(ctx context.Context, what string, f func(ctx context.Context) error) error {
	for attempt := 0; ; attempt++ {
		actx, cancel := w.request(ctx, callTimeout)
		err := f(actx)
		cancel()
		if err == nil {
			return nil
		}
		if w.nc.IsClosed() { // the credential was refused
			return fmt.Errorf("%s: %w", what, err)
		}
		if errors.As(err, new(backoffPermanent)) { // trying again cannot help
			return err
		}
		if attempt == 0 {
			w.logf("%s: %v; trying again every second", what, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// callTimeout bounds one request to the broker (a model of a few MB
// included).
const callTimeout = 30 * time.Second

// attach finds the run's buckets and configuration, waiting for a trainer
// to create them.
func (w *worker) attach(ctx context.Context, js jetstream.JetStream) error {
	err := w.retry(ctx, "waiting for the trainer's run", func(ctx context.Context) error {
		var err error
		if w.kv, err = js.KeyValue(ctx, runBucket); err != nil {
			return err
		}
		if w.obs, err = js.ObjectStore(ctx, modelBucket); err != nil {
			return err
		}
		e, err := w.kv.Get(ctx, configKey)
		if err != nil {
			return err
		}
		s, err := w.kv.Get(ctx, configSigKey)
		if err != nil {
			return fmt.Errorf("the configuration's signature: %w", err)
		}
		if err := verifyConfig(w.opt.TrainerKey, e.Value(), s.Value()); err != nil {
			return err // the trainer may be putting a new one: wait
		}
		w.cfg, err = parseConfig(e.Value())
		if err != nil {
			return backoffPermanent{err}
		}
		w.cfgBytes = e.Value()
		return nil
	})
	var p backoffPermanent
	if errors.As(err, &p) {
		return p.err
	}
	return err
}

// settings returns the run's self-play section as the trainer publishes it
// now (a phase of its schedule, or a resume with --allow-change, changes
// it): read again when its bytes changed and its signature vouches for
// them; while the broker cannot be reached, or a new configuration waits
// for its signature, the one the worker has.
func (w *worker) settings(ctx context.Context) (configs.SelfPlay, error) {
	rctx, cancel := w.request(ctx, callTimeout)
	defer cancel()
	e, err := w.kv.Get(rctx, configKey)
	if err != nil {
		return w.cfg.SelfPlay, nil
	}
	if bytes.Equal(e.Value(), w.cfgBytes) {
		return w.cfg.SelfPlay, nil
	}
	s, err := w.kv.Get(rctx, configSigKey)
	if err != nil || verifyConfig(w.opt.TrainerKey, e.Value(), s.Value()) != nil {
		return w.cfg.SelfPlay, nil
	}
	cfg, err := parseConfig(e.Value())
	if err != nil {
		return configs.SelfPlay{}, err
	}
	w.cfg, w.cfgBytes = cfg, e.Value()
	return cfg.SelfPlay, nil
}

type backoffPermanent struct{ err error }

func (p backoffPermanent) Error() string { return p.err.Error() }

// parseConfig reads a run configuration received from the broker.
func parseConfig(data []byte) (*configs.Config, error) {
	f, err := os.CreateTemp("", "dama-run-*.yaml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	cfg, err := configs.Load(f.Name(), nil, nil)
	if err == nil {
		err = selfplay.ValidateSettings(cfg.SelfPlay) // selfplay.hybrids, which configs leaves to selfplay
	}
	if err != nil {
		return nil, fmt.Errorf("broker: the run's configuration: %w", err)
	}
	return cfg, cfg.Validate()
}

// watch follows a key (the best pointer, the run's state), handing each
// value to see: a subscription to the key's subject, on which each of the
// trainer's puts arrives as it is made (a worker may create no consumer:
// WorkerPermissions), a read at the start and after each reconnect (a
// signal on reconnected), and a read every few seconds in case a put was
// missed.
func (w *worker) watch(ctx context.Context, key string, reconnected <-chan struct{}, see func([]byte)) {
	sub, err := w.nc.Subscribe(kvSubject(key), func(m *nats.Msg) {
		if m.Header.Get(kvOperation) == "" { // a put; a delete or purge says so
			see(m.Data)
		}
	})
	if err == nil {
		defer sub.Unsubscribe()
	}
	read := func() {
		gctx, cancel := w.request(ctx, 5*time.Second)
		defer cancel()
		if e, err := w.kv.Get(gctx, key); err == nil {
			see(e.Value())
		}
	}
	read()
	tick := time.NewTicker(3 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-reconnected:
			read()
		case <-tick.C:
			read()
		}
	}
}

// kvOperation is the header a key-value delete or purge carries.
const kvOperation = "KV-Operation"

// kvSubject is the subject of key in the run's bucket: the trainer's puts
// are published on it.
func kvSubject(key string) string { return "$KV." + runBucket + "." + key }

// see records a best pointer and signals a change.
func (w *worker) see(v []byte) {
	var p bestPointer
	if err := json.Unmarshal(v, &p); err != nil || p.Version != protocolVersion {
		w.logf("ignoring a best-model pointer this worker cannot read (%q)", v)
		return
	}
	if err := verifyBest(w.opt.TrainerKey, &p); err != nil {
		w.mu.Lock()
		first := w.refused != string(v)
		w.refused = string(v)
		w.mu.Unlock()
		if first {
			w.logf("not playing model %s (%s): %v; keeping the current model", p.Name, p.Digest, err)
		}
		return
	}
	w.mu.Lock()
	changed := w.best == nil || w.best.key() != p.key()
	if changed {
		w.best = &p
	}
	w.mu.Unlock()
	if changed {
		for _, c := range []chan struct{}{w.sig, w.stateSig} {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
}

// Best returns the newest best pointer the worker has seen.
func (w *worker) Best(context.Context) (selfplay.ModelRef, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.best == nil {
		return selfplay.ModelRef{}, false, nil
	}
	return selfplay.ModelRef{Name: w.best.Name, Digest: w.best.Digest}, true, nil
}

// Changed signals a new best pointer.
func (w *worker) Changed() <-chan struct{} { return w.sig }

// Load downloads the model a pointer names and verifies it: the digest of
// its bytes against the pointer's, then the checkpoint's own checksum.
// Its chunks name it by the pointer's name and digest.
func (w *worker) Load(ctx context.Context, p selfplay.ModelRef) (*model.Checkpoint, selfplay.Header, error) {
	w.mu.Lock()
	w.tried = p.Name + "@" + p.Digest
	w.mu.Unlock()
	var data []byte
	err := w.retry(ctx, "fetching model "+p.Name, func(ctx context.Context) error {
		var err error
		data, err = w.getObject(ctx, p.Name)
		return err
	})
	var perm backoffPermanent
	if errors.As(err, &perm) {
		return nil, selfplay.Header{}, selfplay.BadModel(perm.err)
	}
	if err != nil {
		return nil, selfplay.Header{}, err
	}
	if got := digest(data); got != p.Digest {
		return nil, selfplay.Header{}, selfplay.BadModel(fmt.Errorf("digest %s, the pointer says %s", got, p.Digest))
	}
	ck, err := model.Unmarshal(data)
	if err != nil {
		return nil, selfplay.Header{}, selfplay.BadModel(err)
	}
	return ck, selfplay.Header{Model: p.Name, ModelDigest: p.Digest}, nil
}

// maxModelBytes bounds a model a worker downloads.
const maxModelBytes = 1 << 30

// getObject reads the object name from the model store with direct gets
// only: its description, then each of its chunks in turn. (The object
// store's own reader makes a consumer, which a worker may not.) A missing
// object, or one whose bytes do not match its description, is a
// backoffPermanent error.
func (w *worker) getObject(ctx context.Context, name string) ([]byte, error) {
	info, err := w.obs.GetInfo(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, backoffPermanent{err}
	}
	if err != nil {
		return nil, err
	}
	if info.Size > maxModelBytes {
		return nil, backoffPermanent{fmt.Errorf("object %s: %d bytes, more than the %d a worker takes", name, info.Size, maxModelBytes)}
	}
	st, err := w.js.Stream(ctx, "OBJ_"+modelBucket)
	if err != nil {
		return nil, err
	}
	subj := "$O." + modelBucket + ".C." + info.NUID
	data := make([]byte, 0, info.Size)
	h := sha256.New()
	seq := uint64(1)
	for range info.Chunks {
		m, err := st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, backoffPermanent{fmt.Errorf("object %s: a chunk is missing", name)}
		}
		if err != nil {
			return nil, err
		}
		if uint64(len(data)+len(m.Data)) > info.Size {
			return nil, backoffPermanent{fmt.Errorf("object %s: more bytes than the %d it declares", name, info.Size)}
		}
		data = append(data, m.Data...)
		h.Write(m.Data)
		seq = m.Sequence + 1
	}
	if uint64(len(data)) != info.Size || jetstream.GetObjectDigestValue(h) != info.Digest {
		return nil, backoffPermanent{fmt.Errorf("object %s: %w", name, jetstream.ErrDigestMismatch)}
	}
	return data, nil
}

// Reserve takes the worker's next chunk number from the broker, so that a
// restarted worker never reuses a name or replays a seed.
func (w *worker) Reserve(ctx context.Context) (int, error) {
	key := seqPrefix + w.opt.Name
	var seq int
	err := w.retry(ctx, "taking a chunk number", func(ctx context.Context) error {
		e, err := w.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			if _, err := w.kv.Create(ctx, key, []byte("0")); err != nil {
				return err
			}
			seq = 0
			return nil
		}
		if err != nil {
			return err
		}
		last, err := strconv.Atoi(string(e.Value()))
		if err != nil || last < 0 {
			// Guessing could reuse a chunk name, and the trainer
			// quarantines a different chunk under a name it has.
			return backoffPermanent{fmt.Errorf("broker: key %s of bucket %s holds %.40q, not this worker's last chunk number; not guessing one: on the trainer's machine add this worker under a new name (dama broker add-worker NAME --run DIR) and start it with that credential",
				key, runBucket, e.Value())}
		}
		if _, err := w.kv.Update(ctx, key, []byte(strconv.Itoa(last+1)), e.Revision()); err != nil {
			return err
		}
		seq = last + 1
		return nil
	})
	var p backoffPermanent
	if errors.As(err, &p) {
		return 0, p.err
	}
	return seq, err
}

// Write publishes games as chunk seq (split into more chunks if it would
// not fit in one message), trying until the broker has stored it. Once
// ctx has ended it still tries for half a minute.
func (w *worker) Write(ctx context.Context, seq int, h selfplay.Header, games []*selfplay.Game) (string, error) {
	var buf bytes.Buffer
	if err := selfplay.Encode(&buf, h, games); err != nil {
		return "", err
	}
	if limit := min(w.nc.MaxPayload(), MaxChunkBytes) - 4096; int64(buf.Len()) > limit && len(games) > 1 {
		half := len(games) / 2
		first, err := w.Write(ctx, seq, h, games[:half])
		if err != nil {
			return "", err
		}
		cctx, cancel := graceContext(ctx)
		defer cancel()
		next, err := w.Reserve(cctx)
		if err != nil {
			return "", fmt.Errorf("broker: no chunk number for %d games: %v", len(games)-half, err)
		}
		second, err := w.Write(ctx, next, h, games[half:])
		if err != nil {
			return "", err
		}
		return first + ", " + second, nil
	}
	name := selfplay.ChunkName(w.opt.Name, seq)
	data := buf.Bytes()
	msg := &nats.Msg{Subject: chunkSubject + "." + w.opt.Name, Data: data, Header: nats.Header{}}
	msg.Header.Set(hdrVersion, strconv.Itoa(protocolVersion))
	msg.Header.Set(hdrChunk, name)
	msg.Header.Set(nats.MsgIdHdr, msgID(name, data))
	js, err := jetstream.New(w.nc)
	if err != nil {
		return "", err
	}
	var deadline time.Time // set once ctx has ended
	for attempt := 0; ; attempt++ {
		actx, cancel := w.request(context.Background(), 10*time.Second)
		_, err := js.PublishMsg(actx, msg)
		cancel()
		if err == nil {
			break
		}
		if w.nc.IsClosed() { // the credential was refused
			return "", fmt.Errorf("broker: %s (%d games) could not be published: %v", name, len(games), err)
		}
		if attempt == 0 {
			if strings.Contains(err.Error(), "maximum messages per subject") {
				w.logf("publishing %s: the broker holds as many chunks of this worker as it takes, until the trainer takes some; trying again every second", name)
			} else {
				w.logf("publishing %s: %v; trying again every second", name, err)
			}
		}
		if ctx.Err() != nil {
			if deadline.IsZero() {
				deadline = time.Now().Add(stopGrace)
			} else if time.Now().After(deadline) {
				return "", fmt.Errorf("broker: %s (%d games) could not be published: %v", name, len(games), err)
			}
		}
		time.Sleep(time.Second)
	}
	w.mu.Lock()
	w.ownUnseen = append(w.ownUnseen, len(games))
	w.mu.Unlock()
	return fmt.Sprintf("published %s (%d games, %d bytes)", name, len(games), len(data)), nil
}

// stopGrace is how long a stopping worker still tries to publish its
// finished games.
const stopGrace = 30 * time.Second

// graceContext is ctx while it lasts, else a context of stopGrace.
func graceContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(context.Background(), stopGrace)
}
