package train

import (
	"fmt"
	"reflect"
	"strings"

	"dama/configs"
	"dama/runfolder"
	"dama/selfplay"
)

// enterPhase makes the configuration of generation gen the run's: when the
// schedule changes keys at gen, the change is recorded in the run's
// config-changes.jsonl (as a resume with --allow-change records one, so
// chunks played before it are checked by the settings they were played
// by), the archive takes the new values, a line says so, and the self-play
// worker and the trainer are made anew with them.
func (l *loop) enterPhase(gen int) error {
	if l.base == nil {
		l.base = l.cfg
	}
	want := l.base.At(gen)
	diff := configs.Diff(l.cfg, &want)
	if len(diff) == 0 {
		return nil
	}
	y, err := want.YAML()
	if err != nil {
		return err
	}
	phase := want.PhaseAt(gen)
	if err := l.run.ChangeConfig(gen, phase, diff, y); err != nil {
		return err
	}
	if l.opt.OnConfig != nil {
		if err := l.opt.OnConfig(); err != nil {
			return err
		}
	}
	p := l.base.Schedule[phase-1]
	var parts []string
	for _, d := range diff {
		parts = append(parts, d.String())
	}
	note := ""
	if p.Note != "" {
		note = " (" + p.Note + ")"
	}
	fmt.Fprintf(l.log, "schedule: generation %d begins phase %d of %d: %s%s\n", gen, phase, len(l.base.Schedule), strings.Join(parts, ", "), note)
	if !reflect.DeepEqual(l.cfg.SelfPlay, want.SelfPlay) {
		if l.sp != nil {
			l.sp.Close()
			l.sp = nil
		}
		l.check = selfplay.RunChecker(want.SelfPlay, l.run.SelfPlayHistory, l.run.Path(runfolder.AcceptedDir))
		l.check.Held = l.held
	}
	if !reflect.DeepEqual(l.cfg.Train, want.Train) && l.tr != nil {
		l.tr.Close()
		l.tr = nil
	}
	l.cfg = &want
	return nil
}

// indent puts two spaces before every line of s.
func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, ln := range lines {
		if ln != "" {
			lines[i] = "  " + ln
		}
	}
	return strings.Join(lines, "")
}
