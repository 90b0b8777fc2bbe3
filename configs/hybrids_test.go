package configs

import (
	"strings"
	"testing"
)

// TestHybridsKey: selfplay.hybrids takes the syntax of dama play --hybrids
// from a file, an override or the environment, archives and reads back;
// a bad list and the verifier ab are one-line errors naming the key and
// the value.
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

	for _, tc := range []struct{ value, want string }{
		{"mm9", "DEPTH in 1..8"},
		{"cmb0", "DEPTH in 1..8"},
		{"mm3,mm4", "each at most once"},
		{"mm4;cmb3", "comma-separated"},
		{"pass", "mm[DEPTH], cmb[DEPTH] and ip[DEPTH]"},
		{"ab", "no ab"},
		{"mm4,ab12", "self-play searches by visits"},
	} {
		_, err := Load("quick", nil, []string{"selfplay.hybrids=" + tc.value})
		if err == nil {
			t.Errorf("selfplay.hybrids=%s loaded", tc.value)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, "selfplay.hybrids") || !strings.Contains(msg, `"`+tc.value+`"`) || !strings.Contains(msg, tc.want) {
			t.Errorf("selfplay.hybrids=%s: error %q, want one line with the key, the value and %q", tc.value, msg, tc.want)
		}
	}
	// The selfplay section alone checks it too (selfplay.Config.Validate).
	if err := (SelfPlay{Hybrids: "ab12"}).Validate(); err == nil || !strings.Contains(err.Error(), "selfplay.hybrids") {
		t.Errorf("SelfPlay.Validate with ab12: %v", err)
	}
}

// TestHybridsDigestUnchanged: a configuration without the key (the
// presets, the value-mix arm) archives no hybrids line, "" and none
// included, and keeps the digest it had before the key existed (recorded
// with the version before it).
func TestHybridsDigestUnchanged(t *testing.T) {
	for _, tc := range []struct{ config, digest string }{
		{"quick", "94611b5c63d0c90adcafcb25de8519c52c85c66f4ca5130e8737ae34c5f0f146"},
		{"workstation", "e40386ded24be925694495458d084ff4822b6f698738000b0e0ef380712f08e7"},
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
