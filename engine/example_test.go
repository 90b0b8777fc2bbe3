package engine_test

import (
	"fmt"

	"dama/engine"
	"dama/rules"
)

func ExampleFormatHubMove() {
	p, _ := rules.ParseFEN("W:WK21,31:B10,18,27")
	m := p.Legal(nil)[0]
	fmt.Println(m, "is", engine.FormatHubMove(m), "in Hub form")
	// Output: 31x22x13x6 is 31x6x27x18x10 in Hub form
}

func ExampleFormatHubPosition() {
	fmt.Println(engine.FormatHubPosition(rules.Start()))
	// Output: Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww
}

func ExampleParseHubLine() {
	l, _ := engine.ParseHubLine(`pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves="22-18 11-15"`)
	moves, _ := l.Get("moves")
	fmt.Println(l.Command, moves)
	// Output: pos 22-18 11-15
}
