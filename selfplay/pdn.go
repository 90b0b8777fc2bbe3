package selfplay

import (
	"fmt"
	"io"
	"strconv"

	"dama/rules"
)

// Record returns g as a PDN game record with tags Event, Seed,
// Result and Termination, and any extra tags after them.
func (g *Game) Record(extra ...rules.Tag) rules.Record {
	tags := []rules.Tag{
		{Name: "Event", Value: "dama self-play"},
		{Name: "Seed", Value: strconv.FormatUint(g.Seed, 10)},
		{Name: "Result", Value: g.Result.String()},
		{Name: "Termination", Value: g.End.String()},
	}
	if g.NoResign {
		tags = append(tags, rules.Tag{Name: "NoResign", Value: "1"})
	}
	if g.WouldResign >= 0 {
		tags = append(tags, rules.Tag{Name: "WouldResign", Value: strconv.Itoa(g.WouldResign)})
	}
	tags = append(tags, extra...)
	return rules.Record{Tags: tags, Start: g.Start, Moves: g.Moves(), Result: g.Result}
}

// WritePDN writes games as PDN (see rules.WritePDN).
func WritePDN(w io.Writer, games ...*Game) error {
	recs := make([]rules.Record, len(games))
	for i, g := range games {
		recs[i] = g.Record()
	}
	if err := rules.WritePDN(w, recs...); err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	return nil
}
