package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"dama/mcts"
	"dama/rules"
)

// PlayOptions configures a game against the engine. Zero fields take the
// documented defaults.
type PlayOptions struct {
	Human      rules.Color     // the side the human plays (default White)
	Start      *rules.Position // the start position (default the initial position)
	Limits     Limits          // the engine's search per move (default DefaultVisits visits)
	Search     mcts.Options
	EngineName string    // name in the PDN tags (default "dama")
	HumanName  string    // name in the PDN tags (default "human")
	Date       time.Time // PDN Date tag (default now)
}

const playHelp = `Commands:
  a move in FID notation: 22-18, 31x22x13x6, or short 31x6 when unambiguous
  moves   list the legal moves
  board   show the board again
  hint    ask the engine for a move
  undo    take back your last move (and the engine's reply)
  resign  give up the game
  help    this text
  quit    stop; the game is saved as it stands
`

// Play runs a game between a human, typing on in, and the engine searching
// with ev, printing to out. It returns the game as a PDN record when the
// game ends, the human resigns or quits, or in ends (a quit). An error is
// returned for a failing search, output or input (a line over 64 KiB
// included).
func Play(ctx context.Context, ev mcts.Evaluator, in io.Reader, out io.Writer, opt PlayOptions) (rules.Record, error) {
	start := rules.Start()
	if opt.Start != nil {
		start = *opt.Start
	}
	if opt.EngineName == "" {
		opt.EngineName = "dama"
	}
	if opt.HumanName == "" {
		opt.HumanName = "human"
	}
	if opt.Date.IsZero() {
		opt.Date = time.Now()
	}
	g := rules.NewGame(start)
	s := NewSearcher(ev, opt.Search)
	sc := bufio.NewScanner(in)
	w := &errWriter{w: out}
	result := rules.Ongoing
	note := ""

	w.printf("You play %s, %s plays %s (search: %s). Type 'help' for the commands.\n\n",
		opt.Human, opt.EngineName, opt.Human.Opponent(), opt.Limits)
	showBoard := true
loop:
	for w.err == nil {
		if o := g.Outcome(); o.Over() {
			w.printf("\n%s\nGame over: %s (%s).\n", g.Position().Diagram(), describeResult(o.Result), o.Reason)
			result = o.Result
			break
		}
		p := g.Position()
		if p.Side() != opt.Human {
			res, err := s.Think(ctx, g, opt.Limits, nil)
			if err != nil {
				return rules.Record{}, err
			}
			if res.Forced {
				w.printf("%s plays %s   (forced)\n", opt.EngineName, res.Move)
			} else {
				w.printf("%s plays %s   (%d visits; %s for %s)\n", opt.EngineName, res.Move, res.RootVisits,
					formatWDL(res.WDL), p.Side())
			}
			g.PlayUnchecked(res.Move)
			showBoard = true
			continue
		}
		if showBoard {
			w.printf("\n%s", p.Diagram())
			w.printf("Legal moves: %s\n", joinMoves(p.Legal(nil)))
			showBoard = false
		}
		w.printf("%s> ", p.Side())
		if !sc.Scan() {
			if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
				return rules.Record{}, fmt.Errorf("engine: play: an input line is over %d KiB, more than any command", bufio.MaxScanTokenSize/1024)
			} else if err != nil {
				return rules.Record{}, fmt.Errorf("engine: play: reading input: %w", err)
			}
			w.printf("\n")
			note = "quit"
			break
		}
		cmd := strings.TrimSpace(sc.Text())
		switch strings.ToLower(cmd) {
		case "":
		case "help", "?":
			w.printf("%s", playHelp)
		case "moves":
			w.printf("Legal moves: %s\n", joinMoves(p.Legal(nil)))
		case "board":
			showBoard = true
		case "hint":
			res, err := s.Think(ctx, g, opt.Limits, nil)
			if err != nil {
				return rules.Record{}, err
			}
			if res.Forced {
				w.printf("hint: %s   (the only legal move)\n", res.Move)
			} else {
				w.printf("hint: %s   (%d visits; %s)\n", res.Move, res.RootVisits, formatWDL(res.WDL))
			}
		case "undo":
			// Take back the human's last move and the engine's replies to it.
			humanMoved := false
			for i := 0; i < g.Ply(); i++ {
				if g.PositionAt(i).Side() == opt.Human {
					humanMoved = true
					break
				}
			}
			if !humanMoved {
				w.printf("nothing to undo\n")
				break
			}
			undone := 0
			for {
				mover := g.PositionAt(g.Ply() - 1).Side()
				g.Undo()
				undone++
				if mover == opt.Human {
					break
				}
			}
			w.printf("took back %d move(s)\n", undone)
			showBoard = true
		case "resign":
			result = rules.WinFor(opt.Human.Opponent())
			note = "resigned"
			w.printf("You resign: %s.\n", describeResult(result))
			break loop
		case "quit", "exit":
			note = "quit"
			break loop
		default:
			m, err := rules.ParseMove(p, cmd)
			if err != nil {
				w.printf("%s\n", moveProblem(p, cmd, err))
				continue
			}
			g.PlayUnchecked(m)
			showBoard = true
		}
	}
	if w.err != nil {
		return rules.Record{}, w.err
	}
	white, black := opt.HumanName, opt.EngineName
	if opt.Human == rules.Black {
		white, black = black, white
	}
	rec := rules.Record{
		Tags: []rules.Tag{
			{Name: "Event", Value: "dama play"},
			{Name: "Date", Value: opt.Date.Format("2006.01.02")},
			{Name: "White", Value: white},
			{Name: "Black", Value: black},
			{Name: "Result", Value: result.String()},
		},
		Start:  start,
		Moves:  append([]rules.Move(nil), g.Moves()...),
		Result: result,
	}
	if note != "" {
		rec.Tags = append(rec.Tags, rules.Tag{Name: "Termination", Value: note})
	}
	return rec, nil
}

// moveProblem explains why text is not a move the human can play in p.
func moveProblem(p rules.Position, text string, err error) string {
	legal := joinMoves(p.Legal(nil))
	var pe *rules.ParseError
	detail := ""
	if errors.As(err, &pe) && pe.Detail != "" {
		detail = " (" + pe.Detail + ")"
	}
	switch {
	case errors.Is(err, rules.ErrAmbiguous):
		return fmt.Sprintf("ambiguous move %q%s: write the full path", text, detail)
	case errors.Is(err, rules.ErrIllegal):
		if strings.Contains(detail, "legal moves") {
			return fmt.Sprintf("illegal move %q%s", text, detail)
		}
		return fmt.Sprintf("illegal move %q%s; legal moves: %s", text, detail, legal)
	case errors.Is(err, rules.ErrSquare):
		return fmt.Sprintf("no such square in %q: squares are numbered 1 to 32", text)
	}
	return fmt.Sprintf("not a move or a command: %q (type 'help'); legal moves: %s", text, legal)
}

// joinMoves lists moves in full notation, ordered by start and end square.
func joinMoves(ms []rules.Move) string {
	ms = append([]rules.Move(nil), ms...)
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].From() != ms[j].From() {
			return ms[i].From() < ms[j].From()
		}
		return ms[i].To() < ms[j].To()
	})
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, " ")
}

func describeResult(r rules.Result) string {
	switch r {
	case rules.WhiteWins:
		return "white wins " + r.String()
	case rules.BlackWins:
		return "black wins " + r.String()
	case rules.Draw:
		return "draw " + r.String()
	}
	return "unfinished"
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
