package runfolder

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"dama/configs"
)

// A metrics line of a run with the removed opponent-reply head (its
// aux_loss) reads as any other.
func TestReadMetricsWithAuxLoss(t *testing.T) {
	r := &Run{Dir: t.TempDir()}
	line := `{"gen":1,"step":1,"samples":16,"lr":0.001,"policy_loss":1.9,"value_loss":1,"aux_loss":2.1,"entropy":1.7,"l2":0.01,"total":3.2}` + "\n"
	if err := os.WriteFile(r.Path(MetricsFile), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []MetricRecord
	if err := ReadMetrics(r, func(m MetricRecord) error { got = append(got, m); return nil }); err != nil || len(got) != 1 || got[0].PolicyLoss != 1.9 || got[0].Total != 3.2 {
		t.Errorf("read %+v, %v; want the line's losses", got, err)
	}
}

// The steps of metrics.jsonl strictly increase: a line repeating or going
// back on a step is refused on every read, naming the file and the line
// (issue 20, point 4: a repeated step was accepted).
func TestReadMetricsStepsIncrease(t *testing.T) {
	line := func(gen, step int) string {
		return fmt.Sprintf(`{"gen":%d,"step":%d,"samples":16,"total":1.5}`+"\n", gen, step)
	}
	for _, tc := range []struct {
		name, content string
		words         []string
	}{
		{"increasing", line(1, 1) + line(1, 2) + line(2, 5), nil},
		{"repeated", line(1, 1) + line(1, 2) + line(1, 2), []string{MetricsFile + " line 3", "step 2"}},
		{"back", line(1, 1) + line(1, 3) + line(2, 2), []string{MetricsFile + " line 3", "step 2 does not follow step 3"}},
	} {
		r := &Run{Dir: t.TempDir()}
		if err := os.WriteFile(r.Path(MetricsFile), []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		err := ReadMetrics(r, func(MetricRecord) error { n++; return nil })
		if tc.words == nil {
			if err != nil || n != 3 {
				t.Errorf("%s: %d lines, %v", tc.name, n, err)
			}
			continue
		}
		wantErr(t, tc.name+": ReadMetrics", err, tc.words...)
		wantErr(t, tc.name+": CheckRecords", r.CheckRecords(), tc.words...)
	}
}

// config-changes.jsonl is checked line by line on every read: format
// version, generations from 1 to the next one and never going back, known
// keys that may change in a run, valid new values; garbage is an error
// naming the line (issue 20, point 4: the trainer never read the file).
func TestReadChangesChecks(t *testing.T) {
	good := `{"version":1,"generation":1,"changes":[{"key":"selfplay.pass_forced","old":"false","new":"true"}]}` + "\n"
	for _, tc := range []struct {
		name, line string
		words      []string
	}{
		{"garbage", "garbage\n", []string{"line 2", "invalid"}},
		{"version", `{"version":2,"generation":1,"changes":[{"key":"train.lr","old":"0.01","new":"0.02"}]}` + "\n", []string{"line 2", "version 2"}},
		{"generation 0", `{"version":1,"generation":0,"changes":[{"key":"train.lr","old":"0.01","new":"0.02"}]}` + "\n", []string{"line 2", "generation 0"}},
		{"future generation", `{"version":1,"generation":9,"changes":[{"key":"train.lr","old":"0.01","new":"0.02"}]}` + "\n", []string{"line 2", "generation 9, want 1 to 2"}},
		{"no changes", `{"version":1,"generation":1,"changes":[]}` + "\n", []string{"line 2", "no changes"}},
		{"unknown key", `{"version":1,"generation":1,"changes":[{"key":"train.colour","old":"a","new":"b"}]}` + "\n", []string{"line 2", `"train.colour"`}},
		{"model key", `{"version":1,"generation":1,"changes":[{"key":"model.blocks","old":"2","new":"3"}]}` + "\n", []string{"line 2", "model.blocks"}},
		{"bad value", `{"version":1,"generation":1,"changes":[{"key":"selfplay.visits","old":"64","new":"lots"}]}` + "\n", []string{"line 2", "selfplay.visits", `"lots"`}},
		{"out of range", `{"version":1,"generation":1,"changes":[{"key":"selfplay.visits","old":"64","new":"-3"}]}` + "\n", []string{"line 2", "selfplay.visits", `"-3"`}},
		{"removed key", `{"version":1,"generation":1,"changes":[{"key":"selfplay.root_search","old":"gumbel","new":"puct"}]}` + "\n", []string{"line 2", "selfplay.root_search: gumbel was removed", "docs/experiments.md"}},
	} {
		r := copySample(t) // generation 1 done: the next is 2
		if err := os.WriteFile(r.Path(ChangesFile), []byte(good+tc.line), 0o644); err != nil {
			t.Fatal(err)
		}
		words := append([]string{ChangesFile}, tc.words...)
		_, err := r.ReadChanges()
		wantErr(t, tc.name+": ReadChanges", err, words...)
		wantErr(t, tc.name+": CheckRecords", r.CheckRecords(), words...)
	}
	// Generations never go back.
	r := copySample(t)
	later := strings.Replace(good, `"generation":1`, `"generation":2`, 1)
	if err := os.WriteFile(r.Path(ChangesFile), []byte(later+good), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := r.ReadChanges()
	wantErr(t, "generation going back", err, ChangesFile+" line 2", "generation 1 comes before generation 2")
	if err := os.WriteFile(r.Path(ChangesFile), []byte(good+later+later), 0o644); err != nil {
		t.Fatal(err)
	}
	if ch, err := r.ReadChanges(); err != nil || len(ch) != 3 {
		t.Errorf("valid changes: %d, %v", len(ch), err)
	}
}

// A resume killed after recording its change, before the archive took the
// new value, is repeated without recording the change twice.
func TestResumeChangeRecordedOnce(t *testing.T) {
	old, y := loadQuick(t)
	want, yNew := loadQuick(t, "selfplay.pass_forced=true")
	r := &Run{Dir: t.TempDir()}
	if err := r.WriteConfig(y); err != nil {
		t.Fatal(err)
	}
	killed := errors.New("killed")
	configWriteStep = func(int) error { return killed }
	err := r.ResumeConfig(old, want, yNew, io.Discard, []string{"selfplay.pass_forced"})
	configWriteStep = nil
	if !errors.Is(err, killed) {
		t.Fatalf("resume not stopped: %v", err)
	}
	data, err := os.ReadFile(r.Path(ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	prev, err := r.ReadArchivedConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ResumeConfig(prev, want, yNew, io.Discard, []string{"selfplay.pass_forced"}); err != nil {
		t.Fatal(err)
	}
	if ch, err := r.ReadChanges(); err != nil || len(ch) != 1 {
		t.Errorf("%d change records (%v), want 1", len(ch), err)
	}
}

// SelfPlayHistory rebuilds every self-play section a run has had from the
// archive and the old values of the recorded changes, newest first: a key
// changed twice takes, before each change, the value it had then (issue
// 20, point 3: chunks from before a change were quarantined).
func TestSelfPlayHistory(t *testing.T) {
	first, y := loadQuick(t, "selfplay.resign_threshold=0.05")
	second, y2 := loadQuick(t, "selfplay.resign_threshold=0.1", "selfplay.pass_forced=true")
	third, y3 := loadQuick(t, "selfplay.resign_threshold=0.2", "selfplay.pass_forced=true", "train.lr=0.005")
	r := &Run{Dir: t.TempDir()}
	if err := r.WriteConfig(y); err != nil {
		t.Fatal(err)
	}
	if h, err := r.SelfPlayHistory(); err != nil || len(h) != 1 || h[0] != first.SelfPlay {
		t.Fatalf("history of an unchanged run: %+v, %v", h, err)
	}
	allow := []string{"selfplay.resign_threshold", "selfplay.pass_forced", "train.lr"}
	if err := r.ResumeConfig(first, second, y2, io.Discard, allow); err != nil {
		t.Fatal(err)
	}
	if err := r.ResumeConfig(second, third, y3, io.Discard, allow); err != nil {
		t.Fatal(err)
	}
	h, err := r.SelfPlayHistory()
	if err != nil {
		t.Fatal(err)
	}
	want := []configs.SelfPlay{third.SelfPlay, second.SelfPlay, first.SelfPlay}
	if len(h) != len(want) {
		t.Fatalf("%d sections, want %d", len(h), len(want))
	}
	for i := range want {
		if h[i] != want[i] {
			t.Errorf("section %d: resign_threshold %g, pass_forced %v; want %g, %v", i, h[i].ResignThreshold, h[i].PassForced, want[i].ResignThreshold, want[i].PassForced)
		}
	}
	// An old value that no longer loads is an error naming the file.
	bad := `{"version":1,"generation":1,"changes":[{"key":"selfplay.visits","old":"-3","new":"64"}]}` + "\n"
	if err := os.WriteFile(r.Path(ChangesFile), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = r.SelfPlayHistory()
	wantErr(t, "a bad old value", err, ChangesFile, "before generation 1", "selfplay.visits")
}

// A change's new value is checked against the run's own configuration,
// not the defaults: a run with a large train.window_max may lower
// train.window_min to 80000 (the quick defaults' window_max is 20000, and
// the check against them refused the record the resume itself had just
// written), and a value the run's window_max does not allow is refused.
func TestReadChangesChecksAgainstTheRun(t *testing.T) {
	old, y := loadQuick(t, "train.window_max=2000000", "train.window_min=150000")
	want, yNew := loadQuick(t, "train.window_max=2000000", "train.window_min=80000")
	r := &Run{Dir: t.TempDir()}
	if err := r.WriteConfig(y); err != nil {
		t.Fatal(err)
	}
	if err := r.ResumeConfig(old, want, yNew, io.Discard, []string{"train.window_min"}); err != nil {
		t.Fatal(err)
	}
	ch, err := r.ReadChanges()
	if err != nil || len(ch) != 1 || ch[0].Changes[0].New != "80000" {
		t.Fatalf("changes %+v, %v; want the one change to 80000", ch, err)
	}
	if err := r.CheckRecords(); err != nil {
		t.Errorf("CheckRecords: %v", err)
	}
	// A second change, valid in the run: the first is checked with the
	// second one's old value, the second with its new one.
	line2 := `{"version":1,"generation":1,"changes":[{"key":"train.window_max","old":"2000000","new":"90000"}]}` + "\n"
	f, err := os.OpenFile(r.Path(ChangesFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line2); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if ch, err := r.ReadChanges(); err != nil || len(ch) != 2 {
		t.Errorf("two valid changes: %d, %v", len(ch), err)
	}
	// Above the run's window_max: refused, naming the line and the key.
	bad := `{"version":1,"generation":1,"changes":[{"key":"train.window_min","old":"80000","new":"3000000"}]}` + "\n"
	if err := os.WriteFile(r.Path(ChangesFile), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = r.ReadChanges()
	wantErr(t, "window_min above the run's window_max", err, ChangesFile+" line 1", `train.window_min="3000000"`, "train.window_max")
}
