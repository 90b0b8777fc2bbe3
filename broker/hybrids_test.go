package broker

import (
	"strings"
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

// TestConfigRefusesBadHybrids: a worker refuses a run configuration whose
// selfplay.hybrids self-play does not take (selfplay.ValidateSettings:
// configs keeps the text), with one line naming the key, before it plays.
func TestConfigRefusesBadHybrids(t *testing.T) {
	for _, bad := range []string{"bogus", "mm4,ab12"} {
		_, err := parseConfig([]byte("selfplay:\n  hybrids: " + bad + "\n"))
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `selfplay.hybrids = "`+bad+`": want`) {
			t.Errorf("selfplay.hybrids %s: %v", bad, err)
		}
	}
}
