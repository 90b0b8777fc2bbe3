// Command stamped prints the build information of its own binary, for
// TestLinkStamps: built with -ldflags -X as scripts/release builds dama.
package main

import (
	"fmt"

	"dama/internal/buildinfo"
)

func main() {
	in := buildinfo.Read()
	fmt.Printf("%s|%s|%s|%v\n", in.Version, in.Commit, in.Date, in.Modified)
}
