package broker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"dama/selfplay"
)

// Limits on what one worker can put on the broker. The server enforces
// those NATS has: a message's size (the served broker's maximum payload
// and the chunk stream's MaxMsgSize), the chunks of one worker waiting on
// the stream (MaxMsgsPerSubject, a worker's chunks being on a subject of
// its own, with DiscardNewPerSubject: a worker at its limit is refused,
// never another worker's chunk dropped), the stream's bytes as a whole,
// and a value of the run's bucket. NATS has no limit on a user's publish
// rate: a worker publishes only as fast as the trainer clears its chunks
// (its backlog is bounded), and the trainer's refusals past a few per
// minute cost it no disk write and no log line (refusals).
const (
	// MaxChunkBytes is the largest chunk message the chunk stream stores,
	// and the served broker's maximum payload. A chunk of 16 games of 200
	// plies at 64 visits is about 31 KB, so the default chunk of 100
	// games fits with room to spare; a worker splits one that would not.
	MaxChunkBytes = 1 << 20
	// maxValueBytes bounds a value of the run's bucket: the configuration
	// is about 10 KB, and a worker may write only its counter.
	maxValueBytes = 256 << 10
	// chunkStreamBytes caps the chunk stream as a whole.
	chunkStreamBytes = 4 << 30
	// defaultBacklog is a worker's backlog when the bridge has no Want.
	defaultBacklog = 4096
	// backlogSlack is what a worker's backlog allows beyond a generation.
	backlogSlack = 64
)

// workerBacklog is the most chunks of one worker the stream holds: a
// generation's games even at one game a chunk, and some slack (a worker
// publishes the chunk in play when the games waiting reach a generation).
// A worker at the limit is refused and tries again every second until a
// plan takes its chunks, so a run never waits on it.
func workerBacklog(want int) int64 {
	if want <= 0 {
		return defaultBacklog
	}
	return int64(want) + backlogSlack
}

