package broker

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"time"

	"dama/selfplay"
)

// stateKey is the key, in the run's KV bucket, of the run's state as the
// trainer publishes it: JSON runState, signed. Only the trainer may write
// it (WorkerPermissions grant workers no write to it).
const stateKey = "state"

// The states of a run (runState.State).
const (
	StateRunning = "running" // the trainer is taking chunks
	StatePaused  = "paused"  // the trainer stopped cleanly and will resume: workers wait
	StateDone    = "done"    // the last generation is finished: workers stop
)

// runState is the value of stateKey.
type runState struct {
	Version int    `json:"version"`
	State   string `json:"state"`
	// Waiting is the games delivered to the trainer and in no plan yet;
	// Want the games a generation takes (0: no limit). A worker plays no
	// new chunk while Waiting, plus its own games no state counted yet,
	// reaches Want.
	Waiting int `json:"waiting"`
	Want    int `json:"want"`
	// Arrived counts the chunks this trainer took since it started, so
	// that every arrival changes the value and a worker can tell how
	// many of its own chunks a state may count (countedOwn).
	Arrived   int    `json:"arrived"`
	Signature string `json:"signature"`
}

func stateMessage(s *runState) []byte {
	return fmt.Appendf(nil, "dama run state v1\n%d\n%s\n%d\n%d\n%d", s.Version, s.State, s.Waiting, s.Want, s.Arrived)
}

// signState returns the value of stateKey for s.
func signState(key ed25519.PrivateKey, s runState) []byte {
	s.Version = protocolVersion
	s.Signature = sign(key, stateMessage(&s))
	b, _ := json.Marshal(s)
	return b
}

// readState reads and verifies a value of stateKey.
func readState(pub ed25519.PublicKey, v []byte) (runState, error) {
	var s runState
	if err := json.Unmarshal(v, &s); err != nil {
		return s, fmt.Errorf("unreadable: %v", err)
	}
	if s.Version != protocolVersion {
		return s, fmt.Errorf("protocol version %d, this worker speaks %d", s.Version, protocolVersion)
	}
	switch s.State {
	case StateRunning, StatePaused, StateDone:
	default:
		return s, fmt.Errorf("unknown state %q", s.State)
	}
	if s.Waiting < 0 || s.Want < 0 {
		return s, fmt.Errorf("waiting %d, want %d: negative", s.Waiting, s.Want)
	}
	return s, verify(pub, stateMessage(&s), s.Signature)
}

// seeState records a run state read from the broker and wakes a worker
// waiting in Pace.
func (w *worker) seeState(v []byte) {
	w.mu.Lock()
	same := w.stateSeen == string(v)
	w.mu.Unlock()
	if same {
		return
	}
	s, err := readState(w.opt.TrainerKey, v)
	if err != nil {
		w.mu.Lock()
		first := w.refusedState != string(v)
		w.refusedState = string(v)
		w.mu.Unlock()
		if first {
			w.logf("ignoring the run's state %q: %v", v, err)
		}
		return
	}
	w.mu.Lock()
	w.ownUnseen = countedOwn(w.ownUnseen, w.run.Arrived, s.Arrived)
	w.run, w.stateSeen = s, string(v)
	w.mu.Unlock()
	select {
	case w.stateSig <- struct{}{}:
	default:
	}
}

// countedOwn returns unseen (the games of each of this worker's chunks
// that no state counted yet, oldest first) less the chunks a new state
// counts, whose arrivals went from was to now. A state may have been put
// before the worker's last chunks arrived, so it counts only as many of
// them as arrived, the oldest first; arrivals from other workers make
// the count short, so one chunk may cross Want. A count below the last
// is a new trainer, counting from zero.
func countedOwn(unseen []int, was, now int) []int {
	d := now - was
	if d < 0 {
		d = now
	}
	d = min(d, len(unseen))
	return append(unseen[:0:0], unseen[d:]...)
}

