package main

import (
	"flag"
	"fmt"
	"io"
)

// Old spellings. A flag renamed, or a mode that was a flag and is now a
// verb, keeps working for now: the help leaves it out, and a command line
// that uses it gets one line on stderr naming what to write instead
// (docs/commands.md lists them).

// oldSpelling marks the flag old of fs as an old spelling; now is what
// to write instead ("--batch", "ladder calibrate").
func (fs *flagSet) oldSpelling(old, now string) {
	if fs.Lookup(old) == nil {
		panic("dama: old spelling of an undeclared flag --" + old)
	}
	fs.old[old] = now
}

// renamed declares old as the old spelling of the flag now of fs: the same
// value, set by either.
func (fs *flagSet) renamed(old, now string) {
	f := fs.Lookup(now)
	if f == nil {
		panic("dama: --" + old + " renamed to an undeclared flag --" + now)
	}
	fs.Var(f.Value, old, "the old spelling of --"+now)
	fs.oldSpelling(old, "--"+now)
}

// sayOld writes to w a line for each old spelling the command line has
// used, once each.
func (fs *flagSet) sayOld(w io.Writer) {
	fs.Visit(func(f *flag.Flag) {
		if now, ok := fs.old[f.Name]; ok && !fs.said[f.Name] {
			fs.said[f.Name] = true
			sayOld(w, fs.cmd+" --"+f.Name, now)
		}
	})
}

// sayOld writes the line that says old is now spelt now.
func sayOld(w io.Writer, old, now string) {
	fmt.Fprintf(w, "dama: %s is now %s (the old spelling will go)\n", old, now)
}

// printDefaults writes the help of fs's flags as flag.PrintDefaults does,
// leaving out the old spellings.
func (fs *flagSet) printDefaults() {
	cur := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	cur.SetOutput(fs.Output())
	fs.VisitAll(func(f *flag.Flag) {
		if _, old := fs.old[f.Name]; !old {
			cur.Var(f.Value, f.Name, f.Usage)
			cur.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	cur.PrintDefaults()
}
