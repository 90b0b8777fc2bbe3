package arena

import (
	"context"
	"testing"

	"dama/arena/classic"
)

// BenchmarkClassicThreatExtension measures what the threat extension is
// worth: the engine with it against the engine without it, both at the same
// node count per move, over 100 games (50 paired openings) per iteration.
// It reports A's score and Elo; run it with -benchtime 1x.
func BenchmarkClassicThreatExtension(b *testing.B) {
	lim := classic.Limits{Nodes: 20000}
	with := classicPlayer{Limits: lim}
	without := classicPlayer{Limits: lim, Options: classic.Options{NoThreatExtension: true}}
	for b.Loop() {
		res, err := Match(context.Background(), with, without, MatchOptions{Games: 100, Parallel: 2, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(100*res.Score(), "score%")
		b.ReportMetric(res.Estimate().Elo, "elo")
		b.Logf("%v", res)
	}
}
