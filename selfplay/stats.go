package selfplay

import (
	"fmt"

	"dama/rules"
)

// Stats sums up finished games: their results, how they ended, and the
// resignations checked by playing on.
type Stats struct {
	Games, Positions, White, Draws, Black int
	Resigned, Capped, Tabled              int // ended by resignation, at the length cap, by the tables
	Checked, FalseResign                  int // resignations played out, and those the resigner did not lose
}

// Add counts the finished game g.
func (s *Stats) Add(g *Game) {
	s.Games++
	s.Positions += len(g.Plies)
	switch g.Result {
	case rules.WhiteWins:
		s.White++
	case rules.BlackWins:
		s.Black++
	default:
		s.Draws++
	}
	switch g.End {
	case Resigned:
		s.Resigned++
	case LengthCap:
		s.Capped++
	case Tables:
		s.Tabled++
	}
	if ok, f := g.FalseResignation(); ok {
		s.Checked++
		if f {
			s.FalseResign++
		}
	}
}

// MeanLength is the mean number of plies a game.
func (s *Stats) MeanLength() float64 {
	if s.Games == 0 {
		return 0
	}
	return float64(s.Positions) / float64(s.Games)
}

// Shares is the White/draw/Black shares in whole percents ("48/30/22%"),
// "-" before any game.
func (s *Stats) Shares() string {
	if s.Games == 0 {
		return "-"
	}
	pc := func(n int) int { return (100*n + s.Games/2) / s.Games }
	return fmt.Sprintf("%d/%d/%d%%", pc(s.White), pc(s.Draws), pc(s.Black))
}

// Summary says the shares and how the games ended, in words.
func (s *Stats) Summary() string {
	out := fmt.Sprintf("White/draw/Black %s, %d resigned, %d at the length cap", s.Shares(), s.Resigned, s.Capped)
	if s.Tabled > 0 {
		out += fmt.Sprintf(", %d adjudicated by the tables", s.Tabled)
	}
	if s.Checked > 0 {
		out += fmt.Sprintf(", false resignations %d of %d checked", s.FalseResign, s.Checked)
	}
	return out
}
