package arena

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"dama/rules"
)

// Judged rebuilds the result of a match from the PDN records of its games
// as WriteCounted writes them (dama arena --pdn): the Round tag numbers
// the games from 1 (games 2i-1 and 2i, counted from 1, are a pair, the
// same opening with colours swapped; player A has White in the odd ones),
// White and Black name the players, the result gives A's points and a
// Termination that begins "adjudicated" counts the game as adjudicated.
// The records may come in any order, but every game must have its pair
// and a decided result, and every game the same two players: otherwise an
// error names the game. The result has no verdict (Inconclusive).
func Judged(recs []rules.Record) (MatchResult, error) {
	var res MatchResult
	if len(recs) == 0 {
		return res, fmt.Errorf("arena: no games to judge")
	}
	var tally Tally
	seen := make(map[int]bool, len(recs))
	for n, rec := range recs {
		g, err := judgedGame(rec)
		if err != nil {
			return MatchResult{}, fmt.Errorf("arena: game %d: %w", n+1, err)
		}
		a, b := g.White, g.Black
		if !g.AWhite {
			a, b = b, a
		}
		switch {
		case n == 0:
			res.A, res.B = a, b
		case a != res.A || b != res.B:
			return MatchResult{}, fmt.Errorf("arena: game %d (Round %d): players A %q and B %q, but the first game's are %q and %q", n+1, g.Index+1, a, b, res.A, res.B)
		}
		if seen[g.Index] {
			return MatchResult{}, fmt.Errorf("arena: game %d: Round %d given twice", n+1, g.Index+1)
		}
		seen[g.Index] = true
		if other, ok := tally.Add(g); ok {
			res.countPair(&tally, other, g)
		}
	}
	if tally.Unpaired > 0 {
		// The tally holds the games still waiting for their pair: name
		// the first.
		i := tally.half[slices.Min(slices.Collect(maps.Keys(tally.half)))].Index
		return MatchResult{}, fmt.Errorf("arena: Round %d has no pair: Round %d, the same opening with colours swapped, is missing (%d games without their pair)", i+1, i^1+1, tally.Unpaired)
	}
	return res, nil
}

// judgedGame reads the game of a match that rec records (Judged).
func judgedGame(rec rules.Record) (GameResult, error) {
	var g GameResult
	round, ok := rec.Tag("Round")
	if !ok {
		return g, fmt.Errorf("no Round tag: not a game of dama arena --pdn")
	}
	r, err := strconv.Atoi(round)
	if err != nil || r < 1 {
		return g, fmt.Errorf("Round %q: want a game number from 1", round)
	}
	g.Index, g.AWhite = r-1, (r-1)%2 == 0
	if op, ok := rec.Tag("Opening"); ok && op != strconv.Itoa(g.Index/2+1) {
		return g, fmt.Errorf("Round %d: Opening %q, want %d (games 2i-1 and 2i share opening i)", r, op, g.Index/2+1)
	}
	for _, t := range []struct {
		name string
		to   *string
	}{{"White", &g.White}, {"Black", &g.Black}} {
		v, ok := rec.Tag(t.name)
		if !ok || v == "" {
			return g, fmt.Errorf("Round %d: no %s tag: the player is unknown", r, t.name)
		}
		*t.to = v
	}
	aSide := rules.White
	if !g.AWhite {
		aSide = rules.Black
	}
	switch w, decided := rec.Result.Winner(); {
	case rec.Result == rules.Draw:
		g.ScoreA = 0.5
	case !decided:
		return g, fmt.Errorf("Round %d: result %s: the game is not finished", r, rec.Result.PDN())
	case w == aSide:
		g.ScoreA = 1
	}
	g.Outcome.Result = rec.Result
	if term, _ := rec.Tag("Termination"); strings.HasPrefix(term, rules.Adjudicated.String()) {
		g.Outcome.Reason = rules.Adjudicated
	}
	return g, nil
}

// Pool adds up the results of matches between the same two players (A
// and B named alike in each) into one: their games, pairs and
// adjudications, judged together. The pooled result has no verdict.
func Pool(results ...MatchResult) (MatchResult, error) {
	if len(results) == 0 {
		return MatchResult{}, fmt.Errorf("arena: no results to pool")
	}
	out := MatchResult{A: results[0].A, B: results[0].B}
	for i, r := range results {
		if r.A != out.A || r.B != out.B {
			return MatchResult{}, fmt.Errorf("arena: result %d is %s vs %s, not %s vs %s: only matches between the same players pool", i+1, r.A, r.B, out.A, out.B)
		}
		out.Wins += r.Wins
		out.Draws += r.Draws
		out.Losses += r.Losses
		out.Adjudicated += r.Adjudicated
		out.Discarded += r.Discarded
		out.Pairs.Add(r.Pairs)
	}
	return out, nil
}

// JudgeFiles writes to w the result of each match whose games the PDN
// files hold (Judged), a line each, and with several their pooled result
// (Pool).
func JudgeFiles(w io.Writer, files []string) error {
	var results []MatchResult
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("judge: %w", err)
		}
		recs, err := rules.ParsePDN(string(text))
		if err != nil {
			return fmt.Errorf("judge %s: %w", f, err)
		}
		res, err := Judged(recs)
		if err != nil {
			return fmt.Errorf("judge %s: %w", f, err)
		}
		results = append(results, res)
		fmt.Fprintf(w, "%s: %s\n", f, res)
	}
	if len(results) > 1 {
		res, err := Pool(results...)
		if err != nil {
			return fmt.Errorf("judge: %w", err)
		}
		fmt.Fprintf(w, "pooled, %d matches: %s\n", len(results), res)
	}
	return nil
}
