package configs_test

import (
	"reflect"
	"slices"
	"testing"

	"dama/configs"
	"dama/model"
)

// TestModelAgrees checks the copies of package model's preset names and
// size limits that validation uses (configs does not import model).
func TestModelAgrees(t *testing.T) {
	got := slices.Sorted(slices.Values(configs.ModelPresets))
	if want := model.PresetNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("configs.ModelPresets = %v, model.PresetNames() = %v", got, want)
	}
	limits := [][2]int{
		{configs.MaxBlocks, model.MaxBlocks},
		{configs.MaxFilters, model.MaxFilters},
		{configs.MaxHeadFilters, model.MaxHeadFilters},
		{configs.MaxValueHidden, model.MaxValueHidden},
	}
	for i, l := range limits {
		if l[0] != l[1] {
			t.Errorf("limit %d: configs has %d, model %d", i, l[0], l[1])
		}
	}
	forEachPreset(t, func(name string, c *configs.Config) {
		if _, err := model.Preset(c.Model.Preset); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	})
}
