package configs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The workstation preset is the recipe: generation 1 runs by its keys, each
// phase's keys hold from its generation on, and the schedule archives and
// reads back to an equal configuration with the same digest.
func TestWorkstationSchedule(t *testing.T) {
	c, err := Load("workstation", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Schedule) == 0 {
		t.Fatal("the workstation preset has no schedule")
	}
	first := c.At(1)
	first.Schedule = c.Schedule
	if !reflect.DeepEqual(first, *c) {
		t.Errorf("At(1) differs from the keys as written")
	}
	for i, p := range c.Schedule {
		before, at := c.At(p.Generation-1), c.At(p.Generation)
		if c.PhaseAt(p.Generation) != i+1 || c.PhaseAt(p.Generation-1) != i {
			t.Errorf("phase %d: PhaseAt %d, %d", i+1, c.PhaseAt(p.Generation-1), c.PhaseAt(p.Generation))
		}
		diff := Diff(&before, &at)
		if len(diff) == 0 || len(diff) > len(p.Set) {
			t.Errorf("phase %d changes %v, it sets %v", i+1, diff, p.Set)
		}
		for _, d := range diff {
			if _, ok := p.Set[d.Key]; !ok {
				t.Errorf("phase %d changed %s, which it does not set", i+1, d.Key)
			}
		}
		if err := at.Validate(); err != nil {
			t.Errorf("phase %d: %v", i+1, err)
		}
	}
	last := c.At(1_000_000)
	if last.Train.LR >= c.Train.LR || last.SelfPlay.Hybrids == "" || last.Arena.Gating != "sprt" {
		t.Errorf("the last phase runs lr %v, hybrids %q, gating %s", last.Train.LR, last.SelfPlay.Hybrids, last.Arena.Gating)
	}
	// Archived (the configuration of a later phase, as a run's archive
	// holds it) and read back.
	y, err := last.YAML()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, y, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path, nil, nil)
	if err != nil {
		t.Fatalf("the archive does not load: %v\n%s", err, y)
	}
	if !reflect.DeepEqual(*back, last) || back.Digest() != last.Digest() {
		t.Errorf("the archive reads back to another configuration: %v", Diff(&last, back))
	}
	if !strings.Contains(c.ScheduleText(), "phase 1 from generation") {
		t.Errorf("ScheduleText: %q", c.ScheduleText())
	}
}

// A bad schedule is refused before any work, with one line naming the file
// or phase and what is wrong.
func TestScheduleErrors(t *testing.T) {
	base := "base: quick\n"
	for _, tc := range []struct {
		name, text string
		words      []string
	}{
		{"not a list", "schedule: 3\n", []string{"c.yaml:2", "list of phases"}},
		{"generation 1", "schedule:\n  - generation: 1\n    set: {train.lr: 0.001}\n", []string{"phase 1", "2..1000000"}},
		{"no generation", "schedule:\n  - set: {train.lr: 0.001}\n", []string{"phase 1", "no generation"}},
		{"generation text", "schedule:\n  - generation: soon\n    set: {train.lr: 0.001}\n", []string{"phase 1", "soon", "integer"}},
		{"not rising", "schedule:\n  - generation: 5\n    set: {train.lr: 0.001}\n  - generation: 5\n    set: {train.lr: 0.0001}\n", []string{"phase 2", "rise"}},
		{"empty set", "schedule:\n  - generation: 5\n    set: {}\n", []string{"phase 1", "no keys"}},
		{"unknown field", "schedule:\n  - generation: 5\n    when: later\n    set: {train.lr: 0.001}\n", []string{"c.yaml:", "phase 1", "when"}},
		{"unknown key", "schedule:\n  - generation: 5\n    set: {train.rate: 0.001}\n", []string{"phase 1", "train.rate"}},
		{"model key", "schedule:\n  - generation: 5\n    set: {model.blocks: 4}\n", []string{"phase 1", "model.blocks", "shape"}},
		{"run key", "schedule:\n  - generation: 5\n    set: {run.seed: 4}\n", []string{"phase 1", "run.seed"}},
		{"tables", "schedule:\n  - generation: 5\n    set: {selfplay.tables: auto:4}\n", []string{"phase 1", "selfplay.tables", "once"}},
		{"wrong type", "schedule:\n  - generation: 5\n    set: {train.lr: fast}\n", []string{"phase 1", "train.lr", "number"}},
		{"out of range", "schedule:\n  - generation: 5\n    set: {train.lr: 20}\n", []string{"phase 1", "train.lr", "(0,10]"}},
		{"range with the keys before", "schedule:\n  - generation: 5\n    set: {train.window_max: 10}\n", []string{"phase 1", "train.window_max"}},
		{"value not single", "schedule:\n  - generation: 5\n    set: {train.lr: [1, 2]}\n", []string{"train.lr", "single value"}},
		{"long note", "schedule:\n  - generation: 5\n    note: " + strings.Repeat("x", 201) + "\n    set: {train.lr: 0.001}\n", []string{"note", "200"}},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(path, []byte(base+tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, nil, nil)
		if err == nil {
			t.Errorf("%s: loaded", tc.name)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: more than one line: %q", tc.name, err)
		}
		for _, w := range tc.words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, w)
			}
		}
	}
	if _, err := Load("workstation", nil, []string{"schedule=none"}); err == nil || !strings.Contains(err.Error(), "configuration file") {
		t.Errorf("an override of the schedule: %v", err)
	}
}

