package main

import (
	"flag"
	"fmt"

	"dama/internal/buildinfo"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the version of dama, the commit and its date (also: dama --version)",
		usage:   "",
		run: func(e *env, _ *flag.FlagSet, _ []string) error {
			in := buildinfo.Read()
			or := func(s, none string) string {
				if s == "" {
					return none
				}
				return s
			}
			commit := or(in.Commit, "unknown")
			if in.Modified {
				commit += " (with uncommitted changes)"
			}
			fmt.Fprintf(e.stdout, "dama %s\ncommit  %s\ndate    %s\nbuilt   with %s for %s\n", in.Version, commit, or(in.Date, "unknown"), in.Go, in.Platform)
			return nil
		},
	})
}

// buildVersion returns the version of the binary in one word (see
// buildinfo.Info.Version): the one the Hub id line, exports and cards carry.
func buildVersion() string { return buildinfo.Version() }
