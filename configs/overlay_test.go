package configs

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateAB = flag.String("update-ab", "", "rewrite testdata/ab-effective.json from the full A/B files in this folder")

// abGolden holds, for each A/B arm of configs/ab, every key's value as the
// full 155-line file of the arm gave it before the arms became overlays.
const abGolden = "testdata/ab-effective.json"

// settings returns every key of c with its value formatted as KeyDiff
// formats it.
func settings(c *Config) map[string]string {
	m := map[string]string{}
	for _, kv := range keyValues(c) {
		m[kv.key] = fmt.Sprint(kv.value)
	}
	return m
}

// TestABOverlaysKeepTheirSettings loads every A/B arm (an overlay on its
// base) and compares each key with the value the arm's old full file gave.
func TestABOverlaysKeepTheirSettings(t *testing.T) {
	if *updateAB != "" {
		files, _ := filepath.Glob(filepath.Join(*updateAB, "*.yaml"))
		out := map[string]map[string]string{}
		for _, f := range files {
			c, err := Load(f, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			out[strings.TrimSuffix(filepath.Base(f), ".yaml")] = settings(c)
		}
		b, err := json.MarshalIndent(out, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abGolden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(abGolden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("ab", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Errorf("configs/ab holds %d arms, %s %d", len(files), abGolden, len(want))
	}
	for _, f := range files {
		arm := strings.TrimSuffix(filepath.Base(f), ".yaml")
		w, ok := want[arm]
		if !ok {
			t.Errorf("%s: no expected settings in %s", f, abGolden)
			continue
		}
		c, err := Load(f, nil, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		got := settings(c)
		if len(got) != len(w) {
			t.Errorf("%s: %d keys, want %d", f, len(got), len(w))
		}
		for k, v := range got {
			if w[k] != v {
				t.Errorf("%s: %s = %s, want %s", f, k, v, w[k])
			}
		}
	}
}

// writeFiles writes name -> text into a temporary folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOverlay(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml":       "base: quick\nselfplay:\n  visits: 80\n  cpuct: 2\n",
		"arms/arm.yaml":   "base: ../base.yaml\nselfplay:\n  visits: 90\n",
		"preset-arm.yaml": "base: workstation\ntrain:\n  value_target_mix: 0\n",
	})
	c, err := Load(filepath.Join(dir, "arms/arm.yaml"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := Load("quick", nil, nil)
	want := *q
	want.SelfPlay.Visits, want.SelfPlay.CPuct = 90, 2
	if d := Diff(&want, c); len(d) != 0 {
		t.Errorf("overlay of an overlay of quick: differs from quick in %v", d)
	}
	// The environment and overrides still go over the overlay.
	c, err = Load(filepath.Join(dir, "arms/arm.yaml"), []string{"DAMA_SELFPLAY_VISITS=70"}, []string{"selfplay.cpuct=3"})
	if err != nil || c.SelfPlay.Visits != 70 || c.SelfPlay.CPuct != 3 {
		t.Errorf("environment and override over an overlay: %v, visits %d cpuct %v", err, c.SelfPlay.Visits, c.SelfPlay.CPuct)
	}
	c, err = Load(filepath.Join(dir, "preset-arm.yaml"), nil, nil)
	if err != nil || c.Train.ValueTargetMix != 0 || c.Model.Preset != "workstation" {
		t.Errorf("overlay of the workstation preset: %v %+v", err, c)
	}
}

func TestOverlayErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"loop-a.yaml":  "base: loop-b.yaml\n",
		"loop-b.yaml":  "base: loop-a.yaml\n",
		"self.yaml":    "base: self.yaml\n",
		"missing.yaml": "base: nowhere.yaml\n",
		"list.yaml":    "base: [quick]\n",
		"number.yaml":  "base: 3\n",
		"bad-key.yaml": "base: quick\nselfplay:\n  visits: 0\n",
		"unknown.yaml": "base: quick\nselfplay:\n  vists: 10\n",
		"type.yaml":    "base: quick\nselfplay:\n  visits: many\n",
		"deep0.yaml":   "base: deep1.yaml\n", "deep1.yaml": "base: deep2.yaml\n", "deep2.yaml": "base: deep3.yaml\n",
		"deep3.yaml": "base: deep4.yaml\n", "deep4.yaml": "base: deep5.yaml\n", "deep5.yaml": "base: deep6.yaml\n",
		"deep6.yaml": "base: deep7.yaml\n", "deep7.yaml": "base: deep8.yaml\n", "deep8.yaml": "base: deep9.yaml\n",
		"deep9.yaml": "base: quick\n",
	})
	for _, tc := range []struct{ file, want string }{
		{"loop-a.yaml", "comes back"},
		{"self.yaml", "comes back"},
		{"missing.yaml", "nowhere.yaml"},
		{"list.yaml", "base must name a preset or a YAML file"},
		{"number.yaml", "base must name a preset or a YAML file"},
		{"bad-key.yaml", "selfplay.visits = 0"},
		{"unknown.yaml", `unknown key "selfplay.vists"`},
		{"type.yaml", "type.yaml"},
		{"deep0.yaml", fmt.Sprintf("more than %d files deep", maxBaseDepth)},
	} {
		_, err := Load(filepath.Join(dir, tc.file), nil, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.file, err, tc.want)
		}
	}
	// A base key anywhere but at the top is an unknown key.
	dir = writeFiles(t, map[string]string{"nested.yaml": "run:\n  base: quick\n"})
	if _, err := Load(filepath.Join(dir, "nested.yaml"), nil, nil); err == nil || !strings.Contains(err.Error(), `"run.base"`) {
		t.Errorf("run.base: %v, want an unknown key", err)
	}
}

// TestArchivedConfigsUnchanged loads the configurations archived by earlier
// versions (the committed run folder samples) and holds their digests and
// their differences from the quick preset to the values the version before
// overlays gave (recorded with it), so that resuming them sees the same
// settings and the same configs.Diff.
func TestArchivedConfigsUnchanged(t *testing.T) {
	for _, tc := range []struct {
		file, digest, diff string
	}{
		{"../runfolder/testdata/config-2026-12-01-legacy.yaml", "a3248fae7d5a93dc54ed36d59bb2ad71cbb5ee8ed75b1d2642e27a60cfec3e79",
			"[run.generations (14 -> 0)]"},
		{"../runfolder/testdata/run-2026-12-01/config.yaml", "0a089d1ff0158392b965ceec377e14272ba3718271d86306cde76e9f048c7d3f",
			"[run.generations (14 -> 1) model.preset (small -> tiny) selfplay.games_per_generation (64 -> 4) selfplay.parallel (32 -> 4) " +
				"selfplay.visits (64 -> 4) selfplay.max_plies (200 -> 40) selfplay.eval_batch (32 -> 4) train.batch (64 -> 8) " +
				"train.window_min (2000 -> 1) train.window_max (20000 -> 2000) train.steps_per_generation (0 -> 4) arena.games (40 -> 2) " +
				"arena.parallel (20 -> 2) arena.visits (48 -> 2) arena.max_plies (200 -> 40)]"},
	} {
		c, err := Load(tc.file, nil, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		q, err := Load("quick", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Digest(); got != tc.digest {
			t.Errorf("%s: digest %s, want %s", tc.file, got, tc.digest)
		}
		if got := fmt.Sprint(Diff(q, c)); got != tc.diff {
			t.Errorf("%s: differs from quick in\n%s\nwant\n%s", tc.file, got, tc.diff)
		}
	}
}
