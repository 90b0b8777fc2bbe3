package card

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"dama/arena"
)

// LadderVisits is the visits per move of a model on the ladder where the
// record has no rating to take them from: dama ladder's default, which
// the card's line to reproduce the rating names.
const LadderVisits = 800

// Markdown returns the card (MODEL.md) of the model r records.
func (r Record) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The shipped model\n\n")
	fmt.Fprintf(&b, "`checkpoints/shipped/dama.ckpt` (no optimizer state) and its ONNX export `dama.onnx`; `dama hub`, `play` and `analyze` use it when no `--model` is given. Written by `dama ship` on %s from revision %s.\n\n", r.Created.Format("2006-01-02"), r.Revision)
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| network | %s, %d parameters |\n", r.Network, r.Parameters)
	fmt.Fprintf(&b, "| training steps | %d |\n", r.Step)
	fmt.Fprintf(&b, "| self-play games | %d |\n", r.Games)
	fmt.Fprintf(&b, "| training positions | %d |\n", r.Positions)
	fmt.Fprintf(&b, "| trainer CPU-hours | %.2f |\n", r.CPUHours)
	fmt.Fprintf(&b, "| wall hours in training stages | %.2f |\n", r.WallHours)
	fmt.Fprintf(&b, "| sha256 of dama.ckpt | `%s` |\n", r.ModelSHA)
	if r.Ladder != nil {
		lr := r.Ladder.Result
		bound := ""
		if lr.AboveTop {
			bound = " (above the top rung: a lower bound)"
		}
		fmt.Fprintf(&b, "| ladder rating at %d visits%s | **%+.0f** [%+.0f, %+.0f] (95%%), %d games, ladder %s%s |\n", r.Ladder.Visits, passedWords(r.Ladder), lr.Elo, lr.Low, lr.High, lr.Games, r.Ladder.Checksum, bound)
	}
	fmt.Fprintf(&b, "\nTraining pieces (each a `dama train` run; a piece started with `--init` from the model shipped before continues it):\n\n")
	fmt.Fprintf(&b, "| run | config | generations | games | positions | CPU-hours | wall hours |\n|---|---|---|---|---|---|---|\n")
	later := false
	for _, p := range r.Pieces {
		gens := strconv.Itoa(p.Generations)
		if p.RunGenerations > p.Generations {
			gens, later = fmt.Sprintf("%d of %d", p.Generations, p.RunGenerations), true
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %.2f | %.2f |\n", p.Run, p.Config, gens, p.Games, p.Positions, p.CPUHours, p.WallHours)
	}
	if later {
		b.WriteString("\nA piece of \"N of M\" generations shipped the candidate of its generation N: the totals count the generations up to it, not the later ones, which trained on from it but are not in the shipped network.\n")
	}
	for _, p := range r.Pieces {
		if len(p.Recipe) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nHow %s's settings changed (its configuration %s from generation 1, then):\n\n", p.Run, p.Config)
		for _, line := range p.Recipe {
			fmt.Fprintf(&b, "- %s\n", line)
		}
	}
	if r.Ladder != nil {
		lr := r.Ladder.Result
		fmt.Fprintf(&b, "\nAgainst the ladder's reference players (MCTS at %d visits%s, paired colours):\n\n", r.Ladder.Visits, passedWords(r.Ladder))
		fmt.Fprintf(&b, "| opponent | its rating | games | score | expected |\n|---|---|---|---|---|\n")
		for _, rr := range lr.Rungs {
			if n := 2 * rr.Pairs.Pairs(); n > 0 {
				fmt.Fprintf(&b, "| %s | %+.0f | %d | %.1f%% | %.1f%% |\n", rr.Rung.Player, rr.Rung.Elo, n, 100*rr.Pairs.Score(), 100*rr.Expected)
			}
		}
		if s := plainStrength(lr, r.Ladder); s != "" {
			fmt.Fprintf(&b, "\nIn plain words: %s\n", s)
		}
	}
	if r.Match != "" {
		fmt.Fprintf(&b, "\nDirect match: `%s`\n", r.Match)
	}
	b.WriteString(ratingCurve(r.Ratings))
	pass := ""
	if r.Ladder != nil && r.Ladder.PassForced {
		pass = " --pass-forced"
	}
	fmt.Fprintf(&b, "\nReproduce the rating: `dama ladder --model checkpoints/shipped/dama.ckpt --visits %d%s`.\n", r.visits(), pass)
	return b.String()
}

// ratingCurve is the card's table of the lineage's ladder ratings against
// its training, with a bar per rating (a block per 100 Elo) so that the
// curve shows in plain text; "" without ratings.
func ratingCurve(rs []Rating) string {
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nStrength against training (the ladder rating of each model shipped in the lineage; a block is 100 Elo):\n\n")
	fmt.Fprintf(&b, "| trainer CPU-hours | wall hours | self-play games | piece | ladder rating [95%%] | search | |\n|---|---|---|---|---|---|---|\n")
	ladders, passed := map[string]bool{}, map[bool]bool{}
	sourced := false
	for _, x := range rs {
		search := fmt.Sprintf("%d visits", x.Visits)
		if x.PassForced {
			search += ", forced moves passed"
		}
		fmt.Fprintf(&b, "| %.2f | %.2f | %d | %s | %+.0f [%+.0f, %+.0f], %d games | %s | %s |\n", x.CPUHours, x.WallHours, x.Games, x.Run, x.Elo, x.Low, x.High, x.RatedGames, search, strings.Repeat("█", max(0, int(math.Round(x.Elo/100)))))
		ladders[x.Ladder], passed[x.PassForced] = true, true
		sourced = sourced || x.Source != ""
	}
	if len(ladders) > 1 {
		b.WriteString("\nThe ratings were made on different ladders (checksums in model.json) and compare only roughly.\n")
	}
	if len(passed) > 1 {
		b.WriteString("\nPassing forced moves adds about 76 Elo to the same network at 800 visits (docs/experiments.md), so the rows searched so are that much higher than the network alone.\n")
	}
	if sourced {
		b.WriteString("\nRatings made before the card kept this table are taken from the cards shipped with those models (model.json names the commits).\n")
	}
	return b.String()
}

// passedWords describes the search of a rating with forced moves passed.
func passedWords(l *Ladder) string {
	if l.PassForced {
		return " (forced moves passed)"
	}
	return ""
}

// visits returns the visits per move of r's rating, or LadderVisits
// without one.
func (r Record) visits() int {
	if r.Ladder != nil {
		return r.Ladder.Visits
	}
	return LadderVisits
}

// plainStrength says, for the strongest rung the model scored at least 50%
// against (with at least 8 games), how it did, naming the search (visits,
// forced moves passed) so the sentence can be quoted alone.
func plainStrength(lr arena.LadderResult, l *Ladder) string {
	best := -1
	for i, rr := range lr.Rungs {
		if 2*rr.Pairs.Pairs() >= 8 && rr.Pairs.Score() >= 0.5 {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	rr := lr.Rungs[best]
	s := fmt.Sprintf("at %d visits%s it scores %.0f%% against %s (%d games)", l.Visits, passedWords(l), 100*rr.Pairs.Score(), rr.Rung.Player, 2*rr.Pairs.Pairs())
	if best+1 < len(lr.Rungs) && lr.Rungs[best+1].Pairs.Pairs() > 0 {
		up := lr.Rungs[best+1]
		s += fmt.Sprintf(" and %.0f%% against %s (%d games)", 100*up.Pairs.Score(), up.Rung.Player, 2*up.Pairs.Pairs())
	}
	return s + "."
}
