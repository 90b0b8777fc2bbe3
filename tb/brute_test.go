package tb

import (
	"math/rand/v2"
	"testing"

	"dama/rules"
)

// brute is an independent solver: a memoised search to the end of the game
// over (position, 40-move counter) states with the rules package's moves,
// scoring positions as rules.Game.Outcome does (no move loses, a counter
// at rules.QuietLimit draws). It ignores repetitions, as the tables do.
// With below set, positions of fewer pieces than top are scored by
// below instead (tables already checked on their own), so that a search
// of 4 pieces stays small.
type brute struct {
	memo  map[bruteKey]Value
	below *Tables
	top   int
}

type bruteKey struct {
	p rules.Position
	q uint8
}

func (b *brute) value(p rules.Position, q int) Value {
	moves := p.Legal(nil)
	if len(moves) == 0 {
		return Loss
	}
	if q >= rules.QuietLimit {
		return Draw
	}
	if b.below != nil && pieces(p) < b.top {
		e, err := b.below.Probe(p)
		if err != nil {
			panic(err)
		}
		return e.Under(q)
	}
	k := bruteKey{p, uint8(q)}
	if v, ok := b.memo[k]; ok {
		return v
	}
	best := Loss
	for _, mv := range moves {
		v := -b.value(p.Play(mv), rules.QuietAfter(p, mv, q))
		if v > best {
			best = v
			if best == Win {
				break
			}
		}
	}
	b.memo[k] = best
	return best
}

// randomPosition returns a random position of material m with a random side
// to move.
func randomPosition(r *rand.Rand, m Material) rules.Position { return RandomPosition(r, m) }

func pieces(p rules.Position) int {
	return p.Pieces(rules.White).Len() + p.Pieces(rules.Black).Len()
}

// TestAgainstBruteForce compares the tables with the brute-force solver on
// random positions and 40-move counters: every signature of up to 3
// pieces with a search to the end of the game; and (without -short) the
// signatures of 4 kings with the counter at 72 or more, searched to the
// end of the quiet phase, the positions after a capture scored by the
// 3-piece tables (checked by the first part and by TestConsistency).
func TestAgainstBruteForce(t *testing.T) {
	tb := testTables(t)
	r := rand.New(rand.NewPCG(22, 7))
	checked := map[Value]int{}
	check := func(p rules.Position, q int, b *brute) {
		e, err := tb.Probe(p)
		if err != nil {
			t.Fatal(err)
		}
		got, want := e.Under(q), b.value(p, q)
		if got != want {
			t.Fatalf("%s at quiet %d: tables say %s (%v), the search to the end %s", p.FEN(), q, got, e, want)
		}
		checked[got]++
	}
	per := 250
	if testing.Short() {
		per = 60
	}
	if raceEnabled {
		per = 10
	}
	for _, m := range Signatures(3) {
		b := &brute{memo: map[bruteKey]Value{}}
		for range per {
			check(randomPosition(r, m), r.IntN(rules.QuietLimit+1), b)
		}
	}
	n3 := checked[Win] + checked[Draw] + checked[Loss]
	if tb.Pieces() >= 4 {
		for _, m := range Signatures(4) {
			if m.Pieces() != 4 || m.Men+m.OppMen > 0 {
				continue
			}
			for range 150 {
				b := &brute{memo: map[bruteKey]Value{}, below: tb, top: 4}
				check(randomPosition(r, m), 72+r.IntN(rules.QuietLimit-72+1), b)
			}
		}
	}
	t.Logf("%d positions of up to 3 pieces and %d of 4 agree with the search to the end: %d wins, %d draws, %d losses",
		n3, checked[Win]+checked[Draw]+checked[Loss]-n3, checked[Win], checked[Draw], checked[Loss])
}
