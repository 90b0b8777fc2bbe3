package configs_test

import (
	"fmt"

	"dama/configs"
)

func ExampleLoad() {
	// The quick preset, with one key from the environment and one from a
	// command-line override; the override wins.
	env := []string{"DAMA_SELFPLAY_VISITS=48", "DAMA_ARENA_GAMES=40"}
	c, err := configs.Load("quick", env, []string{"selfplay.visits=64"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Model.Preset, c.SelfPlay.Visits, c.Arena.Games)

	_, err = configs.Load("quick", nil, []string{"arena.alpha=1.5"})
	fmt.Println(err)
	// Output:
	// small 64 40
	// configs: arena.alpha = 1.5: want a number in (0,0.5]
}
