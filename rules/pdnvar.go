package rules

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Variation is a line played instead of a move of the line it branches
// from: a branch of an analysed game's move tree.
type Variation struct {
	// Ply is the index, in the moves of the line it branches from, of the
	// move it replaces: its own moves start from the position before that
	// move.
	Ply        int
	Moves      []Move
	Variations []Variation // the lines that branch from this one
}

// WritePDNVariations writes r as WritePDN does, with vars, the lines that
// branch from r.Moves, as PDN variations: each in parentheses after the
// move it replaces (several at one move in their order, sorted by Ply
// otherwise), its first move numbered, nested as deep as they go, and
// the next move of the line it left numbered again ("12... 22-18").
// ParsePDN reads the output back as r (it skips variations). A variation
// that is empty, branches past the end of its line, or has a move that is
// not legal where it is played is an error naming it and the move, and
// nothing more is written.
func WritePDNVariations(w io.Writer, r Record, vars []Variation) error {
	return writePDN(w, []Record{r}, [][]Variation{vars})
}

// moveText writes PDN move text in lines under pdnLineMax columns.
type moveText struct {
	w    *bufio.Writer
	col  int  // length of the current line
	glue bool // the next token follows "(" without a space
	buf  [MaxMoves]Move
}

func (t *moveText) put(s string) {
	if t.col > 0 && !t.glue && t.col+1+len(s) > pdnLineMax {
		t.w.WriteByte('\n')
		t.col = 0
	}
	if t.col > 0 && !t.glue {
		t.w.WriteByte(' ')
		t.col++
	}
	t.glue = false
	t.w.WriteString(s)
	t.col += len(s)
}

// line writes moves from p at game ply ply (0: White's first move), and
// after each move the variations that replace it; what names the line in
// errors.
func (t *moveText) line(p Position, ply int, moves []Move, vars []Variation, what string) error {
	at := make([][]Variation, len(moves))
	order := make([]int, len(vars))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vars[order[a]].Ply < vars[order[b]].Ply })
	for _, i := range order {
		v := vars[i]
		switch {
		case v.Ply < 0 || v.Ply >= len(moves):
			return fmt.Errorf("%s: variation %d branches at move index %d, the line has %d moves", what, i+1, v.Ply, len(moves))
		case len(v.Moves) == 0:
			return fmt.Errorf("%s: variation %d (at %s) has no moves", what, i+1, moveNumber(ply+v.Ply))
		}
		at[v.Ply] = append(at[v.Ply], v)
	}
	number := true
	for i, m := range moves {
		if !t.legal(p, m) {
			return fmt.Errorf("%s: move %s %s is not legal in %s", what, moveNumber(ply), m, p.FEN())
		}
		num := strconv.Itoa(ply/2 + 1)
		switch {
		case ply%2 == 0:
			t.put(num + ". " + m.String())
		case number:
			t.put(num + "... " + m.String())
		default:
			t.put(m.String())
		}
		number = false
		for k, v := range at[i] {
			t.put("(")
			t.glue = true
			if err := t.line(p, ply, v.Moves, v.Variations, fmt.Sprintf("%s, variation %d at %s", what, k+1, moveNumber(ply))); err != nil {
				return err
			}
			t.w.WriteByte(')')
			t.col++
			number = true
		}
		p = p.Play(m)
		ply++
	}
	return nil
}

func (t *moveText) legal(p Position, m Move) bool {
	for _, l := range p.Legal(t.buf[:0]) {
		if l == m {
			return true
		}
	}
	return false
}

// moveNumber names game ply ply as PDN numbers it: "3." for White's
// third move, "3..." for Black's.
func moveNumber(ply int) string {
	if ply%2 == 0 {
		return strconv.Itoa(ply/2+1) + "."
	}
	return strconv.Itoa(ply/2+1) + "..."
}
