package broker

import (
	"context"
	"strings"
	"testing"
)

// TestStartTrainer serves a run's broker: the log says where and how a
// worker joins (no clear-text note on loopback), the bridge runs, and
// after Stop the same run serves again from its storage.
func TestStartTrainer(t *testing.T) {
	run := testRun(t)
	for i := range 2 {
		var log syncBuffer
		tr, err := StartTrainer(context.Background(), TrainerOptions{Serve: "127.0.0.1:0", Run: run, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		out := log.String()
		if !strings.Contains(out, "broker: serving nats://127.0.0.1:") || !strings.Contains(out, "dama broker add-worker NAME --run "+run.Dir) ||
			!strings.Contains(out, "dama selfplay worker --broker nats://127.0.0.1:") || strings.Contains(out, "in clear") || tr.Bridge == nil {
			t.Errorf("start %d: log %q", i+1, out)
		}
		tr.Stop(i == 1)
	}
}