// An overlay keeps its base's schedule unless it has a schedule: key, which
// replaces the whole list ("schedule:" alone clears it); --set changes the
// keys as written, and a phase's value wins from its generation on.
func TestScheduleOverlays(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"keep.yaml":  "base: workstation\ntrain:\n  lr: 0.002\n",
		"clear.yaml": "base: workstation\nschedule:\n",
		"mine.yaml":  "base: workstation\nschedule:\n  - generation: 3\n    set:\n      selfplay.visits: 300\n",
	})
	ws, err := Load("workstation", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	keep, err := Load(filepath.Join(dir, "keep.yaml"), nil, []string{"selfplay.hybrids=cmb2"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keep.Schedule, ws.Schedule) {
		t.Errorf("an overlay without schedule: lost its base's")
	}
	p := ws.Schedule[0]
	if got := keep.At(p.Generation - 1); got.Train.LR != 0.002 || got.SelfPlay.Hybrids != "cmb2" {
		t.Errorf("before the first phase: lr %v hybrids %q", got.Train.LR, got.SelfPlay.Hybrids)
	}
	if got := keep.At(p.Generation); got.SelfPlay.Hybrids != ws.At(p.Generation).SelfPlay.Hybrids {
		t.Errorf("the phase's hybrids %q do not win over --set", got.SelfPlay.Hybrids)
	}
	clear, err := Load(filepath.Join(dir, "clear.yaml"), nil, nil)
	if err != nil || clear.Schedule != nil {
		t.Errorf("schedule: alone: %v, %v", err, clear)
	}
	mine, err := Load(filepath.Join(dir, "mine.yaml"), nil, nil)
	if err != nil || len(mine.Schedule) != 1 || mine.At(3).SelfPlay.Visits != 300 || mine.At(2).SelfPlay.Visits != ws.SelfPlay.Visits {
		t.Errorf("an overlay's own schedule: %v, %+v", err, mine.Schedule)
	}
	if d := Diff(ws, mine); len(d) != 1 || d[0].Key != ScheduleKey {
		t.Errorf("Diff of two schedules: %v", d)
	}
}

// FuturePhasesOnly: phases not begun may change, begun ones may not.
func TestFuturePhasesOnly(t *testing.T) {
	a := []Phase{{Generation: 5, Set: map[string]any{"train.lr": 0.001}}, {Generation: 9, Set: map[string]any{"train.lr": 0.0001}}}
	later := []Phase{a[0], {Generation: 12, Set: map[string]any{"train.lr": 0.0001}}}
	if !FuturePhasesOnly(a, later, 8) {
		t.Error("a phase not begun moved: refused")
	}
	if FuturePhasesOnly(a, later, 9) {
		t.Error("a begun phase moved: allowed")
	}
	if FuturePhasesOnly(a, a, 3) {
		t.Error("equal schedules: reported as a change")
	}
	if FuturePhasesOnly(a, nil, 4) != true || FuturePhasesOnly(a, nil, 5) {
		t.Error("dropping the schedule before or after its first phase")
	}
}
