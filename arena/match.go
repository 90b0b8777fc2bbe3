package arena

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"dama/rules"
)

// Defaults for zero MatchOptions fields.
const (
	DefaultOpeningPlies = 6
	DefaultMaxPlies     = 300
)

// MatchOptions configures Match. A zero field means its documented default.
type MatchOptions struct {
	// Games is the most games to play, even and positive: Games/2 pairs,
	// each opening once with A as White and once with A as Black.
	Games int
	// Parallel is the number of games played at the same time (default 1).
	Parallel int
	// Seed draws the openings and seeds each player's rng in each game.
	// Game i gets the same seeds whatever Parallel is.
	Seed int64
	// Openings are the start positions; pair i plays Openings[i%len]. When
	// empty, Games/2 distinct openings are drawn with randomOpenings from Seed.
	Openings []rules.Position
	// OpeningPlies is the number of random plies of drawn openings
	// (default DefaultOpeningPlies).
	OpeningPlies int
	// MaxPlies caps a game's length (plies after the opening); a game that
	// reaches it is adjudicated a draw, marked so in its outcome
	// (default DefaultMaxPlies).
	MaxPlies int
	// SPRT, when set, is checked after every finished pair and stops the
	// match when it accepts or rejects A.
	SPRT *SPRT
	// Threshold, when positive, accepts A if its score over all Games is at
	// least Threshold (0..1) and rejects it otherwise. The match stops as
	// soon as the games left cannot change the verdict (a clear win or loss
	// costs few games). Not together with SPRT.
	Threshold float64
	// OnGame, when set, is called after each finished game, from the
	// goroutine that called Match, one call at a time (for progress bars and
	// logs). It is not called for games finished after the SPRT stopped the
	// match.
	OnGame func(GameResult)
}

// Validate reports what is wrong with o, as Match would before playing,
// so that a caller can refuse it before printing anything.
func (o MatchOptions) Validate() error { return o.validate() }

// validate checks o and fills in defaults.
func (o *MatchOptions) validate() error {
	if o.Games <= 0 || o.Games%2 != 0 {
		return fmt.Errorf("arena: games = %d: want an even number > 0 (each opening is played with both colours)", o.Games)
	}
	if o.Parallel < 0 {
		return fmt.Errorf("arena: parallel = %d: want >= 0 (0 means 1)", o.Parallel)
	}
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if o.OpeningPlies < 0 {
		return fmt.Errorf("arena: opening plies = %d: want >= 0 (0 means %d)", o.OpeningPlies, DefaultOpeningPlies)
	}
	if o.OpeningPlies == 0 {
		o.OpeningPlies = DefaultOpeningPlies
	}
	if o.MaxPlies < 0 {
		return fmt.Errorf("arena: max plies = %d: want >= 0 (0 means %d)", o.MaxPlies, DefaultMaxPlies)
	}
	if o.MaxPlies == 0 {
		o.MaxPlies = DefaultMaxPlies
	}
	if o.SPRT != nil {
		if err := o.SPRT.Validate(); err != nil {
			return err
		}
		if o.Threshold != 0 {
			return fmt.Errorf("arena: threshold = %v with an SPRT: choose one gate", o.Threshold)
		}
	}
	if o.Threshold < 0 || o.Threshold > 1 || math.IsNaN(o.Threshold) {
		return fmt.Errorf("arena: threshold = %v: want a score in (0,1], or 0 for none", o.Threshold)
	}
	for i, p := range o.Openings {
		if !p.HasMoves() {
			return fmt.Errorf("arena: opening %d (%s): the side to move has no move", i, p.FEN())
		}
	}
	return nil
}

// GameResult is one finished game of a match.
type GameResult struct {
	Index        int  // 0..Games-1; games 2i and 2i+1 form pair i
	AWhite       bool // player A had White
	White, Black string
	Start        rules.Position
	Moves        []rules.Move
	Outcome      rules.Outcome // Reason Adjudicated for the length cap and a forfeit
	ScoreA       float64       // A's points: 1, 0.5 or 0
	// Forfeit, if not nil, is the fault that lost the game (its outcome
	// then an adjudicated win for the other side).
	Forfeit *Forfeit
}

