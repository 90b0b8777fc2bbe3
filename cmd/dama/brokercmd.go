package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"dama/broker"
)

func init() {
	var runDir, out *string
	register(&command{
		name:      "broker",
		summary:   "the workers of a run's broker: add one (writing its credential file) or revoke one",
		usage:     "add-worker NAME --run DIR [--out FILE]\n       dama broker revoke NAME --run DIR",
		takesArgs: true,
		verbs:     []string{"add-worker", "revoke"},
		flags: func(fs *flagSet) {
			runDir = fs.String("run", "", "the run folder (its broker folder RUN/broker holds the users and the trainer's key)")
			out = fs.String("out", "", "add-worker: where to write the credential (default RUN/broker/workers/NAME.cred), mode 0600")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("%d arguments %q: want add-worker NAME or revoke NAME", len(args), args)
			}
			verb, name := args[0], args[1]
			if *runDir == "" {
				return errors.New("--run DIR is required")
			}
			if st, err := os.Stat(*runDir); err != nil || !st.IsDir() {
				return fmt.Errorf("--run %s: not a folder", *runDir)
			}
			dir := filepath.Join(*runDir, "broker")
			switch verb {
			case "add-worker":
				c, err := broker.AddWorker(dir, name)
				if err != nil {
					return err
				}
				path := *out
				if path == "" {
					path = filepath.Join(dir, "workers", name+".cred")
				}
				if err := broker.WriteCredential(path, c); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "worker %s: credential %s (copy it to the worker's machine, mode 0600); run there  dama selfplay worker --broker URL --credential FILE\n", name, path)
			case "revoke":
				if *out != "" {
					return errors.New("--out goes with add-worker")
				}
				if err := broker.RevokeWorker(dir, name); err != nil {
					return err
				}
				// The copy add-worker left here, if any, is of no use now.
				if err := os.Remove(filepath.Join(dir, "workers", name+".cred")); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
				fmt.Fprintf(e.stdout, "worker %s revoked: a running dama train --serve disconnects it within a second and refuses it from now on\n", name)
			default:
				return fmt.Errorf("unknown broker command %q: want add-worker or revoke", verb)
			}
			return nil
		},
	})
}
