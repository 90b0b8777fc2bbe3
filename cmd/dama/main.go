// Command dama is the command-line front end of the dama training pipeline
// for Italian draughts: perft and move listing, model creation, self-play,
// training, arena matches, export and engines.
//
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"syscall"

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
	// verbs are the command's sub-verbs (dama tb gen): the command list
	// names them after the summary, and a first positional argument that
	// is not one is refused before run, so a verb is reachable only when
	// it is listed here (verbOf then returns it).
	verbs []string
	// run does the work with the flags parsed into fs and the positional
	// arguments args, reading and writing through e; it returns an error
	// for a one-line message and exit 1.
	run func(e *env, fs *flag.FlagSet, args []string) error
	// flags declares the subcommand's flags on fs before parsing. A
	// command keeps the values in variables of its init, which every
	// newFlagSet binds afresh, each to its default.
	flags func(fs *flagSet)
	// help, if set, returns more help, shown after the flags.
	help func() string
}

// commands are the subcommands, filled by register in the files' init
// functions and read only after.
var commands = map[string]*command{}

// register adds c to commands; called from init only.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("dama: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// env is what a command runs with: where it reads and writes, and the
// context of work that an interrupt ends. Tests make their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// interrupt returns a context done at the first interrupt (Ctrl-C).
	interrupt func() (context.Context, context.CancelFunc)
}

// terminate returns a context done at the first interrupt or SIGTERM: the
// signals that stop a long-running trainer, worker or server.
func (e *env) terminate() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// newEnv returns the env of a command reading os.Stdin and writing to out
// and errw.
func newEnv(out, errw io.Writer) *env {
	return &env{stdin: os.Stdin, stdout: out, stderr: errw, interrupt: func() (context.Context, context.CancelFunc) {
		return signal.NotifyContext(context.Background(), os.Interrupt)
	}}
}

// run runs dama with args, writing to out and errw, and returns the exit
// status.
func run(args []string, out, errw io.Writer) int {
	return runEnv(newEnv(out, errw), args)
}

// runEnv runs dama with args in e and returns the exit status.
func runEnv(e *env, args []string) int {
	out, errw := e.stdout, e.stderr
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
	if err := e.parseFlags(fs.FlagSet, args[1:]); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	fs.sayOld(errw)
	if err := fs.checkRanges(); err != nil {
		fmt.Fprintf(errw, "dama %s: %v\n", c.name, err)
		return 2
	}
	if path := os.Getenv(cpuProfileEnv); path != "" {
		stop, err := startCPUProfile(path, errw)
		if err != nil {
			fmt.Fprintf(errw, "dama %s: %s: %v\n", c.name, cpuProfileEnv, err)
			return 1
		}
		defer stop()
	}
	if err := e.runCommand(c, fs); err != nil {
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
func (e *env) runCommand(c *command, fs *flagSet) error {
	rest := fs.Args()
	if !c.takesArgs {
		if len(rest) == 0 {
			return c.run(e, fs.FlagSet, nil)
		}
		if c.argsNote != "" {
			return fmt.Errorf("unexpected argument %q (%s)", rest[0], c.argsNote)
		}
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	var args []string
	for ; len(rest) > 0; rest = fs.Args() {
		args = append(args, rest[0])
		if err := e.parseMore(fs, rest[1:]); err != nil {
			return err
		}
	}
	if len(c.verbs) > 0 && len(args) > 0 && !slices.Contains(c.verbs, args[0]) {
		note := ""
		if c.argsNote != "" {
			note = "; " + c.argsNote
		}
		return fmt.Errorf("unknown verb %q (the verbs of dama %s: %s%s)", args[0], c.name, strings.Join(c.verbs, ", "), note)
	}
	return c.run(e, fs.FlagSet, args)
}

// flagSet is a command's flag set with the ranges of its numeric flags
// (limit) and its old spellings (oldSpelling).
type flagSet struct {
	*flag.FlagSet
	cmd    string // the command's name
	ranges map[string]flagRange
	old    map[string]string // old spelling -> what to write now
	said   map[string]bool   // the old spellings already named on stderr
}

// bareFlagSet returns an empty flag set of the command name.
func bareFlagSet(name string) *flagSet {
	return &flagSet{FlagSet: flag.NewFlagSet("dama "+name, flag.ContinueOnError), cmd: name,
		ranges: map[string]flagRange{}, old: map[string]string{}, said: map[string]bool{}}
}

// newFlagSet returns the flag set of c, its flags declared and its help.
func newFlagSet(c *command) *flagSet {
	fs := bareFlagSet(c.name)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: dama %s %s\n\n%s\n", c.name, c.usage, c.summary)
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > len(fs.old) {
			fmt.Fprintln(w, "\nflags:")
			fs.printDefaults()
		}
		if c.help != nil {
			fmt.Fprintf(w, "\n%s", c.help())
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
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].line())
	}
	fmt.Fprintln(w, "\nRun 'dama COMMAND --help' for a command's flags.")
}

// line is the command's line in the command list: its summary and, from
// the table, its verbs.
func (c *command) line() string {
	if len(c.verbs) == 0 {
		return c.summary
	}
	return c.summary + "; verbs: " + strings.Join(c.verbs, ", ")
}

// errUsage is returned by a subcommand that parses flags after its
// arguments when that parse fails; the flag package has already said why.
var errUsage = errors.New("usage error")

// parseFlags parses args with fs. The help asked for (-h, --help) goes to
// stdout, so that it pages and greps; a bad flag gets one line on stderr,
// pointing to the help, not the whole usage.
func (e *env) parseFlags(fs *flag.FlagSet, args []string) error {
	var msg bytes.Buffer
	fs.SetOutput(&msg)
	err := fs.Parse(args)
	fs.SetOutput(e.stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		e.stdout.Write(msg.Bytes())
	case err != nil:
		fmt.Fprintf(e.stderr, "%s: %s (see %s -h)\n", fs.Name(), oneLine(err), fs.Name())
	}
	return err
}

// parseMore parses flags that follow a subcommand's positional arguments.
func (e *env) parseMore(fs *flagSet, args []string) error {
	if err := e.parseFlags(fs.FlagSet, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	fs.sayOld(e.stderr)
	return fs.checkRanges()
}

// barWriter is where a command's progress bars go: stderr, or nowhere
// with --quiet.
func barWriter(e *env, quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return e.stderr
}

// verbOf splits a command's positional arguments into its verb and the
// arguments after it: runCommand has checked that a first argument is one
// of the command's verbs; without one, verb is "" (the command's default
// action).
func verbOf(args []string) (verb string, rest []string) {
	if len(args) > 0 {
		return args[0], args[1:]
	}
	return "", nil
}

// fenFlag declares --fen on fs, a position in PDN FEN form that defaults
// to the start position; the function it returns parses the flag's value.
func fenFlag(fs *flagSet, usage string) func() (rules.Position, error) {
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

// startCPUProfile profiles the process into path until stop is called,
// which reports a failure to close the file on errw.
func startCPUProfile(path string, errw io.Writer) (stop func(), err error) {
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
			fmt.Fprintf(errw, "dama: %s: %v\n", cpuProfileEnv, err)
		}
	}, nil
}
