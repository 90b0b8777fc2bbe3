package arena

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"dama/rules"
)

// The kinds of Fault: what an external player did that lost it a game.
const (
	FaultCrash   = "crash"        // the engine's process ended, or its pipes broke
	FaultHang    = "hang"         // no move within the move's deadline
	FaultInit    = "no init"      // the engine did not finish its handshake in time
	FaultIllegal = "illegal move" // a move that is not legal in the position
	FaultGarbled = "garbled"      // a line, or a move, that does not read
)

// Fault is a player's failure that loses it the game it happened in,
// rather than ending the match: Start or Move returns it (wrapped or
// not), and Match (and the tactics suite) counts the game as lost by that
// player, with the fault as the reason. The reference players never
// fault; an external engine (HubPlayer) does when it crashes, hangs,
// never finishes its handshake or sends a move dama cannot read or that
// is not legal.
type Fault struct {
	Kind   string // one of the Fault* constants
	Detail string // what happened, for people: "exited (exit status 2) while thinking"
}

// Error returns "KIND: DETAIL".
func (f *Fault) Error() string {
	if f.Detail == "" {
		return f.Kind
	}
	return f.Kind + ": " + f.Detail
}

// AsFault returns the Fault in err's chain, if any.
func AsFault(err error) (*Fault, bool) {
	var f *Fault
	ok := errors.As(err, &f)
	return f, ok
}

// Forfeit is a game lost by a Fault.
type Forfeit struct {
	Side   rules.Color // the side that lost by it
	Player string      // its name
	Fault  Fault
}

// forfeitPrefix starts the Termination tag of a forfeited game.
const forfeitPrefix = "forfeit by "

// Termination is the text of the PDN Termination tag of the game:
// "forfeit by Black (hub@t0.1:./engine): hang: no move within 10.5s".
func (f Forfeit) Termination() string {
	return fmt.Sprintf("%s%s (%s): %s", forfeitPrefix, f.Side, f.Player, f.Fault.Error())
}

// parseForfeit reads a Termination tag that Forfeit.Termination wrote in
// a game between white and black (its White and Black tags).
func parseForfeit(term, white, black string) (Forfeit, bool) {
	for _, f := range []Forfeit{{Side: rules.White, Player: white}, {Side: rules.Black, Player: black}} {
		rest, ok := strings.CutPrefix(term, fmt.Sprintf("%s%s (%s): ", forfeitPrefix, f.Side, f.Player))
		if !ok {
			continue
		}
		kind, detail, _ := strings.Cut(rest, ": ")
		if !slices.Contains(faultKinds[:], kind) {
			return Forfeit{}, false
		}
		f.Fault = Fault{Kind: kind, Detail: detail}
		return f, true
	}
	return Forfeit{}, false
}

// faultKinds are the kinds of Fault, in the order FaultCount keeps them.
var faultKinds = [...]string{FaultCrash, FaultHang, FaultInit, FaultIllegal, FaultGarbled}

// FaultCount counts forfeits by the kind of their fault (in the order
// crash, hang, no init, illegal move, garbled); it is comparable, so
// MatchResult stays so.
type FaultCount [len(faultKinds)]int

// Total returns the number of forfeits counted.
func (c FaultCount) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Of returns the number of forfeits of kind.
func (c FaultCount) Of(kind string) int {
	if i := slices.Index(faultKinds[:], kind); i >= 0 {
		return c[i]
	}
	return 0
}

// Add counts n forfeits of kind (one of faultKinds; another kind counts
// as garbled, the catch-all of an external player's faults).
func (c *FaultCount) Add(kind string, n int) {
	i := slices.Index(faultKinds[:], kind)
	if i < 0 {
		i = slices.Index(faultKinds[:], FaultGarbled)
	}
	c[i] += n
}

// plus returns c with d added.
func (c FaultCount) plus(d FaultCount) FaultCount {
	for i := range c {
		c[i] += d[i]
	}
	return c
}

// String lists the kinds counted: "crash 1, hang 2".
func (c FaultCount) String() string {
	var parts []string
	for i, k := range faultKinds {
		if c[i] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, c[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// MarshalJSON writes the kinds counted as an object: {"crash":1,"hang":2}.
func (c FaultCount) MarshalJSON() ([]byte, error) {
	m := map[string]int{}
	for i, k := range faultKinds {
		if c[i] > 0 {
			m[k] = c[i]
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON wrote; an unknown kind is an error.
func (c *FaultCount) UnmarshalJSON(b []byte) error {
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = FaultCount{}
	for k, n := range m {
		i := slices.Index(faultKinds[:], k)
		if i < 0 || n < 0 {
			return fmt.Errorf("arena: forfeits: %q %d: want a count of one of %s", k, n, strings.Join(faultKinds[:], ", "))
		}
		c[i] = n
	}
	return nil
}
