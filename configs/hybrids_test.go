package configs

import (
	"strings"
	"testing"
)

// TestHybridsKey: selfplay.hybrids takes the syntax of dama play --hybrids
// from a file, an override or the environment, archives and reads back;
// configs does not read the list (a bad one and the verifier ab are
// package selfplay's errors: selfplay.ValidateSettings).
func TestHybridsKey(t *testing.T) {
	for _, s := range []string{"", "none", "mm4,cmb3,ip3", "ip2", "cmb,mm8"} {
		c, err := Load("quick", nil, []string{"selfplay.hybrids=" + s})
		if err != nil || c.SelfPlay.Hybrids != s {
			t.Errorf("selfplay.hybrids=%s: %v, read %q", s, err, c.SelfPlay.Hybrids)
		}
	}
	c, err := Load("quick", []string{"DAMA_SELFPLAY_HYBRIDS=mm4,cmb3,ip3"}, nil)
	if err != nil || c.SelfPlay.Hybrids != "mm4,cmb3,ip3" {
		t.Fatalf("DAMA_SELFPLAY_HYBRIDS: %v, read %q", err, c.SelfPlay.Hybrids)
	}
	y, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "hybrids: mm4,cmb3,ip3\n") {
		t.Errorf("the archived YAML lacks the hybrids:\n%s", y)
	}
	back, err := Load(writeFile(t, string(y)), nil, nil)
	if err != nil || back.SelfPlay.Hybrids != c.SelfPlay.Hybrids || back.Digest() != c.Digest() {
		t.Errorf("read back: %v, hybrids %q", err, back.SelfPlay.Hybrids)
	}
	q, err := Load("quick", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Digest() == c.Digest() {
		t.Error("the hybrids do not change the digest")
	}

	// configs keeps the text as it is: package selfplay reads and checks
	// it (selfplay.TestHybridsSettings), before any game.
	for _, s := range []string{"mm9", "mm4,ab12"} {
		c, err := Load("quick", nil, []string{"selfplay.hybrids=" + s})
		if err != nil || c.SelfPlay.Hybrids != s {
			t.Errorf("selfplay.hybrids=%s: %v, read %q", s, err, c.SelfPlay.Hybrids)
		}
	}
}

// TestHybridsDigestUnchanged: a configuration without the key (the
// presets, the value-mix arm) archives no hybrids line, "" and none
// included, and keeps the digest it had before the key existed (recorded
// with the version before it).
func TestHybridsDigestUnchanged(t *testing.T) {
	for _, tc := range []struct{ config, digest string }{
		{"quick", "94611b5c63d0c90adcafcb25de8519c52c85c66f4ca5130e8737ae34c5f0f146"},
		{"ab/ws-value-mix.yaml", "e40386ded24be925694495458d084ff4822b6f698738000b0e0ef380712f08e7"}, // the workstation preset before its schedule
		{"ab/value-mix.yaml", "1c9bae7cb0773586e2c83ceff9c2f3e48b5602ff3c9d756cfa957261f4472914"},
	} {
		c, err := Load(tc.config, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := c.YAML()
		if strings.Contains(string(y), "hybrids") {
			t.Errorf("%s archives a hybrids line:\n%s", tc.config, y)
		}
		if got := c.Digest(); got != tc.digest {
			t.Errorf("%s: digest %s, want %s (as before selfplay.hybrids)", tc.config, got, tc.digest)
		}
		e, err := Load(tc.config, nil, []string{"selfplay.hybrids="})
		if err != nil || e.Digest() != tc.digest {
			t.Errorf("%s with selfplay.hybrids empty: %v, digest %s", tc.config, err, e.Digest())
		}
	}
}
