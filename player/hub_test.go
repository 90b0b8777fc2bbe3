package player

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"dama/arena"
)

// A hub spec reads its limit and its command, split as a shell would,
// and its name reads back as the same player.
func TestHubSpec(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		argv   []string
		visits int
		time   time.Duration
		name   string
	}{
		{"hub:./engine", []string{"./engine"}, Engine().Visits, 0, "hub@800:./engine"},
		{"hub@50:dama hub --model random", []string{"dama", "hub", "--model", "random"}, 50, 0, "hub@50:dama hub --model random"},
		{`hub@t0.25:'/opt/my engine/scan' hub --x "a \"b\"" c\ d`, []string{"/opt/my engine/scan", "hub", "--x", `a "b"`, "c d"}, 0, 250 * time.Millisecond,
			`hub@t0.25s:'/opt/my engine/scan' hub --x 'a "b"' 'c d'`},
		{"hub@t1s:e 'it''s' ''", []string{"e", "its", ""}, 0, time.Second, "hub@t1s:e its ''"},
	} {
		s, err := Parse(tc.spec, Env{})
		if err != nil {
			t.Errorf("%s: %v", tc.spec, err)
			continue
		}
		if !s.IsHub() || s.IsNetwork() || !reflect.DeepEqual(s.Hub, tc.argv) || s.Search.Visits != tc.visits || s.Search.Time != tc.time {
			t.Errorf("%s: %q, %d visits, %v; want %q, %d, %v", tc.spec, s.Hub, s.Search.Visits, s.Search.Time, tc.argv, tc.visits, tc.time)
		}
		if s.String() != tc.name {
			t.Errorf("%s: named %q, want %q", tc.spec, s.String(), tc.name)
		}
		back, err := Parse(s.String(), Env{})
		if err != nil || !reflect.DeepEqual(back.Hub, s.Hub) || back.Search != s.Search {
			t.Errorf("%s: its name %q reads back as %q %+v, %v", tc.spec, s.String(), back.Hub, back.Search, err)
		}
	}
	for _, spec := range []string{"hub:", "hub:  ", "hub@0:e", "hub@x:e", "hub@t0:e", "hub@t5000:e", "hub:'e", "hub@:e"} {
		_, err := Parse(spec, Env{})
		oneLineNaming(t, spec, err)
	}
	if _, err := Parse(`hub:"e`, Env{}); err == nil || !strings.Contains(err.Error(), `unterminated "`) {
		t.Errorf(`hub:"e: %v, want an unterminated quote`, err)
	}
}

// ladder's --model takes a hub spec, its limit from --visits or --time.
func TestHubFlags(t *testing.T) {
	f, err := parseFlags(t, Engine(), []string{"--model", "hub:./engine -v", "--time", "0.5"}, "model", "visits", "time")
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Spec(nil)
	if err != nil || !reflect.DeepEqual(s.Hub, []string{"./engine", "-v"}) || s.Search.Time != 500*time.Millisecond || s.Search.Visits != 0 || s.Model != "" {
		t.Errorf("--model hub:./engine -v --time 0.5: %+v, %v", s, err)
	}
	if s.String() != "hub@t0.5s:./engine -v" {
		t.Errorf("named %q", s.String())
	}
	f, err = parseFlags(t, Engine(), []string{"--model", "hub@50:./engine"}, "model", "visits", "time")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Spec(nil); err == nil || !strings.Contains(err.Error(), "--visits or --time") {
		t.Errorf("--model hub@50:...: %v, want an error saying where the limit goes", err)
	}
}

// A hub spec opens as an arena.HubPlayer with its log file named on
// env.Log; a program that is not there is an error naming it.
func TestHubPlayerSpec(t *testing.T) {
	s, err := Parse("hub@t0.1:sh -c 'exit 0'", Env{})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	p, err := s.Player(Env{Log: &log, CPUClock: true})
	if err != nil {
		t.Fatal(err)
	}
	hp, ok := p.(*hubPlayer)
	if !ok {
		t.Fatalf("a %T, not a hub player", p)
	}
	t.Cleanup(func() { os.Remove(hp.log.Name()) })
	if p.Name() != "hub@t0.1s:sh -c 'exit 0'" || hp.Level() != "level move-time=0.1" {
		t.Errorf("name %q, level %q", p.Name(), hp.Level())
	}
	if !strings.Contains(log.String(), "the engine's stderr and the protocol in "+hp.log.Name()) || !strings.Contains(log.String(), "--clock cpu does not apply") {
		t.Errorf("env.Log: %q", log.String())
	}
	if err := arena.Close(p); err != nil {
		t.Error(err)
	}
	err = openErr("hub:/no/such/engine --x", Env{})
	if err == nil || !strings.Contains(err.Error(), "/no/such/engine") {
		t.Errorf("a missing program: %v", err)
	}
}

// SplitSpecs splits a list of specs at the commas outside quotes;
// JoinCommand writes words that SplitCommand reads back.
func TestSplitSpecs(t *testing.T) {
	got := SplitSpecs(`shipped@800, hub@t0.1:'e,1' "a,b" c\,d ,classic:4`)
	want := []string{"shipped@800", `hub@t0.1:'e,1' "a,b" c\,d`, "classic:4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SplitSpecs: %q, want %q", got, want)
	}
	for _, words := range [][]string{{"a"}, {"a b", "c'd", `e"f\g`, "", "h,i"}} {
		back, err := SplitCommand(JoinCommand(words))
		if err != nil || !reflect.DeepEqual(back, words) {
			t.Errorf("%q: joined %q, read back %q, %v", words, JoinCommand(words), back, err)
		}
	}
}
