package configs_test

import (
	"slices"
	"strings"
	"testing"

	"dama/configs"
	"dama/model/infer"
)

// configs cannot import model (model uses configs), so it keeps its own
// list of backend names; this test keeps the two equal.
func TestBackendsMatchModel(t *testing.T) {
	if got, want := configs.Backends, infer.BackendNames(); !slices.Equal(got, want) {
		t.Errorf("configs.Backends = %v, infer.BackendNames() = %v", got, want)
	}
}

func TestBackendValidated(t *testing.T) {
	c := configs.Default()
	if c.SelfPlay.Backend != infer.BackendAuto {
		t.Errorf("default selfplay.backend = %q, want auto", c.SelfPlay.Backend)
	}
	c.SelfPlay.Backend = "fp16"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "selfplay.backend") {
		t.Errorf("Validate with backend fp16: %v; want an error naming selfplay.backend", err)
	}
	forEachPreset(t, func(p string, c *configs.Config) {
		if _, err := infer.ResolveBackend(c.SelfPlay.Backend); err != nil {
			t.Errorf("preset %s: %v", p, err)
		}
	})
}

// forEachPreset calls f with the name and the loaded configuration of
// every preset.
func forEachPreset(t *testing.T, f func(name string, c *configs.Config)) {
	t.Helper()
	for _, p := range configs.Presets {
		c, err := configs.Load(p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		f(p, c)
	}
}
