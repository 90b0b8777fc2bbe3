package tactics

import (
	"strings"
	"testing"

	"dama/arena/classic"
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
		{"cmb,ab", Hybrids{Combinations: DefaultCombinationsDepth, Verify: DefaultVerifyDepth}, "cmb3,ab12"},
		{"ab40", Hybrids{Verify: classic.MaxDepth}, "ab40"},
		{"abn", Hybrids{Verify: DefaultVerifyDepth, Kind: VerifyJudged}, "abn12"},
		{"mm4,cmb3,ip3,abn10", Hybrids{Minimax: 4, Combinations: 3, Priors: 3, Verify: 10, Kind: VerifyJudged}, "mm4,cmb3,ip3,abn10"},
		{"abw", Hybrids{Verify: DefaultVerifyDepth, Kind: VerifyAhead}, "abw12"},
		{"abp", Hybrids{Verify: DefaultVerifyDepth, Kind: VerifyProof}, "abp12"},
		{"mm4,abp14", Hybrids{Minimax: 4, Verify: 14, Kind: VerifyProof}, "mm4,abp14"},
		{"cmb3,abw9", Hybrids{Combinations: 3, Verify: 9, Kind: VerifyAhead}, "cmb3,abw9"},
		{"abs,mm4", Hybrids{Minimax: 4, Verify: 12, Kind: VerifySpare}, "mm4,abs12"},
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
		{"ab41", "1..40"},
		{"mm,", `hybrid "": want mm[DEPTH]`},
		{"mm3,mm4", "mm given twice"},
		{"abn,abn4", "abn given twice"},
		{"ab,abn", "two of the verifiers ab, abn, abw, abp and abs given together"},
		{"abp,abw", "two of the verifiers"},
		{"abp,abp", "abp given twice"},
		{"abs,abp", "two of the verifiers"},
		{"abs8,abs8", "abs given twice"},
		{"abn12,ab12", "two of the verifiers"},
		{"abw,ab", "two of the verifiers"},
		{"abn,abw", "two of the verifiers"},
		{"abw,abw", "abw given twice"},
		{"abn0", `"abn0": depth 0`},
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
