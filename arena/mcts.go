package arena

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"dama/engine"
	"dama/mcts"
	"dama/rules"
	"dama/tb"
)

// MCTSPlayer plays with a PUCT search over an evaluator, usually a network.
// It plays the most visited move, without root noise, reusing its tree
// between moves of a game. A player with a Time searches with the Hub
// engine's searcher (engine.Searcher), which keeps its time limit. With
// endgame tables as the oracle (Options.Oracle a tb.Oracle) it plays their
// moves in table positions (tb.Tables.Choose).
type MCTSPlayer struct {
	Label     string         // Name of the player
	Evaluator mcts.Evaluator // shared by all its games; must be safe for concurrent use
	Visits    int            // root visits per move (> 0 unless Time is set)
	// Time is the wall-clock time per move (0: none), kept as the Hub
	// engine keeps move-time (engine.Limits.Time) but spent whole, without
	// the Hub's safety margin (WholeTime), as the classic engine spends
	// its time; with Visits too, the first limit reached ends the search.
	// A timed player always plays the most visited move (Temperature is
	// ignored).
	Time time.Duration
	// CPUTime counts Time in CPU time of the thread that plays the move,
	// not wall-clock time (CPUClock; set by WithCPUTime): the search, its
	// forward passes run on the move's goroutine,
	// locked to its thread for the move, so they need one search thread
	// and an Evaluator that evaluates on the calling goroutine (an
	// mcts.BatchEvaluator such as infer.Direct).
	CPUTime bool
	Options mcts.Options // search options (zero: plain PUCT, no FPU reduction); a nil Temperature plays the most visited move
}

// Name returns the player's label.
func (p *MCTSPlayer) Name() string { return p.Label }

// Start begins a game with a fresh search tree.
func (p *MCTSPlayer) Start(ctx context.Context, g *rules.Game, rng *rand.Rand) (GamePlayer, error) {
	if p.Evaluator == nil {
		return nil, errors.New("arena: MCTS player " + p.Label + " has no evaluator")
	}
	if p.Visits <= 0 && p.Time <= 0 {
		return nil, errors.New("arena: MCTS player " + p.Label + " needs a positive visit count or time per move")
	}
	if err := p.Options.Validate(); err != nil {
		return nil, errors.New("arena: MCTS player " + p.Label + ": " + err.Error())
	}
	if p.Time > 0 {
		s := engine.NewSearcher(p.Evaluator, p.Options)
		if p.CPUTime {
			if err := p.cpuReady(); err != nil {
				return nil, err
			}
			s.Clock = CPUClock{}
		}
		return &timeLimitedGame{s: s, lim: engine.Limits{Visits: max(p.Visits, 0), Time: p.Time, WholeTime: true}, cpu: p.CPUTime}, nil
	}
	opt := p.Options
	if opt.Temperature == nil {
		opt.Temperature = func(int) float64 { return 0 }
	}
	mg := &mctsGame{s: mcts.New(p.Evaluator, opt), rng: rng, visits: p.Visits}
	mg.tables = tb.TablesOf(opt.Oracle)
	return mg, nil
}

type mctsGame struct {
	s      *mcts.Search
	rng    *rand.Rand
	visits int
	tables *tb.Tables // endgame tables (the oracle's), whose moves it plays
}

func (m *mctsGame) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	res, err := m.s.Run(ctx, g, mcts.Limit{Visits: m.visits}, m.rng)
	if err != nil {
		return rules.Move{}, err
	}
	return engine.PlayedMove(g, res.Move, m.tables), nil
}

func (m *mctsGame) Close() {}

// timeLimitedGame searches each move within a time limit (MCTSPlayer.Time).
type timeLimitedGame struct {
	s   *engine.Searcher
	lim engine.Limits
	cpu bool // the move holds its thread (MCTSPlayer.CPUTime)
}

func (m *timeLimitedGame) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	return onThread(m.cpu, func() (rules.Move, error) {
		res, err := m.s.Think(ctx, g, m.lim, nil)
		if err != nil {
			return rules.Move{}, err
		}
		return res.Move, nil
	})
}

func (m *timeLimitedGame) Close() {}
