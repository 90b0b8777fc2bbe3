package model_test

import (
	"testing"

	"dama/model"
	"dama/model/modeltest"
)

// BenchmarkCheckpointLoad decodes and validates an in-memory checkpoint of
// the tiny preset with Adam state (the part of model.Load after reading
// the file), per wall-clock and per CPU second (steadier on a shared
// machine):
//
//	go test ./model/ -run XXX -bench CheckpointLoad
func BenchmarkCheckpointLoad(b *testing.B) {
	_, data := marshalledCheckpoint(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	cpu0 := modeltest.CPUTime()
	for b.Loop() {
		if _, err := model.Unmarshal(data); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "checkpoints/s")
	if cpu := (modeltest.CPUTime() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "checkpoints/cpu-s")
	}
}

// BenchmarkCheckpointMarshal encodes the same checkpoint (the part of
// Checkpoint.Save before writing the file).
func BenchmarkCheckpointMarshal(b *testing.B) {
	ck := trainedCheckpoint(b)
	ck.Meta.ConfigDigest = ck.Net.Config.Digest()
	b.ReportAllocs()
	n := 0
	cpu0 := modeltest.CPUTime()
	for b.Loop() {
		data, err := ck.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "checkpoints/s")
	if cpu := (modeltest.CPUTime() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "checkpoints/cpu-s")
	}
}
