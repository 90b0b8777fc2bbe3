package configs

import (
	"strings"
	"testing"
)

// The reply head's keys: off with weight 0.15 by default and in both
// presets, switched on by model.aux_reply, the weight validated.
func TestAuxReplyKeys(t *testing.T) {
	for _, name := range Presets {
		c, err := Load(name, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Model.AuxReply || c.Train.AuxReplyWeight != 0.15 {
			t.Errorf("preset %s: aux_reply %v weight %v, want off and 0.15", name, c.Model.AuxReply, c.Train.AuxReplyWeight)
		}
	}
	c, err := Load("", []string{"DAMA_MODEL_AUX_REPLY=true"}, []string{"train.aux_reply_weight=0.5"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Model.AuxReply || c.Train.AuxReplyWeight != 0.5 {
		t.Errorf("aux_reply %v weight %v, want true 0.5", c.Model.AuxReply, c.Train.AuxReplyWeight)
	}
	c, err = Load("ab/aux.yaml", nil, nil)
	if err != nil || !c.Model.AuxReply {
		t.Errorf("ab/aux.yaml: aux_reply off (%v)", err)
	}
	for _, tc := range []struct{ set, want string }{
		{"train.aux_reply_weight=0", "train.aux_reply_weight = 0"},
		{"train.aux_reply_weight=11", "(0,10]"},
		{"train.aux_reply_weight=-1", "train.aux_reply_weight = -1"},
		{"model.aux_reply=maybe", "model.aux_reply"},
	} {
		if _, err := Load("quick", nil, []string{tc.set}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.set, err, tc.want)
		}
	}
}
