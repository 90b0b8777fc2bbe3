// Command dama is the command-line front end of the dama training pipeline
// for Italian draughts: perft and move listing, model creation, self-play,
// training, arena matches, export and engines.
//
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sort"
	"strings"

	"dama/rules"
)

// command is one subcommand of dama.
type command struct {
	name    string
	summary string // one line for the command list
	usage   string // arguments, shown after "dama NAME"
	// takesArgs says that run takes positional arguments, which flags may
	// follow and separate; without it the dispatcher refuses any with
	// "unexpected argument", adding argsNote in parentheses where it is set.
	takesArgs bool
	argsNote  string
	// run parses args with fs (already holding the common flags) and does
	// the work; it returns an error for a one-line message and exit 1.
	run func(fs *flag.FlagSet, args []string) error
	// flags declares the subcommand's flags on fs before parsing.
	flags func(fs *flag.FlagSet)
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("dama: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// stdout and stderr are where subcommands write; tests replace them.
var (
	stdout io.Writer = os.Stdout
	stderr io.Writer = os.Stderr
)

func run(args []string, out, errw io.Writer) int {
	stdout, stderr = out, errw
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fs := newFlagSet(c)
				fs.SetOutput(out)
				fs.Usage()
				return 0
			}
		}
		if len(args) == 0 {
			printCommands(errw) // a usage error: no command
			return 2
		}
		printCommands(out)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(errw, "dama: unknown command %q (run 'dama help' for the list)\n", args[0])
		return 2
	}
	fs := newFlagSet(c)
	if err := parseFlags(fs, args[1:]); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if err := checkFlagRanges(fs); err != nil {
		fmt.Fprintf(errw, "dama %s: %v\n", c.name, err)
		return 2
	}
	if path := os.Getenv(cpuProfileEnv); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintf(errw, "dama %s: %s: %v\n", c.name, cpuProfileEnv, err)
			return 1
		}
		defer stop()
	}
	if err := runCommand(c, fs); err != nil {
		switch {
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2 // the flag package has printed what was wrong
		}
		fmt.Fprintf(errw, "dama %s: %v\n", c.name, oneLine(err))
		return 1
	}
	return 0
}

// runCommand runs c on its positional arguments: those left after its
// flags, the flags that follow each parsed in turn; it refuses them where c
// takes none.
func runCommand(c *command, fs *flag.FlagSet) error {
	rest := fs.Args()
	if !c.takesArgs {
		if len(rest) == 0 {
			return c.run(fs, nil)
		}
		if c.argsNote != "" {
			return fmt.Errorf("unexpected argument %q (%s)", rest[0], c.argsNote)
		}
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	var args []string
	for ; len(rest) > 0; rest = fs.Args() {
		args = append(args, rest[0])
		if err := parseMore(fs, rest[1:]); err != nil {
			return err
		}
	}
	return c.run(fs, args)
}

func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("dama "+c.name, flag.ContinueOnError)
	checkpointClock = clockWall // set by the --clock of the commands that have one
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: dama %s %s\n\n%s\n", c.name, c.usage, c.summary)
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

func printCommands(w io.Writer) {
	fmt.Fprintln(w, "usage: dama COMMAND [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'dama COMMAND --help' for a command's flags.")
}

// errUsage is returned by a subcommand that parses flags after its
// arguments when that parse fails; the flag package has already said why.
var errUsage = errors.New("usage error")

// parseFlags parses args with fs. The help asked for (-h, --help) goes to
// stdout, so that it pages and greps; a bad flag gets one line on stderr,
// pointing to the help, not the whole usage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	var msg bytes.Buffer
	fs.SetOutput(&msg)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(msg.Bytes())
	case err != nil:
		fmt.Fprintf(stderr, "%s: %s (see %s -h)\n", fs.Name(), oneLine(err), fs.Name())
	}
	return err
}

// parseMore parses flags that follow a subcommand's positional arguments.
func parseMore(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return checkFlagRanges(fs)
}

// fenFlag declares --fen on fs, a position in PDN FEN form that defaults
// to the start position; the function it returns parses the flag's value.
func fenFlag(fs *flag.FlagSet, usage string) func() (rules.Position, error) {
	s := fs.String("fen", rules.StartFEN, usage)
	return func() (rules.Position, error) { return rules.ParseFEN(*s) }
}

// oneLine folds an error message onto a single line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// cpuProfileEnv names the environment variable that, when set to a file
// name, makes any subcommand write a CPU profile there (go tool pprof).
const cpuProfileEnv = "DAMA_CPUPROFILE"

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "dama: %s: %v\n", cpuProfileEnv, err)
		}
	}, nil
}
