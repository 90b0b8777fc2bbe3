// Command archive writes one archive of a release, for scripts/release:
//
//	go run ./internal/release/archive -o OUT.tar.gz|OUT.zip -top FOLDER -mtime UNIXSECONDS FILE...
//
// The archive holds each FILE under FOLDER/, dated -mtime, written so that
// the same files give the same bytes anywhere (see package release).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"dama/internal/atomicfile"
	"dama/internal/release"
)

func main() {
	out := flag.String("o", "", "the archive to write: a name ending in .tar.gz or .zip")
	top := flag.String("top", "", "the folder the files go under in the archive")
	mtime := flag.Int64("mtime", -1, "the modification time of every entry, in Unix seconds (the commit's date)")
	flag.Parse()
	if err := run(*out, *top, *mtime, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "archive:", err)
		os.Exit(1)
	}
}

func run(out, top string, mtime int64, files []string) error {
	if out == "" || top == "" || mtime < 0 || len(files) == 0 {
		return fmt.Errorf("usage: archive -o OUT.tar.gz|OUT.zip -top FOLDER -mtime UNIXSECONDS FILE...")
	}
	format, err := release.FormatOf(out)
	if err != nil {
		return err
	}
	return atomicfile.Write(out, func(w io.Writer) error {
		return release.Write(w, format, top, files, time.Unix(mtime, 0))
	})
}
