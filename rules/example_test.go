package rules_test

import (
	"fmt"
	"os"
	"slices"

	"dama/rules"
)

func ExampleParseFEN() {
	p, err := rules.ParseFEN("W:WK21,31:B10,18,27")
	if err != nil {
		fmt.Println(err)
		return
	}
	wm, wk := p.Count(rules.White)
	bm, bk := p.Count(rules.Black)
	fmt.Println(p.Side(), "to move")
	fmt.Println("white:", wm, "men,", wk, "king on", p.Kings(rules.White).Squares())
	fmt.Println("black:", bm, "men,", bk, "kings")
	fmt.Println(p.FEN())

	_, err = rules.ParseFEN("W:W21,33:B1")
	fmt.Println(err)
	// Output:
	// white to move
	// white: 1 men, 1 king on [21]
	// black: 3 men, 0 kings
	// W:WK21,31:B10,18,27
	// FEN: no such square at offset 6 ("33"): squares are numbered 1 to 32
}

func ExamplePosition_Legal() {
	moves := rules.Start().Legal(make([]rules.Move, 0, rules.MaxMoves))
	var names []string
	for _, m := range moves {
		names = append(names, m.String())
	}
	slices.Sort(names) // Legal promises no order
	fmt.Println(names)

	// Captures are mandatory and the FID priorities choose among them: the
	// man takes three pieces, the king only two, so only the man may move.
	p, _ := rules.ParseFEN("W:WK21,31:B10,18,27")
	for _, m := range p.Legal(nil) {
		fmt.Println(m, "captures", m.NumCaptured(), "short form", m.ShortString())
		fmt.Println(p.Play(m).FEN())
	}
	// Output:
	// [21-17 21-18 22-18 22-19 23-19 23-20 24-20]
	// 31x22x13x6 captures 3 short form 31x6
	// B:W6,K21:B
}

func ExampleParseMove() {
	p, _ := rules.ParseFEN("W:WK21,31:B10,18,27")
	m, err := rules.ParseMove(p, "31x6") // short form: start and end only
	fmt.Println(m, err)

	_, err = rules.ParseMove(p, "21-17")
	fmt.Println(err)
	// Output:
	// 31x22x13x6 <nil>
	// move: illegal move at offset 0 ("21-17"): no legal move 21-17 for white in W:WK21,31:B10,18,27; a capture is mandatory: 31x22x13x6
}

func ExampleParsePDN() {
	recs, err := rules.ParsePDN(`[Event "Example"]
[GameType "22"]

1. 23-19 10-14 {an exchange} 2. 19x10 5x14 1-1`)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := recs[0]
	event, _ := r.Tag("Event")
	fmt.Println(event, r.Moves, r.Result)
	if err := rules.WritePDN(os.Stdout, r); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Example [23-19 10-14 19x10 5x14] 1/2-1/2
	// [Event "Example"]
	// [Site "?"]
	// [Date "????.??.??"]
	// [Round "?"]
	// [White "?"]
	// [Black "?"]
	// [Result "1/2-1/2"]
	// [GameType "22"]
	//
	// 1. 23-19 10-14 2. 19x10 5x14 1/2-1/2
}
