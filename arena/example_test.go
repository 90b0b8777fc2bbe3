package arena_test

import (
	"context"
	"fmt"

	"dama/arena"
)

func ExampleElo() {
	fmt.Printf("%.0f %.0f %.3f\n", arena.Elo(0.5), arena.Elo(0.76), arena.ExpectedScore(100))
	// Output: 0 200 0.640
}

func ExampleMatch() {
	strong, _ := arena.ParsePlayer("alphabeta:2")
	weak, _ := arena.ParsePlayer("random")
	res, err := arena.Match(context.Background(), strong, weak, arena.MatchOptions{
		Games:    20,
		Parallel: 2,
		Seed:     1,
		SPRT:     &arena.SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Verdict, res.Stopped, res.Score() > 0.9)
	// Output: accept true true
}