// Record returns the game as a PDN record with tags White, Black, Round
// (Index+1), Opening (the pair's number, Index/2+1: both games of a pair
// start from that opening, whose position the FEN tag gives) and
// Termination (why it ended; the note of an adjudication; for a forfeit,
// Forfeit.Termination: who lost by which fault).
func (g GameResult) Record() rules.Record {
	term := g.Outcome.Reason.String()
	if g.Outcome.Note != "" {
		term += ": " + g.Outcome.Note
	}
	if g.Forfeit != nil {
		term = g.Forfeit.Termination()
	}
	return rules.Record{
		Tags: []rules.Tag{
			{Name: "White", Value: g.White},
			{Name: "Black", Value: g.Black},
			{Name: "Round", Value: strconv.Itoa(g.Index + 1)},
			{Name: "Opening", Value: strconv.Itoa(g.Index/2 + 1)},
			{Name: "Termination", Value: term},
		},
		Start:  g.Start,
		Moves:  g.Moves,
		Result: g.Outcome.Result,
	}
}

// MatchResult summarises a match from player A's point of view. Only
// complete pairs are counted.
type MatchResult struct {
	A, B                string
	Wins, Draws, Losses int
	Pairs               Pentanomial
	Adjudicated         int     // counted games that hit the length cap
	Discarded           int     // games finished but not counted: their pair was cut off by the SPRT stop
	Verdict             Verdict // Inconclusive when there is no gate
	Stopped             bool    // the SPRT ended the match before all games
	LLR                 float64 // the SPRT's last log-likelihood ratio (0 without one)
	Lower, Upper        float64 // the SPRT's bounds (0 without one)
	// ForfeitsA and ForfeitsB count the counted games A and B lost by a
	// Fault, by its kind.
	ForfeitsA, ForfeitsB FaultCount
}

// Games returns the number of games counted.
func (r MatchResult) Games() int { return r.Wins + r.Draws + r.Losses }

// Score returns A's mean score per counted game (0.5 with none).
func (r MatchResult) Score() float64 { return r.Pairs.Score() }

// Estimate returns A's Elo difference over B, its interval and LOS.
func (r MatchResult) Estimate() Estimate { return r.Pairs.Estimate() }

// String is the one-line summary, e.g.
// "alphabeta:4 vs alphabeta:2: games 40 +35 =2 -3 score 90.0% elo +381.7 [+228.1, +1345.0] (LOS 100.0%) verdict inconclusive".
func (r MatchResult) String() string {
	s := fmt.Sprintf("%s vs %s: games %d +%d =%d -%d score %.1f%% elo %s verdict %s",
		r.A, r.B, r.Games(), r.Wins, r.Draws, r.Losses, 100*r.Score(), r.Estimate(), r.Verdict)
	if r.Lower != 0 || r.Upper != 0 {
		s += fmt.Sprintf(" (LLR %.2f in [%.2f, %.2f])", r.LLR, r.Lower, r.Upper)
	}
	if r.Adjudicated > 0 {
		s += fmt.Sprintf(" adjudicated %d", r.Adjudicated)
	}
	for _, f := range []struct {
		name string
		c    FaultCount
	}{{r.A, r.ForfeitsA}, {r.B, r.ForfeitsB}} {
		if n := f.c.Total(); n > 0 {
			s += fmt.Sprintf(" forfeits by %s %d (%s)", f.name, n, f.c)
		}
	}
	return s
}

