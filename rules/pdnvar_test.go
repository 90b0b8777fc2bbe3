package rules

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// line plays the moves texts from p and returns them.
func lineOf(t *testing.T, p Position, texts ...string) []Move {
	t.Helper()
	var out []Move
	for _, s := range texts {
		m, err := ParseMove(p, s)
		if err != nil {
			t.Fatalf("move %q in %s: %v", s, p.FEN(), err)
		}
		out = append(out, m)
		p = p.Play(m)
	}
	return out
}

// A game with variations, nested and two at one move: each follows the
// move it replaces, numbered from its own position, and the line it left
// is numbered again; ParsePDN reads the main line back.
func TestWritePDNVariations(t *testing.T) {
	s := Start()
	main := lineOf(t, s, "22-18", "11-15", "26-22", "7-11")
	after1 := s.Play(main[0])
	v2 := lineOf(t, after1, "12-16", "21-17")     // instead of 1... 11-15
	v2b := lineOf(t, after1, "10-14")             // also instead of 1... 11-15
	v2n := lineOf(t, after1.Play(v2[0]), "23-19") // instead of 2. 21-17 inside v2
	v1 := lineOf(t, s, "21-17")                   // instead of 1. 22-18
	rec := Record{Tags: []Tag{{Name: "Event", Value: "tree"}}, Start: s, Moves: main, Result: Ongoing}
	vars := []Variation{
		{Ply: 1, Moves: v2, Variations: []Variation{{Ply: 1, Moves: v2n}}},
		{Ply: 0, Moves: v1},
		{Ply: 1, Moves: v2b},
	}
	var buf bytes.Buffer
	if err := WritePDNVariations(&buf, rec, vars); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	body := text[strings.Index(text, "\n\n")+2:]
	want := "1. 22-18 (1. 21-17) 1... 11-15 (1... 12-16 2. 21-17 (2. 23-19)) (1... 10-14)\n2. 26-22 7-11 *\n"
	if body != want {
		t.Errorf("move text:\n%s\nwant:\n%s", body, want)
	}
	recs, err := ParsePDN(text)
	if err != nil {
		t.Fatalf("ParsePDN of the output: %v\n%s", err, text)
	}
	if len(recs) != 1 || !slices.Equal(recs[0].Moves, main) {
		t.Errorf("ParsePDN read %v, want the main line %v", recs, main)
	}
	// Without variations the output is WritePDN's.
	var plain, none bytes.Buffer
	if err := WritePDN(&plain, rec); err != nil {
		t.Fatal(err)
	}
	if err := WritePDNVariations(&none, rec, nil); err != nil || none.String() != plain.String() {
		t.Errorf("no variations: %q (%v), want WritePDN's %q", none.String(), err, plain.String())
	}
}

// Bad variations are errors that name the variation and the move.
func TestWritePDNVariationsErrors(t *testing.T) {
	s := Start()
	main := lineOf(t, s, "22-18", "11-15")
	rec := Record{Start: s, Moves: main, Result: Ongoing}
	bad := lineOf(t, s.Play(main[0]), "12-16") // legal after 22-18, not at the start
	for _, c := range []struct {
		vars []Variation
		want string
	}{
		{[]Variation{{Ply: 2, Moves: bad}}, "variation 1 branches at move index 2, the line has 2 moves"},
		{[]Variation{{Ply: -1, Moves: bad}}, "variation 1 branches at move index -1"},
		{[]Variation{{Ply: 1}}, "variation 1 (at 1...) has no moves"},
		{[]Variation{{Ply: 0, Moves: bad}}, "variation 1 at 1.: move 1. 12-16 is not legal in"},
		{[]Variation{{Ply: 1, Moves: lineOf(t, s.Play(main[0]), "10-14"), Variations: []Variation{{Ply: 0, Moves: bad[:0]}}}}, "variation 1 at 1...: variation 1 (at 1...) has no moves"},
	} {
		var buf bytes.Buffer
		err := WritePDNVariations(&buf, rec, c.vars)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("variations %+v: error %v, want one with %q", c.vars, err, c.want)
		}
	}
}