// chunkStreamConfig is the chunk stream's configuration for a trainer
// whose generations take want games. Limits are only raised over those of
// an existing stream cur (nil: none), and never put below what it holds:
// the server would drop waiting chunks to meet a lower one.
func chunkStreamConfig(ctx context.Context, cur jetstream.Stream, want int) (jetstream.StreamConfig, error) {
	cfg := jetstream.StreamConfig{
		Name: ChunkStream, Description: "dama training run: chunks of self-play games, until the trainer's plan takes them",
		Subjects: []string{chunkSubject + ".>"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
		Duplicates: 10 * time.Minute,
		MaxMsgSize: MaxChunkBytes, MaxMsgsPerSubject: workerBacklog(want), MaxBytes: chunkStreamBytes,
		Discard: jetstream.DiscardNew, DiscardNewPerSubject: true,
	}
	if cur == nil {
		return cfg, nil
	}
	info, err := cur.Info(ctx, jetstream.WithSubjectFilter(">")) // the legacy subject too
	if err != nil {
		return cfg, err
	}
	old := info.Config
	if old.MaxMsgsPerSubject <= 0 || old.MaxBytes <= 0 {
		// A stream from before these limits: keep room for what it holds.
		old.MaxMsgsPerSubject, old.MaxBytes = 0, 0
	}
	cfg.MaxMsgsPerSubject = max(cfg.MaxMsgsPerSubject, old.MaxMsgsPerSubject)
	for _, n := range info.State.Subjects {
		cfg.MaxMsgsPerSubject = max(cfg.MaxMsgsPerSubject, int64(n))
	}
	cfg.MaxBytes = max(cfg.MaxBytes, old.MaxBytes, int64(info.State.Bytes))
	cfg.MaxMsgSize = max(cfg.MaxMsgSize, old.MaxMsgSize)
	return cfg, nil
}

// Caps of the bridge's share of the quarantine (the chunks it refused,
// named <stream sequence>-<name>): the oldest go first.
const (
	quarantineFiles = 200
	quarantineBytes = 64 << 20
)

// keepRate is how many of one worker's refused chunks the bridge keeps
// and logs one by one: keepBurst at once, then one every keepEvery. The
// others are counted, and one line per worker and burst says how many.
const (
	keepBurst = 10
	keepEvery = 6 * time.Second
	// burstLine is how long a burst's count gathers before its line.
	burstLine = 10 * time.Second
)

// quarantined matches the bridge's quarantine files.
var quarantined = regexp.MustCompile(`^[0-9]+-.*\` + selfplay.FileExt + `$`)

// refusals keeps the quarantine and the log of refused chunks within
// bounds however fast a worker sends bad ones: each worker's refusals
// are kept and logged at keepRate, the rest counted and logged once per
// burst, and the quarantine capped at quarantineFiles and quarantineBytes.
type refusals struct {
	dir    string
	logf   func(string, ...any)
	mu     sync.Mutex
	files  []keptFile // oldest first
	bytes  int64
	by     map[string]*workerRefusals
	closed bool // the bridge is closing: nothing more is kept or logged
}

type keptFile struct {
	name string // the chunk's file; its reason is name+".why"
	size int64
}

// workerRefusals is one worker's refusals.
type workerRefusals struct {
	tokens float64   // refusals it may still have kept and logged
	last   time.Time // when tokens was last topped up
	// The burst: refusals neither kept nor logged since it began.
	count int
	bytes int64
	first string // the reason of the first of them
	since time.Time
	timer *time.Timer
}

// newRefusals reads the bridge's files already in dir.
func newRefusals(dir string, logf func(string, ...any)) *refusals {
	r := &refusals{dir: dir, logf: logf, by: map[string]*workerRefusals{}}
	ents, _ := os.ReadDir(dir)
	type aged struct {
		keptFile
		mod time.Time
	}
	var old []aged
	for _, e := range ents {
		if !quarantined.MatchString(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		old = append(old, aged{keptFile{e.Name(), info.Size()}, info.ModTime()})
	}
	slices.SortStableFunc(old, func(a, b aged) int { return a.mod.Compare(b.mod) })
	for _, f := range old {
		r.files = append(r.files, f.keptFile)
		r.bytes += f.size
	}
	r.mu.Lock()
	r.trim()
	r.mu.Unlock()
	return r
}

// keep reports whether a refused chunk of worker should be kept and
// logged; if not, it is counted in the worker's burst.
func (r *refusals) keep(worker string, size int, why string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	w := r.by[worker]
	now := time.Now()
	if w == nil {
		w = &workerRefusals{tokens: keepBurst, last: now}
		r.by[worker] = w
	}
	w.tokens = min(keepBurst, w.tokens+now.Sub(w.last).Seconds()/keepEvery.Seconds())
	w.last = now
	if w.tokens >= 1 {
		w.tokens--
		return true
	}
	if w.count == 0 {
		w.first, w.since = why, now
		w.timer = time.AfterFunc(burstLine, func() { r.flush(worker) })
	}
	w.count++
	w.bytes += int64(size)
	return false
}

// flush logs worker's burst, if any.
func (r *refusals) flush(worker string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked(worker)
}

func (r *refusals) flushLocked(worker string) {
	w := r.by[worker]
	if w == nil || w.count == 0 {
		return
	}
	who := "worker " + worker
	if worker == "" {
		who = "the shared subject " + chunkSubject
	}
	r.logf("broker: %d more chunks of %s refused in %.1fs (%d bytes), neither kept in %s nor logged one by one (a worker has %d kept, then one every %v); the first: %s",
		w.count, who, time.Since(w.since).Seconds(), w.bytes, QuarantineDir, keepBurst, keepEvery, w.first)
	w.timer.Stop()
	w.count, w.bytes, w.first, w.timer = 0, 0, "", nil
}

// close logs every burst not yet logged.
func (r *refusals) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for worker := range r.by {
		r.flushLocked(worker)
	}
}

// kept records a chunk written into the quarantine as file (size bytes)
// and drops the oldest beyond the caps.
func (r *refusals) kept(file string, size int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files = append(r.files, keptFile{file, int64(size)})
	r.bytes += int64(size)
	r.trim()
}

// trim removes the oldest kept chunks and their reasons while the
// quarantine is over a cap.
func (r *refusals) trim() {
	n := 0
	for len(r.files)-n > quarantineFiles || (r.bytes > quarantineBytes && len(r.files)-n > 1) {
		f := r.files[n]
		n++
		r.bytes -= f.size
		for _, p := range []string{f.name, f.name + ".why"} {
			if err := os.Remove(filepath.Join(r.dir, p)); err != nil && !errors.Is(err, os.ErrNotExist) {
				r.logf("broker: dropping %s from %s: %v", p, QuarantineDir, err)
			}
		}
	}
	r.files = slices.Delete(r.files, 0, n)
}

// publisher is the worker a chunk subject belongs to ("" for the shared
// subject of streams from before worker subjects).
func publisher(subject string) string {
	w, _ := strings.CutPrefix(subject, chunkSubject)
	return strings.TrimPrefix(w, ".")
}
