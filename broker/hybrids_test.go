package broker

import (
	"testing"

	"dama/configs"
)

// TestConfigCarriesHybrids: the run configuration a worker receives (the
// trainer's archived YAML) gives the worker's self-play settings the run's
// selfplay.hybrids, and the same digest.
func TestConfigCarriesHybrids(t *testing.T) {
	c, err := configs.Load("quick", nil, []string{"selfplay.hybrids=mm4,cmb3,ip3"})
	if err != nil {
		t.Fatal(err)
	}
	y, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseConfig(y)
	if err != nil {
		t.Fatal(err)
	}
	if got.SelfPlay.Hybrids != "mm4,cmb3,ip3" || got.Digest() != c.Digest() {
		t.Errorf("the worker's configuration: selfplay.hybrids %q, digest %s, want %s", got.SelfPlay.Hybrids, got.Digest(), c.Digest())
	}
}
