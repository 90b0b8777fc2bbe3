package main

import (
	"flag"
	"fmt"
	"runtime/debug"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the version of dama (also: dama --version)",
		usage:   "",
		run: func(e *env, _ *flag.FlagSet, _ []string) error {
			fmt.Fprintf(e.stdout, "dama %s\n", buildVersion())
			return nil
		},
	})
}

// revision, when set at link time (go build -ldflags "-X
// main.revision=$(git rev-parse --short=12 HEAD)"), is the version: for
// builds without VCS stamps (GOFLAGS=-buildvcs=false, a copied tree).
var revision string

// buildVersion returns the version of the binary: the revision set at link
// time, else the module version when it was installed as a module (go
// install dama/cmd/dama@v1.2.3), else the VCS revision it was built from
// (12 hex digits, "+modified" for a tree with uncommitted changes), else
// "dev".
func buildVersion() string {
	if revision != "" {
		return revision
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) < 12 {
		return "dev"
	}
	if dirty {
		return rev[:12] + "+modified"
	}
	return rev[:12]
}
