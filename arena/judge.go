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
	nums := make([]int, len(recs))
	for i := range nums {
		nums[i] = i + 1
	}
	return judged(recs, nums)
}

// judged is Judged of the games recs, nums their numbers in the file (for
// errors).
func judged(recs []rules.Record, nums []int) (MatchResult, error) {
	var res MatchResult
	if len(recs) == 0 {
		return res, fmt.Errorf("arena: no games to judge")
	}
	var tally Tally
	seen := make(map[int]bool, len(recs))
	for n, rec := range recs {
		g, err := judgedGame(rec)
		if err != nil {
			return MatchResult{}, fmt.Errorf("arena: game %d: %w", nums[n], err)
		}
		a, b := g.White, g.Black
		if !g.AWhite {
			a, b = b, a
		}
		switch {
		case n == 0:
			res.A, res.B = a, b
		case a != res.A || b != res.B:
			return MatchResult{}, fmt.Errorf("arena: game %d (Round %d): players A %q and B %q, but the first game's are %q and %q", nums[n], g.Index+1, a, b, res.A, res.B)
		}
		if seen[g.Index] {
			return MatchResult{}, fmt.Errorf("arena: game %d: Round %d given twice", nums[n], g.Index+1)
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
	term, _ := rec.Tag("Termination")
	if strings.HasPrefix(term, rules.Adjudicated.String()) {
		g.Outcome.Reason = rules.Adjudicated
	}
	if f, ok := parseForfeit(term, g.White, g.Black); ok {
		if w, ok := rec.Result.Winner(); !ok || w != f.Side.Opponent() {
			return g, fmt.Errorf("Round %d: Termination %q, but the result is %s", r, term, rec.Result.PDN())
		}
		g.Outcome.Reason, g.Forfeit = rules.Adjudicated, &f
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
		out.ForfeitsA = out.ForfeitsA.plus(r.ForfeitsA)
		out.ForfeitsB = out.ForfeitsB.plus(r.ForfeitsB)
		out.Discarded += r.Discarded
		out.Pairs.Add(r.Pairs)
	}
	return out, nil
}

// JudgeGames judges the games of a match file as rules.ReadPDNGames reads
// them, so that one bad game does not refuse the file: a game that could
// not be read (an ambiguous or illegal move, a bad tag) or that the text
// ends inside (a file cut short) is left out, and so, once any game is, is
// every game whose pair (the same opening with colours swapped) is not
// among those left, since a match counts whole pairs. left says which games were left out and why, one error each
// naming the game; the result judges the others as Judged does, and err
// is Judged's error for them (or says that no game is left to judge).
func JudgeGames(games []rules.PDNGame) (res MatchResult, left []error, err error) {
	type leftOut struct {
		num int // the game's number in the file
		err error
	}
	var out []leftOut
	var recs []rules.Record
	var nums []int
	for i, g := range games {
		if err := g.Problem(); err != nil {
			out = append(out, leftOut{i + 1, err}) // it names the game
			continue
		}
		recs, nums = append(recs, g.Record), append(nums, i+1)
	}
	if len(out) > 0 {
		// The rounds read, to find the games whose pair was left out.
		rounds := map[int]bool{}
		for _, r := range recs {
			if n, ok := roundOf(r); ok {
				rounds[n] = true
			}
		}
		var keptRecs []rules.Record
		var keptNums []int
		for i, r := range recs {
			if n, ok := roundOf(r); ok && !rounds[pairRound(n)] {
				out = append(out, leftOut{nums[i], fmt.Errorf("game %d: Round %d is left out with its pair, Round %d, which is not among the games read", nums[i], n, pairRound(n))})
				continue
			}
			keptRecs, keptNums = append(keptRecs, r), append(keptNums, nums[i])
		}
		recs, nums = keptRecs, keptNums
		slices.SortFunc(out, func(a, b leftOut) int { return a.num - b.num })
		for _, l := range out {
			left = append(left, l.err)
		}
		if len(recs) == 0 {
			return MatchResult{}, left, fmt.Errorf("arena: none of the %d games is left to judge", len(games))
		}
	}
	res, err = judged(recs, nums)
	return res, left, err
}

// roundOf returns the game number of a match game's Round tag.
func roundOf(rec rules.Record) (int, bool) {
	v, ok := rec.Tag("Round")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 1
}

// pairRound is the Round of the pair of Round n: games 2i-1 and 2i.
func pairRound(n int) int { return (n - 1) ^ 1 + 1 }

// JudgeFiles writes to w the result of each match whose games the PDN
// files hold (JudgeGames), a line each, and with several their pooled
// result (Pool). A game that cannot be read is named ("FILE: left out
// game N: why") and left out with its pair; the others are judged, and
// the error after the results says how many were left out.
func JudgeFiles(w io.Writer, files []string) error {
	var results []MatchResult
	leftOut := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("judge: %w", err)
		}
		res, left, err := JudgeGames(rules.ReadPDNGames(string(text)))
		for _, l := range left {
			fmt.Fprintf(w, "%s: left out %v\n", f, l)
		}
		leftOut += len(left)
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
	if leftOut > 0 {
		return fmt.Errorf("judge: %d games left out (named above), the others judged", leftOut)
	}
	return nil
}
