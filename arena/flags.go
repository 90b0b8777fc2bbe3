package arena

import (
	"flag"
	"fmt"
	"runtime"
)

// MatchFlags are a match's flags on a command line (AddMatchFlags): the
// options they set, and the SPRT as written.
type MatchFlags struct {
	MatchOptions
	SPRT string
}

// AddMatchFlags declares on fs the flags of a match: --games, --parallel
// (default one game a CPU), --seed, --openings-plies, --max-plies, --sprt
// and --threshold.
func AddMatchFlags(fs *flag.FlagSet) *MatchFlags {
	f := &MatchFlags{}
	fs.IntVar(&f.Games, "games", 100, "most games to play, even: each opening is played with both colours")
	fs.IntVar(&f.Parallel, "parallel", runtime.NumCPU(), "games played at once")
	fs.Int64Var(&f.Seed, "seed", 1, "seed of the openings and the players' randomness")
	fs.IntVar(&f.OpeningPlies, "openings-plies", DefaultOpeningPlies, "random plies from the start that make each opening")
	fs.IntVar(&f.MaxPlies, "max-plies", DefaultMaxPlies, "length cap of a game, adjudicated a draw")
	fs.StringVar(&f.SPRT, "sprt", "", "stop early with an SPRT of ELO0 against ELO1 (alpha and beta, each in (0,0.5], default to 0.05), e.g. 0,30")
	fs.Float64Var(&f.Threshold, "threshold", 0, "accept A when its score over all games is at least this (0..1); 0 for none")
	return f
}

// Options returns the options the flags give, checked as Match checks
// them (Validate), each error naming its flag where it is one flag's:
// at least one opening ply and one ply a game, the SPRT parsed.
func (f *MatchFlags) Options() (MatchOptions, error) {
	o := f.MatchOptions
	switch {
	case o.OpeningPlies < 1:
		return o, fmt.Errorf("--openings-plies %d: want at least 1", o.OpeningPlies)
	case o.MaxPlies < 1:
		return o, fmt.Errorf("--max-plies %d: want at least 1", o.MaxPlies)
	}
	if f.SPRT != "" {
		t, err := ParseSPRT(f.SPRT)
		if err != nil {
			return o, fmt.Errorf("--sprt %q: %w", f.SPRT, err)
		}
		o.SPRT = &t
	}
	return o, o.Validate()
}
