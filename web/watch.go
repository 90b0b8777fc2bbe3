package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"dama/runfolder"
)

// watcher looks at the run folder while someone watches: every poll it
// stats the files the run page shows, and only when one changed it reads
// the run again and bumps the version of each section whose JSON differs.
// One watcher serves every event stream.
type watcher struct {
	run  *runfolder.Run
	idx  *gameIndex
	poll time.Duration

	mu       sync.Mutex
	watchers int               // open event streams
	wake     chan struct{}     // closed when the first stream opens
	changed  chan struct{}     // closed and replaced at every change
	sections map[string][]byte // section name to its JSON
	versions map[string]int
	print    string // the fingerprint the sections were read at
	metrics  string // and that of the metrics
	skipped  int    // polls that saw a change of the metrics alone since
	err      string // the last reading error, "" if none
}

func newWatcher(ctx context.Context, run *runfolder.Run, idx *gameIndex, poll time.Duration) *watcher {
	w := &watcher{
		run: run, idx: idx, poll: poll, wake: make(chan struct{}), changed: make(chan struct{}),
		sections: map[string][]byte{}, versions: map[string]int{},
	}
	go w.loop(ctx)
	return w
}

func (w *watcher) loop(ctx context.Context) {
	for {
		w.mu.Lock()
		idle, wake := w.watchers == 0, w.wake
		w.mu.Unlock()
		if idle {
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
		}
		start := time.Now()
		w.refresh()
		wait := max(w.poll, 20*time.Since(start)) // at most a twentieth of a core
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// fingerprint stats what the run page shows: a change of any size or
// modification time (or a file's appearance) changes it. The metrics,
// which change at every training step, have their own part.
func (w *watcher) fingerprint() (other, metrics string) {
	stat := func(b *strings.Builder, name string) {
		st, err := os.Stat(w.run.Path(name))
		if err != nil {
			fmt.Fprintf(b, "%s:-;", name)
			return
		}
		fmt.Fprintf(b, "%s:%d:%d;", name, st.Size(), st.ModTime().UnixNano())
	}
	var b, m strings.Builder
	for _, name := range []string{
		runfolder.ConfigFile, runfolder.ChangesFile, runfolder.BestFile, runfolder.ArenaFile,
		runfolder.LadderFile, runfolder.GenerationsDir, runfolder.GamesDir, runfolder.QuarantineDir,
		runfolder.CandidatesDir, // a saved candidate starts its gating match
	} {
		stat(&b, name)
	}
	stat(&m, runfolder.MetricsFile)
	return b.String(), m.String()
}

// metricsEvery is how many polls a change of the metrics alone waits: the
// losses are the costliest part to read (every line of metrics.jsonl) and
// change at every step while a generation trains.
const metricsEvery = 5

// refresh reads the run again if its fingerprint changed (for a change of
// the metrics alone, once every metricsEvery polls).
func (w *watcher) refresh() {
	other, metrics := w.fingerprint()
	w.mu.Lock()
	read := len(w.sections) == 0 || other != w.print
	if !read && metrics != w.metrics {
		w.skipped++
		read = w.skipped >= metricsEvery
	}
	w.mu.Unlock()
	if !read {
		return
	}
	secs, err := readSections(w.run, w.idx)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.print, w.metrics, w.skipped = other, metrics, 0
	bump := false
	if msg := errText(err); msg != w.err {
		w.err, bump = msg, true
		w.versions["error"]++
	}
	if err == nil {
		for name, b := range secs {
			if !bytes.Equal(w.sections[name], b) {
				w.sections[name] = b
				w.versions[name]++
				bump = true
			}
		}
	}
	if bump {
		close(w.changed)
		w.changed = make(chan struct{})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// snapshot returns the sections newer than the versions in seen (which it
// updates) and the channel closed at the next change.
func (w *watcher) snapshot(seen map[string]int) (map[string][]byte, chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string][]byte{}
	for name, v := range w.versions {
		if seen[name] == v {
			continue
		}
		seen[name] = v
		if name == "error" {
			b, _ := jsonBytes(w.err)
			out[name] = b
			continue
		}
		out[name] = w.sections[name]
	}
	return out, w.changed
}

// subscribe counts a new stream, unless max are open.
func (w *watcher) subscribe(max int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watchers >= max {
		return false
	}
	w.watchers++
	if w.watchers == 1 {
		close(w.wake)
	}
	return true
}

func (w *watcher) unsubscribe() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.watchers--
	if w.watchers == 0 {
		w.wake = make(chan struct{})
	}
}

// handleRun serves every section of ?run= (default the first run) at
// once, read now, not by the watcher.
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	e, err := s.entry(r.URL.Query().Get("run"))
	if err != nil {
		httpError(w, http.StatusNotFound, err.Error())
		return
	}
	secs, err := readSections(e.run, e.idx)
	if err != nil {
		httpError(w, http.StatusInternalServerError, oneLine(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte("{"))
	names := make([]string, 0, len(secs))
	for n := range secs {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		if i > 0 {
			w.Write([]byte(","))
		}
		fmt.Fprintf(w, "%q:%s", n, secs[n])
	}
	w.Write([]byte("}\n"))
}

// handleEvents is one client's event stream of ?run= (default the first
// run): every section at once, then each section again when it changes,
// one event named after it; and for each run of ?overlay= (ids separated
// by commas) the sections its curves need, as "overlay" events. A comment
// line every 15 s keeps proxies from closing it.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "streaming not supported")
		return
	}
	q := r.URL.Query()
	main, err := s.entry(q.Get("run"))
	if err != nil {
		httpError(w, http.StatusNotFound, err.Error())
		return
	}
	watched := []*runEntry{main}
	for _, id := range strings.Split(q.Get("overlay"), ",") {
		if id == "" || id == main.ID || slices.ContainsFunc(watched, func(e *runEntry) bool { return e.ID == id }) {
			continue
		}
		e, err := s.entry(id)
		if err != nil {
			httpError(w, http.StatusNotFound, "overlay: "+err.Error())
			return
		}
		watched = append(watched, e)
	}
	for i, e := range watched {
		if !e.watch.subscribe(s.opt.Streams) { // wakes the watcher, whose first read reaches this stream
			for _, f := range watched[:i] {
				f.watch.unsubscribe()
			}
			httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("%d pages are watching run %s already: close one", s.opt.Streams, e.ID))
			return
		}
	}
	defer func() {
		for _, e := range watched {
			e.watch.unsubscribe()
		}
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	seen := make([]map[string]int, len(watched))
	for i := range seen {
		seen[i] = map[string]int{}
	}
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	cases := make([]reflect.SelectCase, 3+len(watched))
	cases[0] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(r.Context().Done())}
	cases[1] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(s.ctx.Done())}
	cases[2] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(keep.C)}
	for {
		for i, e := range watched {
			secs, changed := e.watch.snapshot(seen[i])
			cases[3+i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(changed)}
			names := make([]string, 0, len(secs))
			for n := range secs {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if i == 0 {
					fmt.Fprintf(w, "event: %s\ndata: %s\n\n", n, secs[n])
					continue
				}
				if !overlaySections[n] {
					continue
				}
				b, err := json.Marshal(overlayEvent{Run: e.ID, Section: n, Data: secs[n]})
				if err == nil {
					fmt.Fprintf(w, "event: overlay\ndata: %s\n\n", b)
				}
			}
		}
		fl.Flush()
		switch k, _, _ := reflect.Select(cases); k {
		case 0, 1:
			return
		case 2:
			fmt.Fprint(w, ": keep-alive\n\n")
		}
	}
}

// sectionNames are the events of the stream, in the order the page uses.
var sectionNames = []string{"summary", "progress", "generations", "losses", "arena", "ladder", "times", "config", "chunks", "workers", "games"}

// quarantineList lists the quarantined chunks with the first line of why
// each was refused (at most maxQuarantineShown, newest names last).
func quarantineList(run *runfolder.Run) ([]quarantined, error) {
	names, err := filepath.Glob(run.Path(runfolder.QuarantineDir, "*.dgames"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	if len(names) > maxQuarantineShown {
		names = names[len(names)-maxQuarantineShown:]
	}
	out := []quarantined{}
	for _, n := range names {
		q := quarantined{Name: filepath.Base(n)}
		if b, err := os.ReadFile(n + ".why"); err == nil {
			why, _, _ := strings.Cut(string(b), "\n")
			if len(why) > 300 {
				why = why[:300] + "..."
			}
			q.Why = why
		}
		out = append(out, q)
	}
	return out, nil
}

const maxQuarantineShown = 50

type quarantined struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
