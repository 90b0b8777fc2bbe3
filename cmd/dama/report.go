package main

import (
	"flag"
	"fmt"

	"dama/report"
	"dama/runfolder"
)

func init() {
	var plots, bestAt *string
	var noPlots *bool
	register(&command{
		name:      "report",
		summary:   "print the generations table of a training run and write its PNG plots",
		usage:     "RUN [--plots DIR] [--no-plots] [--best-at HOURS,...]",
		takesArgs: true,
		flags: func(fs *flagSet) {
			plots = fs.String("plots", "", "folder for the PNG plots (default RUN/plots)")
			noPlots = fs.Bool("no-plots", false, "print the table only")
			bestAt = fs.String("best-at", "", "instead of the table, print the best model at these trainer CPU-hours (e.g. 0.5,1,2,4,8), to rate a run's curve with dama ladder")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("missing run folder (usage: dama report RUN [--plots DIR] [--no-plots])")
			}
			if len(args) > 1 {
				return fmt.Errorf("unexpected argument %q (one run folder at a time)", args[1])
			}
			dir := args[0]
			run := &runfolder.Run{Dir: dir}
			if err := run.Exists(); err != nil {
				return err
			}
			rep, err := report.Load(run)
			if err != nil {
				return err
			}
			if *bestAt != "" {
				hours, err := report.ParseHours(*bestAt)
				if err != nil {
					return fmt.Errorf("--best-at: %w", err)
				}
				return report.WriteBestAt(e.stdout, dir, rep.BestAtCPU(hours))
			}
			if err := rep.WriteTable(e.stdout); err != nil {
				return err
			}
			if *noPlots || rep.Empty() {
				return nil
			}
			out := *plots
			if out == "" {
				out = run.Path(runfolder.PlotsDir)
			}
			_, err = rep.WritePlots(e.stdout, out)
			return err
		},
	})
}
