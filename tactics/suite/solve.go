package suite

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"dama/arena"
	"dama/rules"
)

// Answer is a player's move on one suite position.
type Answer struct {
	Index  int        // the position's index in the suite
	Move   rules.Move // the move the player chose
	Solved bool       // Move is one of the position's best moves
	// Won is Solved, or Move is one of the position's proven slower wins
	// (Position.Wins).
	Won bool
	// Fault, if not nil, is why the player gave no move (an external
	// engine's crash, hang, illegal or garbled move): the position is
	// missed.
	Fault *arena.Fault
}

// Score is a player's result on a suite.
type Score struct {
	Player  string
	Answers []Answer // in suite order
	Solved  int
	// Won counts the answers that solved the position or played another
	// proven win (Answer.Won); equal to Solved on a suite not audited.
	Won int
	// Forfeits counts the positions missed by a Fault, by kind.
	Forfeits arena.FaultCount
}

// Fraction returns the fraction of positions solved.
func (s Score) Fraction() float64 {
	if len(s.Answers) == 0 {
		return 0
	}
	return float64(s.Solved) / float64(len(s.Answers))
}

// Describe says the answer on its position of s: solved, won slower or
// missed, the move played, the best and the FEN.
func (a Answer) Describe(s *Suite) string {
	t := s.Positions[a.Index]
	mark := "missed"
	switch {
	case a.Fault != nil:
		return fmt.Sprintf("%3d missed: no move, %v (%s)", a.Index+1, a.Fault, t.FEN)
	case a.Solved:
		mark = "solved"
	case a.Won:
		mark = "won slower"
	}
	return fmt.Sprintf("%3d %s: played %s, best %s (%s)", a.Index+1, mark, a.Move, strings.Join(t.Best, " or "), t.FEN)
}

// Describe says the score on s: the positions solved and, on an audited
// suite, those won counting the slower wins and how they were proven.
func (sc Score) Describe(s *Suite) string {
	out := fmt.Sprintf("%s: solved %d of %d (%.1f%%)", sc.Player, sc.Solved, len(sc.Answers), 100*sc.Fraction())
	if s.AuditDepth > 0 {
		out += fmt.Sprintf("; %d (%.1f%%) counting the slower wins proven at depth %d", sc.Won, 100*float64(sc.Won)/float64(len(sc.Answers)), s.AuditDepth)
		if s.AuditTables > 0 {
			out += fmt.Sprintf(" or by the tables of up to %d pieces", s.AuditTables)
		}
	}
	if n := sc.Forfeits.Total(); n > 0 {
		out += fmt.Sprintf("; %d missed by the player's faults (%s)", n, sc.Forfeits)
	}
	return out
}

// WriteScore scores player on suite (Solve) and writes the line of its
// score to w, after a line for each position's answer with verbose.
func WriteScore(ctx context.Context, w io.Writer, suite *Suite, player arena.Player, parallel int, seed uint64, verbose bool) error {
	var done func(Answer)
	if verbose {
		done = func(a Answer) { fmt.Fprintf(w, "  %s\n", a.Describe(suite)) }
	}
	sc, err := Solve(ctx, suite, player, parallel, seed, done)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, sc.Describe(suite))
	return nil
}

// Solve asks player for its move in every position of suite, each as a
// fresh game from its FEN, parallel positions at a time (each with its own
// game player; a timed player is timed by the wall clock, so parallel
// above 1 on a busy machine gives it less). rng seeds each game's player.
// done, if not nil, is called after each position.
func Solve(ctx context.Context, suite *Suite, player arena.Player, parallel int, seed uint64, done func(Answer)) (Score, error) {
	sc := Score{Player: player.Name(), Answers: make([]Answer, len(suite.Positions))}
	errs := make([]error, len(suite.Positions))
	var mu sync.Mutex
	err := eachPosition(ctx, len(suite.Positions), parallel, func() func(int) {
		return func(i int) {
			a, err := solveOne(ctx, suite.Positions[i], player, rand.New(rand.NewPCG(seed, uint64(i))))
			a.Index = i
			errs[i] = err
			sc.Answers[i] = a
			if err == nil && done != nil {
				mu.Lock()
				done(a)
				mu.Unlock()
			}
		}
	})
	if err != nil {
		return Score{}, err
	}
	for i, err := range errs {
		if err != nil {
			return Score{}, fmt.Errorf("tactics: position %d: %w", i+1, err)
		}
		if sc.Answers[i].Solved {
			sc.Solved++
		}
		if sc.Answers[i].Won {
			sc.Won++
		}
		if f := sc.Answers[i].Fault; f != nil {
			sc.Forfeits.Add(f.Kind, 1)
		}
	}
	return sc, nil
}

func solveOne(ctx context.Context, p Position, player arena.Player, rng *rand.Rand) (Answer, error) {
	pos, best, wins, err := p.parsed()
	if err != nil {
		return Answer{}, err
	}
	g := rules.NewGame(pos)
	gp, err := player.Start(ctx, g, rng)
	if f, ok := arena.AsFault(err); ok && ctx.Err() == nil {
		return Answer{Fault: f}, nil
	}
	if err != nil {
		return Answer{}, err
	}
	defer gp.Close()
	m, err := gp.Move(ctx, g)
	if f, ok := arena.AsFault(err); ok && ctx.Err() == nil {
		return Answer{Fault: f}, nil
	}
	if err != nil {
		return Answer{}, err
	}
	solved := slices.Contains(best, m)
	return Answer{Move: m, Solved: solved, Won: solved || slices.Contains(wins, m)}, nil
}

// eachPosition runs the job of every index 0..n-1 on parallel goroutines
// (at least one), each with its own job function from newJob (which may
// hold a goroutine's state), and returns ctx's error if it was cancelled
// (the indices not started by then are skipped).
func eachPosition(ctx context.Context, n, parallel int, newJob func() func(i int)) error {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		job := newJob()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				job(i)
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return ctx.Err()
}
