package arena

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// A match's flags give its options with their defaults, each error
// naming its flag; Validate's checks hold as for Match.
func TestMatchFlags(t *testing.T) {
	parse := func(args ...string) *MatchFlags {
		t.Helper()
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f := AddMatchFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f
	}
	o, err := parse().Options()
	if err != nil || o.Games != 100 || o.Seed != 1 || o.Parallel < 1 || o.OpeningPlies != DefaultOpeningPlies || o.MaxPlies != DefaultMaxPlies || o.SPRT != nil {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	o, err = parse("--games", "20", "--parallel", "3", "--seed", "9", "--sprt", "0,30").Options()
	if err != nil || o.Games != 20 || o.Parallel != 3 || o.Seed != 9 || o.SPRT == nil || o.SPRT.Elo1 != 30 {
		t.Errorf("given: %+v, %v", o, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--openings-plies", "0"}, "--openings-plies 0: want at least 1"},
		{[]string{"--max-plies", "0"}, "--max-plies 0: want at least 1"},
		{[]string{"--sprt", "x"}, `--sprt "x": `},
		{[]string{"--games", "7"}, "arena: games = 7: want an even number"},
		{[]string{"--sprt", "0,30", "--threshold", "0.5"}, "choose one gate"},
	} {
		if _, err := parse(c.args...).Options(); err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
}
