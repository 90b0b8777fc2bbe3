package rules

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// randomGame plays random legal moves from start until the game ends or
// maxPly moves are played, calling check before every move.
func randomGame(rng *rand.Rand, start Position, maxPly int, check func(p Position, m Move)) *Game {
	g := NewGame(start)
	buf := make([]Move, 0, MaxMoves)
	for g.Ply() < maxPly {
		ms := g.Legal(buf)
		if len(ms) == 0 {
			break
		}
		m := ms[rng.IntN(len(ms))]
		if check != nil {
			check(g.Position(), m)
		}
		g.PlayUnchecked(m)
	}
	return g
}

// randomStart returns the start position or, one time in three, a random
// legal-looking position with either side to move.
func randomStart(rng *rand.Rand) Position {
	if rng.IntN(3) > 0 {
		return Start()
	}
	for {
		p := randomPosition(rng, 10, 10, 0.25)
		if p.HasMoves() {
			return p
		}
	}
}

// mirrorKey is moveKey of a move seen after Flip.
func mirrorKey(m Move) string {
	var caps []Square
	for _, s := range m.Captured().Squares() {
		caps = append(caps, 33-s)
	}
	slices.Sort(caps)
	return fmt.Sprintf("%d>%d:%v", 33-m.From(), 33-m.To(), caps)
}

func checkPosition(t *testing.T, p Position) {
	t.Helper()
	if p.Hash() != p.ComputeHash() {
		t.Fatalf("%s: Hash %x != ComputeHash %x", p.FEN(), p.Hash(), p.ComputeHash())
	}
	q, err := ParseFEN(p.FEN())
	if err != nil {
		t.Fatalf("ParseFEN(%s): %v", p.FEN(), err)
	}
	if q != p {
		t.Fatalf("ParseFEN(%s) = %s, not the same position", p.FEN(), q.FEN())
	}
	if f := p.Flip(); f.Flip() != p || f.Hash() != f.ComputeHash() {
		t.Fatalf("%s: Flip().Flip() = %s", p.FEN(), f.Flip().FEN())
	}
	legal := p.Legal(nil)
	if p.HasMoves() != (len(legal) > 0) {
		t.Fatalf("%s: HasMoves = %v with %d legal moves", p.FEN(), p.HasMoves(), len(legal))
	}
	// Legal of the flipped position is the mirror image.
	var keys, flipped []string
	for _, m := range legal {
		keys = append(keys, mirrorKey(m))
	}
	for _, m := range p.Flip().Legal(nil) {
		flipped = append(flipped, moveKey(m))
	}
	slices.Sort(keys)
	slices.Sort(flipped)
	if !slices.Equal(keys, flipped) {
		t.Fatalf("%s: mirrored Legal %v, Legal of Flip %v", p.FEN(), keys, flipped)
	}
	// Every move reads back from its notation.
	for _, m := range legal {
		got, err := ParseMove(p, m.String())
		if err != nil || got != m {
			t.Fatalf("%s: ParseMove(%s) = %v, %v; want the move itself", p.FEN(), m, got, err)
		}
		same := 0
		for _, o := range legal {
			if o.From() == m.From() && o.To() == m.To() {
				same++
			}
		}
		got, err = ParseMove(p, m.ShortString())
		switch {
		case same == 1 && (err != nil || got != m):
			t.Fatalf("%s: ParseMove(%s) = %v, %v; want %s", p.FEN(), m.ShortString(), got, err, m)
		case same > 1 && m.NumCaptured() > 1 && !errors.Is(err, ErrAmbiguous):
			t.Fatalf("%s: ParseMove(%s) = %v, %v; want ErrAmbiguous", p.FEN(), m.ShortString(), got, err)
		}
	}
}

func checkMove(t *testing.T, p Position, m Move) {
	t.Helper()
	q := p.Play(m)
	me, opp := p.Side(), p.Side().Opponent()
	men0, kings0 := p.Count(me)
	men1, kings1 := q.Count(me)
	if men1+kings1 != men0+kings0 || men1 > men0 || kings1 < kings0 || kings1 > kings0+1 {
		t.Fatalf("%s after %s: mover went from %d men %d kings to %d men %d kings", p.FEN(), m, men0, kings0, men1, kings1)
	}
	om0, ok0 := p.Count(opp)
	om1, ok1 := q.Count(opp)
	if om1 > om0 || ok1 > ok0 || (om0+ok0)-(om1+ok1) != m.NumCaptured() {
		t.Fatalf("%s after %s (%d captured): opponent went from %d men %d kings to %d men %d kings",
			p.FEN(), m, m.NumCaptured(), om0, ok0, om1, ok1)
	}
	if q.Side() != opp {
		t.Fatalf("%s after %s: side to move %v", p.FEN(), m, q.Side())
	}
}

func TestRandomGameInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	games := 300
	if testing.Short() {
		games = 60
	}
	var recs []Record
	for i := range games {
		g := randomGame(rng, randomStart(rng), 250, func(p Position, m Move) {
			checkPosition(t, p)
			checkMove(t, p, m)
		})
		checkPosition(t, g.Position())
		if g.Ply() == 250 && !g.Outcome().Over() {
			g.Adjudicate(Draw, "length cap 250")
		}
		recs = append(recs, Record{
			Tags: []Tag{
				{"Event", fmt.Sprintf("random game %d", i)},
				{"Round", `with "quotes" and \ backslash`},
				{"Reason", g.Outcome().Reason.String()},
			},
			Start:  g.Start(),
			Moves:  slices.Clone(g.Moves()),
			Result: g.Outcome().Result,
		})
	}
	// All games through PDN and back.
	var buf bytes.Buffer
	if err := WritePDN(&buf, recs...); err != nil {
		t.Fatalf("WritePDN: %v", err)
	}
	got, err := ParsePDN(buf.String())
	if err != nil {
		t.Fatalf("ParsePDN of WritePDN output: %v", err)
	}
	if len(got) != len(recs) {
		t.Fatalf("ParsePDN read %d games, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !reflect.DeepEqual(got[i], recs[i]) {
			t.Fatalf("game %d: PDN round trip gives %+v, want %+v", i, got[i], recs[i])
		}
	}
	for i, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		if len(line) >= 80 && !bytes.HasPrefix(line, []byte("[")) {
			t.Fatalf("WritePDN line %d has %d columns: %s", i+1, len(line), line)
		}
	}
}
