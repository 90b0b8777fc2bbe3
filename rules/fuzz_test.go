package rules

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The fuzz targets check that no input makes a parser panic and that what
// parses survives a round trip. Seed corpora live in testdata/fuzz/<name>/.

// checkParseError fails t unless err, from parsing in as what, is a
// *ParseError about what with an offset inside in; format and args name
// the call in the message.
func checkParseError(t *testing.T, err error, what, in, format string, args ...any) {
	t.Helper()
	call := fmt.Sprintf(format, args...)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.What != what {
		t.Fatalf("%s: error %v is not a %s *ParseError", call, err, what)
	}
	if pe.Offset < 0 || pe.Offset > len(in) {
		t.Fatalf("%s: offset %d outside the input", call, pe.Offset)
	}
}

// checkParseErrorIs fails t unless err, from call, is a *ParseError of
// what wrapping sentinel at offset off, with the token tok (unless "") and
// a detail containing detail. It reports whether err is a *ParseError.
func checkParseErrorIs(t *testing.T, err error, call, what string, sentinel error, off int, tok, detail string) bool {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("%s: %v; want a *ParseError", call, err)
		return false
	}
	if !errors.Is(err, sentinel) || pe.What != what {
		t.Errorf("%s: %v; want What %q and %v", call, err, what, sentinel)
	}
	if pe.Offset != off {
		t.Errorf("%s: offset %d, want %d (%v)", call, pe.Offset, off, err)
	}
	if tok != "" && pe.Token != tok {
		t.Errorf("%s: token %q, want %q", call, pe.Token, tok)
	}
	if !strings.Contains(pe.Detail, detail) {
		t.Errorf("%s: detail %q, want it to contain %q", call, pe.Detail, detail)
	}
	return true
}

func FuzzParseFEN(f *testing.F) {
	for _, s := range []string{
		StartFEN,
		"W:WK21,31:B10,18,27",
		`"B:W6,15,23:B2,K12."`,
		"W:W:B",
		"B:WK1-K4:B29-32",
		"W:W21-32:B1-12:H0",
		"W:W1:B2",
		"w:bk5,6:w7",
		"W:W01,+5:B-3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseFEN(s)
		if err != nil {
			checkParseError(t, err, "FEN", s, "ParseFEN(%q)", s)
			return
		}
		fen := p.FEN()
		q, err := ParseFEN(fen)
		if err != nil {
			t.Fatalf("ParseFEN(%q) = %s, which does not parse: %v", s, fen, err)
		}
		if q != p || q.FEN() != fen {
			t.Fatalf("ParseFEN(%q) = %s; read back as %s", s, fen, q.FEN())
		}
		if p.Hash() != p.ComputeHash() {
			t.Fatalf("ParseFEN(%q): hash %x, recomputed %x", s, p.Hash(), p.ComputeHash())
		}
		// Any position parsed must be playable without a panic.
		for _, m := range p.Legal(nil) {
			if n := p.Play(m); n.Hash() != n.ComputeHash() {
				t.Fatalf("%s after %s: hash %x, recomputed %x", fen, m, n.Hash(), n.ComputeHash())
			}
		}
		if got := p.Flip().Flip(); got != p {
			t.Fatalf("Flip twice of %s = %s", fen, got.FEN())
		}
	})
}

func FuzzParseMove(f *testing.F) {
	for _, c := range [][2]string{
		{StartFEN, "22-18"},
		{StartFEN, "22x18"},
		{"W:WK21,31:B10,18,27", "31x22x13x6"},
		{"W:WK21,31:B10,18,27", "31x6"},
		{"W:W26:B21,13,22,14", "26x10"},
		{"W:WK26:B13,14,21,22", "26x19x10x17x26"},
		{"W:WK26:B13,14,21,22", "26x26"},
		{StartFEN, "99999999999999999999-1"},
		{StartFEN, "1x2x3x4x5x6x7x8x9x10x11x12x13x14"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, fen, s string) {
		p, err := ParseFEN(fen)
		if err != nil {
			return
		}
		m, err := ParseMove(p, s)
		if err != nil {
			checkParseError(t, err, "move", s, "ParseMove(%s, %q)", fen, s)
			return
		}
		legal := false
		for _, l := range p.Legal(nil) {
			if l == m {
				legal = true
			}
		}
		if !legal {
			t.Fatalf("ParseMove(%s, %q) = %s, not a legal move", fen, s, m)
		}
		if back, err := ParseMove(p, m.String()); err != nil || back != m {
			t.Fatalf("ParseMove(%s, %q) = %s, which reads back as %v, %v", fen, s, m, back, err)
		}
	})
}

func FuzzParsePDN(f *testing.F) {
	for _, s := range []string{
		"",
		"1. 22-18 11-15 2. 18x11 8x15 *",
		"[Event \"a \\\"b\\\"\"]\n[GameType \"22\"]\n\n1. 21-17 {c} (1. 22-18) 12-16 $1 2-0",
		"[FEN \"B:W6,15,23:B2,K12\"]\n1... 2x27 0-1",
		"1-0 0-1 1/2-1/2 *",
		"[A \"\\\\\"][B \"\\x\"] 1.22-18! ; end\n*",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := ParsePDN(s)
		games := ReadPDNGames(s)
		if err == nil {
			// Read one by one, a text without errors gives the same games.
			if len(games) != len(recs) {
				t.Fatalf("ReadPDNGames(%q): %d games, ParsePDN %d", s, len(games), len(recs))
			}
			for i, g := range games {
				if g.Err != nil || !reflect.DeepEqual(g.Record, recs[i]) {
					t.Fatalf("ReadPDNGames(%q) game %d: %+v, %v; want %+v", s, i+1, g.Record, g.Err, recs[i])
				}
			}
		} else if !slices.ContainsFunc(games, func(g PDNGame) bool { return g.Err != nil }) {
			t.Fatalf("ReadPDNGames(%q) found no bad game where ParsePDN failed: %v", s, err)
		}
		if err != nil {
			checkParseError(t, err, "PDN", s, "ParsePDN(%q)", s)
			return
		}
		var buf bytes.Buffer
		if err := WritePDN(&buf, recs...); err != nil {
			t.Fatalf("WritePDN of what ParsePDN(%q) read: %v", s, err)
		}
		again, err := ParsePDN(buf.String())
		if err != nil {
			t.Fatalf("ParsePDN of WritePDN output %q: %v", buf.String(), err)
		}
		if len(again) == 0 && len(recs) == 0 {
			return
		}
		if !reflect.DeepEqual(again, recs) {
			t.Fatalf("round trip of %q:\nwrote %q\nread %+v\nwant %+v", s, buf.String(), again, recs)
		}
	})
}