// Pace holds the worker back before each chunk while the trainer is
// paused or enough games wait for it (selfplay.Pacer). Once the run is
// finished it stops the worker, after it has taken up the final best
// model: workers follow every promotion. A new best model while it waits
// sends the worker to take it up first.
func (w *worker) Pace(ctx context.Context) (selfplay.Pace, error) {
	for {
		w.mu.Lock()
		s, own := w.run, 0
		for _, n := range w.ownUnseen {
			own += n
		}
		w.mu.Unlock()
		why := ""
		switch {
		case s.State == StateDone:
			// The trainer put the final pointer before this state.
			gctx, cancel := w.request(ctx, 5*time.Second)
			if e, err := w.kv.Get(gctx, bestKey); err == nil {
				w.see(e.Value())
			}
			cancel()
			w.mu.Lock()
			behind := w.best != nil && w.best.key() != w.tried
			w.mu.Unlock()
			if behind {
				return selfplay.PaceAgain, nil
			}
			w.logf("the run is finished; stopping")
			return selfplay.PaceStop, nil
		case s.State == StatePaused:
			why = "the trainer is paused"
		case s.Want > 0 && s.Waiting+own >= s.Want:
			why = fmt.Sprintf("%d games wait for the trainer and a generation takes %d", s.Waiting+own, s.Want)
		}
		w.mu.Lock()
		was := w.waitingFor
		w.waitingFor = why
		w.mu.Unlock()
		if why == "" {
			if was != "" {
				w.logf("resuming")
			}
			return selfplay.PacePlay, nil
		}
		if why != was {
			w.logf("%s; waiting before the next chunk", why)
		}
		w.mu.Lock()
		cur := ""
		if w.best != nil {
			cur = w.best.key()
		}
		tried := w.tried
		w.mu.Unlock()
		if cur != tried && tried != "" {
			return selfplay.PaceAgain, nil
		}
		select {
		case <-ctx.Done():
			return selfplay.PaceStop, nil
		case <-w.stateSig:
		}
	}
}

// SetFinished tells the bridge that the run's last generation is done:
// Close then tells workers to stop rather than wait. The state stays
// running until Close has published the final best model: a worker told
// "done" first would stop on the model before it.
func (b *Bridge) SetFinished() {
	b.mu.Lock()
	b.finished = true
	b.mu.Unlock()
}

// stateValue is the run's state now, signed.
func (b *Bridge) stateValue() []byte {
	b.mu.Lock()
	s := runState{State: b.state, Want: b.opt.Want, Arrived: b.arrived}
	for _, n := range b.heldGames {
		s.Waiting += n
	}
	b.mu.Unlock()
	return signState(b.opt.Signer, s)
}

// stateChanged wakes the loop that publishes the run's state.
func (b *Bridge) stateChanged() {
	select {
	case b.stateSig <- struct{}{}:
	default:
	}
}

// publishState keeps the run's state on the broker up to date, at most
// five times a second, trying again while the broker cannot be reached.
func (b *Bridge) publishState(ctx context.Context) {
	defer b.wg.Done()
	var last []byte
	b.stateChanged()
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.stateSig:
		case <-time.After(2 * time.Second): // a put that failed is tried again
		}
		v := b.stateValue()
		if string(v) == string(last) {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := b.kv.Put(pctx, stateKey, v)
		cancel()
		if err == nil {
			last = v
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// putFinalState tells workers, as the bridge closes, that the run is
// paused or, after SetFinished, done.
func (b *Bridge) putFinalState() {
	b.mu.Lock()
	b.state = StatePaused
	if b.finished {
		b.state = StateDone
	}
	state := b.state
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := b.kv.Put(ctx, stateKey, b.stateValue()); err != nil {
		b.logf("broker: telling workers the run is %s: %v", state, err)
		return
	}
	b.logf("broker: told workers the run is %s", state)
}
