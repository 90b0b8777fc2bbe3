package rules

import "fmt"

// Result is the result of a game.
type Result int8

// Game results. Ongoing is the zero value.
const (
	Ongoing Result = iota
	WhiteWins
	BlackWins
	Draw
)

// String returns the result as dama shows it everywhere, in its PDN files
// and to people: "1-0", "0-1", "1/2-1/2" or "*" (Result.PDN). Italian
// players also say a result in points ("2-0", "0-2", "1-1"); ReadPDN
// accepts those, but dama never writes them, so that one game reads the
// same on the terminal and in its file.
func (r Result) String() string { return r.PDN() }

// Winner returns the winning side; ok is false for a draw or an open game.
func (r Result) Winner() (c Color, ok bool) {
	switch r {
	case WhiteWins:
		return White, true
	case BlackWins:
		return Black, true
	}
	return White, false
}

// WinFor returns the result in which c wins.
func WinFor(c Color) Result {
	if c == White {
		return WhiteWins
	}
	return BlackWins
}

// Reason says why a game ended.
type Reason uint8

// Reasons a game ends. The first three are rules of the game; Adjudicated
// marks a result decided outside the rules (a length cap in training, a
// resignation, a "no side can win" verdict).
const (
	NotOver     Reason = iota
	NoMoves            // the side to move has no legal move and loses
	Repetition         // the same position, same side to move, a third time
	FortyMoves         // 80 plies of king moves without a capture, both sides
	Adjudicated        // decided outside the rules; see Outcome.Note
)

// String names the reason.
func (r Reason) String() string {
	switch r {
	case NoMoves:
		return "no moves"
	case Repetition:
		return "threefold repetition"
	case FortyMoves:
		return "40-move rule"
	case Adjudicated:
		return "adjudicated"
	}
	return "not over"
}

// Outcome is how a game stands: its result and why.
type Outcome struct {
	Result Result
	Reason Reason
	Note   string // what decided an adjudication, e.g. "length cap 300"
}

// Over reports whether the game has ended.
func (o Outcome) Over() bool { return o.Result != Ongoing }

// QuietLimit is the number of plies (40 moves by each side) of king moves
// without a capture after which the game is drawn.
const QuietLimit = 80

// QuietAfter returns the 40-move counter after m is played in p, given its
// value quiet before: it grows by one for a king move that captures nothing
// and falls to zero after a man move or any capture.
func QuietAfter(p Position, m Move, quiet int) int {
	if m.n > 0 || p.kings&(1<<m.from) == 0 {
		return 0
	}
	return quiet + 1
}

// Reversible reports whether m can be part of a repetition: positions before
// a man move or a capture can never occur again.
func (p Position) Reversible(m Move) bool {
	return m.n == 0 && p.kings&(1<<m.from) != 0
}

// Game is a game in progress or finished: its start position, the moves
// played, and the history needed for repetition and the 40-move rule.
type Game struct {
	start   Position
	pos     []Position // pos[i] is the position before moves[i]; last is current
	quiet   []int      // 40-move counter for each entry of pos
	moves   []Move
	adjud   Outcome // set by Adjudicate
	scratch []Move
}

// NewGame starts a game from p.
func NewGame(p Position) *Game {
	return &Game{start: p, pos: []Position{p}, quiet: []int{0}, scratch: make([]Move, 0, MaxMoves)}
}

// Start returns the starting position.
func (g *Game) Start() Position { return g.start }

// Position returns the current position.
func (g *Game) Position() Position { return g.pos[len(g.pos)-1] }

// Moves returns the moves played so far (the slice must not be changed).
func (g *Game) Moves() []Move { return g.moves }

// Ply returns the number of moves played.
func (g *Game) Ply() int { return len(g.moves) }

// PositionAt returns the position before the i-th move (i == Ply() gives the
// current one).
func (g *Game) PositionAt(i int) Position { return g.pos[i] }

// QuietPlies returns the current 40-move counter (0..QuietLimit).
func (g *Game) QuietPlies() int { return g.quiet[len(g.quiet)-1] }

// Repetitions returns how many times the current position occurred before in
// the game (0, 1, or 2 when the game is drawn by repetition).
func (g *Game) Repetitions() int {
	cur := g.Position()
	n := 0
	for i := len(g.pos) - 2; i >= 0; i-- {
		if !g.pos[i].Reversible(g.moves[i]) {
			break
		}
		if g.pos[i] == cur {
			n++
		}
	}
	return n
}