// Match plays a against b and judges the result. Games run in opts.Parallel
// goroutines; each game's players get rngs derived from opts.Seed and the
// game's index only, so with deterministic players every game is the same
// whatever the parallelism, and with Parallel 1 the whole match (early stop
// included) repeats exactly.
func Match(ctx context.Context, a, b Player, opts MatchOptions) (MatchResult, error) {
	if err := opts.validate(); err != nil {
		return MatchResult{}, err
	}
	res := MatchResult{A: a.Name(), B: b.Name()}
	pairs := opts.Games / 2
	openings := opts.Openings
	if len(openings) == 0 {
		var err error
		openings, err = randomOpenings(pairs, opts.OpeningPlies, seededRNG(opts.Seed, 0x6f70656e696e6773))
		if err != nil {
			return res, err
		}
	}
	if opts.SPRT != nil {
		res.Lower, res.Upper = opts.SPRT.Bounds()
	}

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		r   GameResult
		err error
	}
	jobs := make(chan int)
	results := make(chan done)
	var wg sync.WaitGroup
	// A game's error travels with the results, in the order the collector
	// judges them: a failure after the verdict is no error of the match.
	for range opts.Parallel {
		wg.Go(func() {
			for i := range jobs {
				r, err := playGame(ctx, a, b, i, openings[(i/2)%len(openings)], opts.Seed, opts.MaxPlies)
				results <- done{r, err}
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := range opts.Games {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	var firstErr error
	stopped := false
	var tally Tally
	for d := range results {
		if stopped || firstErr != nil {
			continue // drain
		}
		if d.err != nil {
			firstErr = d.err
			cancel()
			continue
		}
		if opts.OnGame != nil {
			opts.OnGame(d.r)
		}
		other, ok := tally.Add(d.r)
		if !ok {
			continue
		}
		res.countPair(&tally, other, d.r)
		if opts.Threshold > 0 {
			// Stop as soon as the games left cannot change the verdict.
			done := res.Pairs.Pairs()
			got, _ := points(res.Pairs)
			total := float64(2 * pairs)
			left := float64(2 * (pairs - done))
			switch {
			case got/total >= opts.Threshold:
				res.Verdict = Accept
			case (got+left)/total < opts.Threshold:
				res.Verdict = Reject
			}
			if res.Verdict != Inconclusive {
				res.Stopped = done < pairs
				stopped = true
				cancel()
			}
		}
		if opts.SPRT != nil {
			res.LLR = opts.SPRT.LLR(res.Pairs)
			if v := opts.SPRT.Verdict(res.Pairs); v != Inconclusive {
				res.Verdict = v
				res.Stopped = res.Pairs.Pairs() < pairs
				stopped = true
				cancel()
			}
		}
	}
	if firstErr != nil {
		return res, firstErr
	}
	if err := parent.Err(); err != nil && !stopped {
		return res, err
	}
	res.Discarded = tally.Unpaired
	return res, nil
}

// countPair counts a pair of games the tally has just completed, other
// and g, into r: the tally's games, the pair's points, adjudications.
func (r *MatchResult) countPair(t *Tally, other, g GameResult) {
	r.Wins, r.Draws, r.Losses = t.Wins, t.Draws, t.Losses
	for _, x := range []GameResult{other, g} {
		switch {
		case x.Forfeit != nil && (x.Forfeit.Side == rules.White) == x.AWhite:
			r.ForfeitsA.Add(x.Forfeit.Fault.Kind, 1)
		case x.Forfeit != nil:
			r.ForfeitsB.Add(x.Forfeit.Fault.Kind, 1)
		case x.Outcome.Reason == rules.Adjudicated:
			r.Adjudicated++
		}
	}
	r.Pairs[int(math.Round(2*(other.ScoreA+g.ScoreA)))]++
}

// Tally counts the finished games of a match as Match counts them, so that
// a progress display agrees with the result: a game counts once the other
// game of its pair (the same opening, colours swapped) has finished; until
// then it is unpaired, and a match that stops early never counts it.
type Tally struct {
	Wins, Draws, Losses int // A's counted games
	Unpaired            int // finished games whose pair has not finished
	half                map[int]GameResult
}

// Add takes a finished game. When it completes its pair, both games are
// counted and Add returns the pair's other game and true.
func (t *Tally) Add(g GameResult) (other GameResult, paired bool) {
	pair := g.Index / 2
	other, ok := t.half[pair]
	if !ok {
		if t.half == nil {
			t.half = make(map[int]GameResult)
		}
		t.half[pair] = g
		t.Unpaired++
		return GameResult{}, false
	}
	delete(t.half, pair)
	t.Unpaired--
	for _, s := range []float64{other.ScoreA, g.ScoreA} {
		switch {
		case s > 0.5:
			t.Wins++
		case s < 0.5:
			t.Losses++
		default:
			t.Draws++
		}
	}
	return other, true
}

// String is the counted games, with the unpaired ones when there are any:
// "+6 =0 -0", "+6 =0 -0 (1 unpaired game not counted)".
func (t Tally) String() string {
	s := fmt.Sprintf("+%d =%d -%d", t.Wins, t.Draws, t.Losses)
	switch t.Unpaired {
	case 0:
	case 1:
		s += " (1 unpaired game not counted)"
	default:
		s += fmt.Sprintf(" (%d unpaired games not counted)", t.Unpaired)
	}
	return s
}

// playGame plays game i of a match from start: A has White in even games.
// A player's Fault (from Start or Move) loses it the game (GameResult.Forfeit);
// any other error ends the match.
func playGame(ctx context.Context, a, b Player, i int, start rules.Position, seed int64, maxPlies int) (GameResult, error) {
	aWhite := i%2 == 0
	white, black := a, b
	if !aWhite {
		white, black = b, a
	}
	r := GameResult{Index: i, AWhite: aWhite, White: white.Name(), Black: black.Name(), Start: start}
	g := rules.NewGame(start)
	// forfeit ends the game, lost by side's player for its fault.
	forfeit := func(side rules.Color, pl Player, f *Fault) {
		r.Forfeit = &Forfeit{Side: side, Player: pl.Name(), Fault: *f}
		g.Adjudicate(rules.WinFor(side.Opponent()), r.Forfeit.Termination())
	}
	var gps [2]GamePlayer
	for k, pl := range []Player{white, black} {
		gp, err := pl.Start(ctx, g, seededRNG(seed, uint64(2*i+k)))
		if f, ok := AsFault(err); ok && ctx.Err() == nil {
			forfeit(rules.Color(k), pl, f)
			break
		}
		if err != nil {
			return r, fmt.Errorf("arena: game %d: starting %s: %w", i, pl.Name(), err)
		}
		gps[k] = gp
		defer gp.Close()
	}
	for !g.Outcome().Over() {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		if g.Ply() >= maxPlies {
			g.Adjudicate(rules.Draw, fmt.Sprintf("length cap %d plies", maxPlies))
			break
		}
		side := g.Position().Side()
		gp, pl := gps[0], white
		if side == rules.Black {
			gp, pl = gps[1], black
		}
		m, err := gp.Move(ctx, g)
		if f, ok := AsFault(err); ok && ctx.Err() == nil {
			forfeit(side, pl, f)
			break
		}
		if err != nil {
			return r, fmt.Errorf("arena: game %d, ply %d: %s: %w", i, g.Ply(), pl.Name(), err)
		}
		if err := g.Play(m); err != nil {
			return r, fmt.Errorf("arena: game %d, ply %d: %s played %s: %w", i, g.Ply(), pl.Name(), m, err)
		}
	}
	r.Moves = append([]rules.Move(nil), g.Moves()...)
	r.Outcome = g.Outcome()
	r.ScoreA = 0.5
	if c, ok := r.Outcome.Result.Winner(); ok {
		r.ScoreA = 0
		if (c == rules.White) == aWhite {
			r.ScoreA = 1
		}
	}
	return r, nil
}

// seededRNG returns a rng for stream k of seed, mixing both with splitmix64
// so that nearby seeds and streams give unrelated sequences.
func seededRNG(seed int64, k uint64) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix(uint64(seed)^splitmix(k)), splitmix(k+0x9E3779B97F4A7C15)))
}

func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}
