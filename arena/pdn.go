package arena

import (
	"fmt"
	"io"
	"slices"

	"dama/internal/atomicfile"
	"dama/rules"
)

// countedRecords returns the games of whole pairs among games (both games of
// the pair finished), in game order, as PDN records: the games a match
// result counts, since Match counts a game only once the other game of its
// pair has finished, and a pair cut off by an early stop (SPRT or
// threshold) is never counted. Each record carries tags first (an Event,
// a Site, a generation), then those of GameResult.Record. games is not
// changed.
func countedRecords(games []GameResult, tags ...rules.Tag) []rules.Record {
	pairs := map[int]int{}
	for _, g := range games {
		pairs[g.Index/2]++
	}
	sorted := slices.Clone(games)
	slices.SortStableFunc(sorted, func(x, y GameResult) int { return x.Index - y.Index })
	recs := make([]rules.Record, 0, len(sorted))
	for _, g := range sorted {
		if pairs[g.Index/2] != 2 {
			continue
		}
		r := g.Record()
		r.Tags = append(slices.Clone(tags), r.Tags...)
		recs = append(recs, r)
	}
	return recs
}

// WriteCounted writes the games of games that a result counts
// (countedRecords with tags) to path as PDN, through a temporary file
// renamed into place. counted is the number of games the result counts:
// a different number of whole pairs is an error, and nothing is written.
func WriteCounted(path string, games []GameResult, counted int, tags ...rules.Tag) error {
	recs := countedRecords(games, tags...)
	if len(recs) != counted {
		return fmt.Errorf("arena: %s: %d whole pairs of games recorded, the result counts %d games", path, len(recs)/2, counted)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return rules.WritePDN(w, recs...) })
}
