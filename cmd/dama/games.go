package main

import (
	"flag"
	"fmt"

	"dama/train"
)

func init() {
	var runDir *string
	register(&command{
		name:      "games",
		summary:   "check self-play game chunks as the trainer does",
		usage:     "check FILE|DIR [--run DIR]",
		takesArgs: true,
		verbs:     []string{"check"},
		flags: func(fs *flagSet) {
			runDir = fs.String("run", "", "check against this run folder's configuration, accepted models and games, as its trainer would (without: format, legality and results only)")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if len(args) == 0 || args[0] != "check" {
				return fmt.Errorf("want the verb check (usage: dama games check FILE|DIR [--run DIR])")
			}
			if len(args) != 2 {
				return fmt.Errorf("check: want one chunk file or folder, got %d arguments", len(args)-1)
			}
			return train.CheckGames(e.stdout, args[1], *runDir)
		},
	})
}
