package train

import (
	"testing"

	"dama/configs"
)

// TestTrainOptions checks the mapping of the training section: set values
// pass unchanged.
func TestTrainOptions(t *testing.T) {
	c := configs.Default().Train
	o := trainOptions(c)
	if o.Batch != c.Batch || o.LR != c.LR || o.Momentum != c.Momentum || o.DecaySteps != c.LRDecaySteps || o.TotalSteps != c.LRDecaySteps {
		t.Errorf("train options %+v from %+v", o, c)
	}
}