// Legal appends the legal moves of the current position to dst[:0]; none
// once the game is over.
func (g *Game) Legal(dst []Move) []Move {
	if g.Outcome().Over() {
		return dst[:0]
	}
	return g.Position().Legal(dst)
}

// Play plays m, which must be legal in the current position; it returns an
// error, and changes nothing, if it is not or if the game is over.
func (g *Game) Play(m Move) error {
	if o := g.Outcome(); o.Over() {
		return fmt.Errorf("rules: game is over (%s, %s)", o.Result, o.Reason)
	}
	p := g.Position()
	g.scratch = p.Legal(g.scratch)
	legal := false
	for _, l := range g.scratch {
		if l == m {
			legal = true
			break
		}
	}
	if !legal {
		return fmt.Errorf("rules: %w: %s in %s", ErrIllegal, m, p.FEN())
	}
	g.PlayUnchecked(m)
	return nil
}

// PlayUnchecked plays m without checking that it is legal, for callers that
// took it from Legal.
func (g *Game) PlayUnchecked(m Move) {
	p := g.Position()
	g.quiet = append(g.quiet, QuietAfter(p, m, g.QuietPlies()))
	g.moves = append(g.moves, m)
	g.pos = append(g.pos, p.Play(m))
}

// Undo takes back the last move (and any adjudication); it reports whether
// there was one.
func (g *Game) Undo() bool {
	if len(g.moves) == 0 {
		return false
	}
	g.moves = g.moves[:len(g.moves)-1]
	g.pos = g.pos[:len(g.pos)-1]
	g.quiet = g.quiet[:len(g.quiet)-1]
	g.adjud = Outcome{}
	return true
}

// Adjudicate ends the game with a result decided outside the rules; note
// says what decided it. It does nothing if the game is already over.
func (g *Game) Adjudicate(r Result, note string) {
	if g.Outcome().Over() || r == Ongoing {
		return
	}
	g.adjud = Outcome{Result: r, Reason: Adjudicated, Note: note}
}

// Outcome returns how the game stands: a loss for the side to move without
// a legal move, a draw by threefold repetition or by the 40-move rule, an
// adjudication, or Ongoing.
func (g *Game) Outcome() Outcome {
	if g.adjud.Over() {
		return g.adjud
	}
	p := g.Position()
	if !p.HasMoves() {
		return Outcome{Result: WinFor(p.side.Opponent()), Reason: NoMoves}
	}
	if g.Repetitions() >= 2 {
		return Outcome{Result: Draw, Reason: Repetition}
	}
	if g.QuietPlies() >= QuietLimit {
		return Outcome{Result: Draw, Reason: FortyMoves}
	}
	return Outcome{}
}

// HasMoves reports whether the side to move has a legal move.
func (p Position) HasMoves() bool {
	empty, men, kings, opp, oppMen := p.fromSide(p.side)
	if p.side == White {
		if men&((empty<<4)|(empty<<5)|(oppMen<<4)&(empty<<8)|(oppMen<<5)&(empty<<10)) != 0 {
			return true
		}
	} else {
		if men&((empty>>4)|(empty>>5)|(oppMen>>4)&(empty>>8)|(oppMen>>5)&(empty>>10)) != 0 {
			return true
		}
	}
	return kings&((empty<<4)|(empty<<5)|(empty>>4)|(empty>>5)|
		(opp<<4)&(empty<<8)|(opp<<5)&(empty<<10)|(opp>>4)&(empty>>8)|(opp>>5)&(empty>>10)) != 0
}

// Follow returns a game equal to src, reusing mine when src continues it:
// when mine (which may be nil) has the same start and its moves begin
// src's, only src's later moves are played on mine; otherwise a new game
// replays src. Moves are trusted (src holds legal ones). Searchers keep a
// private copy of a match game this way, one move at a time.
func Follow(mine, src *Game) *Game {
	if mine != nil && mine.Start() == src.Start() && mine.Ply() <= src.Ply() {
		have, want := mine.Moves(), src.Moves()
		same := true
		for i := range have {
			if have[i] != want[i] {
				same = false
				break
			}
		}
		if same {
			for _, m := range want[len(have):] {
				mine.PlayUnchecked(m)
			}
			return mine
		}
	}
	g := NewGame(src.Start())
	for _, m := range src.Moves() {
		g.PlayUnchecked(m)
	}
	return g
}
