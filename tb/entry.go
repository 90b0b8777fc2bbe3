package tb

import (
	"fmt"

	"dama/rules"
)

// Value is a game result for the side to move.
type Value int8

// The three values.
const (
	Loss Value = -1
	Draw Value = 0
	Win  Value = 1
)

// String returns "win", "draw" or "loss".
func (v Value) String() string {
	switch v {
	case Win:
		return "win"
	case Loss:
		return "loss"
	}
	return "draw"
}

// Entry is what a table holds about a position: its type (the value with
// the 40-move counter at 0) and its distance, the plies to the next man
// move or capture (or the end of the game) with best play.
type Entry struct {
	Type Value
	Dist int // plies, 0..80; 0 for a draw
}

// Under returns the value of the position when the 40-move counter
// (rules.QuietPlies) stands at quiet: the type while quiet+Dist is at most
// rules.QuietLimit, a draw after.
func (e Entry) Under(quiet int) Value {
	if e.Type != Draw && quiet+e.Dist <= rules.QuietLimit {
		return e.Type
	}
	return Draw
}

// String is e.g. "win in 7 plies to a man move or capture".
func (e Entry) String() string {
	switch e.Type {
	case Win:
		return fmt.Sprintf("win, %d plies to a man move or capture (a win while the 40-move counter is at most %d)", e.Dist, rules.QuietLimit-e.Dist)
	case Loss:
		if e.Dist == 0 {
			return "loss, no legal move"
		}
		return fmt.Sprintf("loss, %d plies to a man move or capture (a loss while the 40-move counter is at most %d)", e.Dist, rules.QuietLimit-e.Dist)
	}
	return "draw"
}

// The codes of entries (see FormatVersion).
func winCode(d int) uint8  { return uint8(2*d - 1) }
func lossCode(d int) uint8 { return uint8(2*d + 2) }

func entryOf(c uint8) Entry {
	switch {
	case c == 0:
		return Entry{}
	case c&1 == 1:
		return Entry{Type: Win, Dist: int(c+1) / 2}
	}
	return Entry{Type: Loss, Dist: int(c-2) / 2}
}

func isWin(c uint8) bool  { return c&1 == 1 }
func isLoss(c uint8) bool { return c != 0 && c&1 == 0 }
func dist(c uint8) int    { return entryOf(c).Dist }
