package broker

import (
	"context"
	"path/filepath"
	"regexp"
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
