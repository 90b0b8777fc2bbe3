package tactics

import (
	"errors"
	"strings"
	"testing"
)

// TestParseHybrids: the list syntax of --hybrids and selfplay.hybrids reads
// each item once with its default or its depth within its bound, writes
// back as it reads, and refuses anything else naming the item.
func TestParseHybrids(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want Hybrids
		back string
	}{
		{"", Hybrids{}, "none"},
		{"none", Hybrids{}, "none"},
		{"mm", Hybrids{Minimax: DefaultMinimaxDepth}, "mm4"},
		{"mm4,cmb3,ip3", DefaultHybrids, "mm4,cmb3,ip3"},
		{"ip2,mm8", Hybrids{Minimax: 8, Priors: 2}, "mm8,ip2"},
		{"cmb,ip", Hybrids{Combinations: DefaultCombinationsDepth, Priors: DefaultPriorsDepth}, "cmb3,ip3"},
		{"ip8", Hybrids{Priors: MaxMinimaxDepth}, "ip8"},
	} {
		h, err := ParseHybrids(tc.s)
		if err != nil || h != tc.want || h.String() != tc.back {
			t.Errorf("ParseHybrids(%q) = %+v (%s), %v; want %+v (%s)", tc.s, h, h.String(), err, tc.want, tc.back)
		}
		if again, err := ParseHybrids(h.String()); err != nil || again != h {
			t.Errorf("%q: String %q reads back as %+v, %v", tc.s, h.String(), again, err)
		}
	}
	for _, tc := range []struct{ s, msg string }{
		{"mm9", `"mm9": depth 9: want an integer in 1..8`},
		{"cmb0", `"cmb0": depth 0: want an integer in 1..8`},
		{"mm,", `hybrid "": want mm[DEPTH]`},
		{"mm3,mm4", "mm given twice"},
		{"cmb,cmb4", "cmb given twice"},
		{"cmb3;ip2", `"cmb3;ip2"`},
		{"pass", `"pass"`},
		{"tb", `"tb"`},
		{"threads2", `"threads2"`},
		{"mm-1", `"mm-1"`},
		{"NONE", `"NONE"`},
		{"mm99999999999999999999", "want an integer"},
	} {
		h, err := ParseHybrids(tc.s)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseHybrids(%q) = %+v, %v; want an error with %q", tc.s, h, err, tc.msg)
		}
	}
}

// TestRemovedHybrids: the root verifiers were removed; a list naming one,
// with or without a depth, is refused in one line that says so, why, and
// where the record is, and IsHybrid still knows the names, so that a
// player suffix names the removal rather than an unknown suffix.
func TestRemovedHybrids(t *testing.T) {
	for _, name := range []string{"ab", "abn", "abw", "abp", "abs"} {
		for _, list := range []string{name, name + "12", "mm4," + name + "10"} {
			_, err := ParseHybrids(list)
			if !errors.Is(err, ErrRemoved) || !strings.Contains(err.Error(), name+" was removed: ") || !strings.Contains(err.Error(), "see docs/rating.md#tactics") || strings.Contains(err.Error(), "\n") {
				t.Errorf("ParseHybrids(%q): %v, want one line saying %s was removed and where its record is", list, err, name)
			}
		}
		if !IsHybrid(name) || RemovedHybrid(name) == nil {
			t.Errorf("%s: IsHybrid %v, RemovedHybrid %v", name, IsHybrid(name), RemovedHybrid(name))
		}
	}
	for _, name := range []string{"mm", "cmb", "ip", "abx", ""} {
		if RemovedHybrid(name) != nil {
			t.Errorf("RemovedHybrid(%q) = %v, want nil", name, RemovedHybrid(name))
		}
	}
}
