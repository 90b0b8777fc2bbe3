package learn

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"dama/internal/envelope"
	"dama/model"
	"dama/model/infer"
	"dama/model/modeltest"
)

// replySamples returns a rand seeded with seed and n random samples with
// reply targets (randomSamples and withReplies drawing from it).
func replySamples(seed int64, n int) (*rand.Rand, []Sample) {
	rng := rand.New(rand.NewSource(seed))
	data := randomSamples(rng, n)
	withReplies(rng, data)
	return rng, data
}

// withReplies gives every sample a reply target: a random policy over the
// legal moves of the position after one of its moves (none when that
// position has no move).
func withReplies(rng *rand.Rand, samples []Sample) {
	for i := range samples {
		s := &samples[i]
		q := s.Pos.Play(s.Legal[rng.Intn(len(s.Legal))])
		legal := q.Legal(nil)
		if len(legal) == 0 {
			s.Reply = nil
			continue
		}
		p := make([]float32, len(legal))
		var sum float32
		for k := range p {
			p[k] = rng.Float32() + 0.01
			sum += p[k]
		}
		for k := range p {
			p[k] /= sum
		}
		s.Reply = &ReplyTarget{Pos: q, Legal: legal, Policy: p}
	}
}

// auxPreset returns the tiny preset with the reply head.
func auxPreset() model.Config {
	c, _ := model.Preset("tiny")
	c.AuxReply = true
	return c
}

// stripAux returns n without its training-only tensors, as a network
// without the reply head.
func stripAux(n *model.Network) *model.Network { return n.InferenceOnly() }

func TestTrainSpecAuxReply(t *testing.T) {
	for _, name := range model.PresetNames() {
		plain, _ := model.Preset(name)
		aux := plain
		aux.AuxReply = true
		if !reflect.DeepEqual(model.Spec(plain), model.Spec(aux)) || !reflect.DeepEqual(model.TrainSpec(plain), model.Spec(plain)) {
			t.Errorf("%s: the reply head changes the inference spec", name)
		}
		ts := model.TrainSpec(aux)
		if err := model.CheckSpec(ts); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if len(ts) != len(model.Spec(plain))+2 || ts[len(ts)-1].Output != model.ReplyOutput || ts[len(ts)-2].In != 2*plain.Blocks {
			t.Errorf("%s: train spec %+v does not end in a reply head on the tower", name, ts[len(model.Spec(plain)):])
		}
		lp, la := model.Layout(plain), model.Layout(aux)
		if len(la) != len(lp)+7 || !reflect.DeepEqual(la[:len(lp)], lp) {
			t.Errorf("%s: the reply head's tensors are not 7 tensors after the others", name)
		}
		if model.Flops(plain) != model.Flops(aux) {
			t.Errorf("%s: inference flops %v with the head, %v without", name, model.Flops(aux), model.Flops(plain))
		}
		if plain.Digest() == aux.Digest() || !strings.Contains(aux.String(), "aux reply") {
			t.Errorf("%s: digest %s / %s, string %q", name, plain.Digest(), aux.Digest(), aux.String())
		}
	}
	// Two reply outputs are refused.
	ts := model.TrainSpec(auxPreset())
	ts = append(ts, ts[len(ts)-1])
	ts[len(ts)-1].In = len(ts) - 3
	if err := model.CheckSpec(ts); err == nil || !strings.Contains(err.Error(), "reply outputs") {
		t.Errorf("two reply heads: %v", err)
	}
}

// The reply head's tensors are drawn after all others, so a seed gives the
// same trunk and heads with or without it.
func TestAuxReplyInitKeepsOtherTensors(t *testing.T) {
	plain, _ := model.Preset("tiny")
	a := model.NewNetwork(auxPreset(), rand.New(rand.NewSource(5)))
	b := model.NewNetwork(plain, rand.New(rand.NewSource(5)))
	if !reflect.DeepEqual(stripAux(a), b) {
		t.Error("the reply head changes the initialisation of the other tensors")
	}
	if err := a.Check(); err != nil {
		t.Error(err)
	}
	io := a.InferenceOnly()
	if err := io.Check(); err != nil || io.Config.AuxReply || len(a.Tensors)-len(io.Tensors) != 7 {
		t.Errorf("InferenceOnly: %d of %d tensors left, config %v (%v)", len(io.Tensors), len(a.Tensors), io.Config, err)
	}
	for _, tt := range io.Tensors {
		if strings.HasPrefix(tt.Name, "reply/") {
			t.Errorf("InferenceOnly keeps %s", tt.Name)
		}
	}
	if a.NumParams() <= b.NumParams() {
		t.Errorf("%d parameters with the head, %d without", a.NumParams(), b.NumParams())
	}
}

// Inference ignores the reply head: the same weights give bit-identical
// outputs with and without it, and the Gorgonia graph in eval mode agrees.
func TestAuxReplyInferenceIgnoresHead(t *testing.T) {
	net, rng := modeltest.PerturbedNet(auxPreset(), 31)
	plain := stripAux(net)
	const B = 12
	qs := modeltest.RandomPositions(rng, B)
	input := make([]float32, B*model.InputSize)
	modeltest.EncodeAll(input, qs)
	// (That the plan has the layers of Spec alone, with or without the
	// head, is checked in package infer: TestPlanIgnoresReplyHead.)
	p1, v1 := fp32Forward(t, net, input, B)
	p2, v2 := fp32Forward(t, plain, input, B)
	if !reflect.DeepEqual(p1, p2) || !reflect.DeepEqual(v1, v2) {
		t.Error("inference output differs with the reply head")
	}
	if d := compareForward(t, net, input, B); d > 1e-4 {
		t.Errorf("forward pass differs from the graph by %v", d)
	}
	// Every backend the machine has, through the Evaluator.
	for _, name := range infer.BackendNames() {
		evA, errA := infer.OpenEvaluator(net, infer.EvaluatorOptions{Backend: name, MaxBatch: 4})
		evB, errB := infer.OpenEvaluator(plain, infer.EvaluatorOptions{Backend: name, MaxBatch: 4})
		if errB != nil {
			t.Logf("backend %s: %v", name, errB)
			if evA != nil {
				evA.Close()
			}
			continue
		}
		if errA != nil {
			t.Errorf("backend %s refuses the network with the head: %v", name, errA)
			evB.Close()
			continue
		}
		for _, q := range qs {
			a, b := modeltest.EvaluateBoth(t, evA, evB, q)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("backend %s: evaluation differs with the reply head", name)
				break
			}
		}
		evA.Close()
		evB.Close()
	}
	f1, err := net.Fold()
	if err != nil {
		t.Fatal(err)
	}
	f2, _ := plain.Fold()
	if !reflect.DeepEqual(f1, f2) {
		t.Error("Fold differs with the reply head")
	}
}

// Without the head (the switch off) the loss is today's: reply targets in
// the samples change nothing, and a network with the head but weight 0
// trains the rest exactly as one without it.
func TestAuxOffReproducesLoss(t *testing.T) {
	const B = 8
	_, data := replySamples(41, B)
	bare := append([]Sample(nil), data...)
	for i := range bare {
		bare[i].Reply = nil
	}
	plain, _ := model.Preset("tiny")
	train := func(cfg model.Config, w float64, samples []Sample) ([]Losses, *model.Network) {
		net := model.NewNetwork(cfg, rand.New(rand.NewSource(42)))
		tr, ls := trainSteps(t, net, TrainOptions{Batch: B, LR: 1e-2, WeightDecay: 1e-4, AuxWeight: w}, samples, 3)
		return ls, tr.Network()
	}
	base, baseNet := train(plain, 0.15, bare)
	withTargets, n2 := train(plain, 0.15, data)
	if !reflect.DeepEqual(base, withTargets) || !reflect.DeepEqual(baseNet, n2) {
		t.Errorf("reply targets change training without the head:\n%+v\n%+v", base, withTargets)
	}
	for _, l := range base {
		if l.Aux != 0 || l.AuxShare != 0 || l.Total != l.Policy+l.Value+l.L2 {
			t.Errorf("losses without the head %+v", l)
		}
	}
	zero, auxNet := train(auxPreset(), 0, data)
	for i := range base {
		if zero[i].Policy != base[i].Policy || zero[i].Value != base[i].Value || zero[i].Entropy != base[i].Entropy {
			t.Errorf("step %d: head with weight 0 gives policy %v value %v, without the head %v %v", i, zero[i].Policy, zero[i].Value, base[i].Policy, base[i].Value)
		}
		if !(zero[i].Aux > 0) || zero[i].AuxShare != 1 {
			t.Errorf("step %d: aux loss %v share %v with every sample targeted", i, zero[i].Aux, zero[i].AuxShare)
		}
	}
	if !reflect.DeepEqual(stripAux(auxNet), baseNet) {
		t.Error("a head with weight 0 changes how the rest of the network trains")
	}
}

// TestAuxToyFit trains the tiny net with the reply head on fixed one-hot
// reply targets (one sample without any): the reply loss must fall by at
// least half, and Total must add it with its weight and share.
func TestAuxToyFit(t *testing.T) {
	const B = 8
	rng, data := replySamples(51, B)
	data[3].Reply = nil
	targets := 0
	for i := range data {
		if r := data[i].Reply; r != nil {
			clear(r.Policy)
			r.Policy[rng.Intn(len(r.Policy))] = 1
			targets++
		}
	}
	const w = 0.5
	net := model.NewNetwork(auxPreset(), rand.New(rand.NewSource(52)))
	_, ls := trainSteps(t, net, TrainOptions{Batch: B, LR: 1e-2, WeightDecay: 1e-5, AuxWeight: w}, data, 50)
	first, last := ls[0], ls[len(ls)-1]
	for i, l := range ls {
		want := l.Policy + l.Value + w*l.Aux*l.AuxShare + l.L2
		if math.Abs(l.Total-want) > 1e-5*math.Abs(want) || l.AuxShare != float64(targets)/B {
			t.Fatalf("step %d: total %v, want %v; share %v, want %v", i, l.Total, want, l.AuxShare, float64(targets)/B)
		}
	}
	t.Logf("reply loss %.3f -> %.3f (policy %.3f -> %.3f)", first.Aux, last.Aux, first.Policy, last.Policy)
	if !(last.Aux < 0.5*first.Aux) {
		t.Errorf("reply loss fell from %v to %v, want below half", first.Aux, last.Aux)
	}
}

func TestAuxReplyTargetsChecked(t *testing.T) {
	const B = 4
	_, data := replySamples(61, B)
	data[2].Reply = nil
	rm := make([]float32, B*model.PolicySize)
	rt := make([]float32, B*model.PolicySize)
	for i := range rm {
		rm[i], rt[i] = 7, 7 // stale values must be overwritten
	}
	n, err := loadReplies(data, rm, rt)
	if err != nil || n != B-1 {
		t.Fatalf("loadReplies: %d targets, %v; want %d", n, err, B-1)
	}
	for i := 0; i < B; i++ {
		var sum float64
		open := 0
		for k := i * model.PolicySize; k < (i+1)*model.PolicySize; k++ {
			sum += float64(rt[k])
			if rm[k] == 0 {
				open++
			}
		}
		switch r := data[i].Reply; {
		case r == nil && (sum != 0 || open != model.PolicySize):
			t.Errorf("sample %d without a target: target sum %v, %d unmasked", i, sum, open)
		case r != nil && (math.Abs(sum-1) > 1e-5 || open > len(r.Legal)):
			t.Errorf("sample %d: target sum %v, %d unmasked for %d legal replies", i, sum, open, len(r.Legal))
		}
	}
	net := model.NewNetwork(auxPreset(), rand.New(rand.NewSource(62)))
	tr, err := NewTrainer(&model.Checkpoint{Net: net}, TrainOptions{Batch: B, AuxWeight: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	data[0].Reply.Policy = append([]float32(nil), data[0].Reply.Policy...)
	data[0].Reply.Policy[0] += 0.5
	if _, err := tr.Step(data); err == nil || !strings.Contains(err.Error(), "reply target") {
		t.Errorf("bad reply target: %v", err)
	}
	if tr.StepCount() != 0 {
		t.Error("a rejected batch took a step")
	}
	if err := (TrainOptions{Batch: B, AuxWeight: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "AuxWeight") {
		t.Errorf("negative AuxWeight: %v", err)
	}
}

// A checkpoint with the reply head round-trips (version 2, weights and
// optimizer state) and resumes; one without it is still version 1.
func TestAuxCheckpointRoundTrip(t *testing.T) {
	const B = 4
	rng, data := replySamples(71, B)
	tr, err := NewTrainer(&model.Checkpoint{Net: model.NewNetwork(auxPreset(), rng)}, TrainOptions{Batch: B, AuxWeight: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := tr.Step(data); err != nil {
			t.Fatal(err)
		}
	}
	ck := tr.Checkpoint()
	tr.Close()
	ck.Meta.ConfigDigest = ck.Net.Config.Digest()
	b, err := ck.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != model.FormatVersionFlags {
		t.Errorf("checkpoint with the head has version %d, want %d", v, model.FormatVersionFlags)
	}
	got, err := model.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	got.Meta.Created, ck.Meta.Created = ck.Meta.Created.UTC(), ck.Meta.Created.UTC()
	if !reflect.DeepEqual(got.Net, ck.Net) || !reflect.DeepEqual(got.Opt, ck.Opt) || got.Step != ck.Step || !got.Net.Config.AuxReply {
		t.Error("checkpoint with the head does not round-trip")
	}
	tr2, err := NewTrainer(got, TrainOptions{Batch: B, AuxWeight: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr2.Step(data); err != nil {
		t.Fatal(err)
	}
	tr2.Close()

	plain := &model.Checkpoint{Net: stripAux(ck.Net)}
	plain.Meta.ConfigDigest = plain.Net.Config.Digest()
	pb, err := plain.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(pb[8:]); v != model.FormatVersion {
		t.Errorf("checkpoint without the head has version %d, want %d", v, model.FormatVersion)
	}

	// The flags word follows the name and the five sizes.
	at := envelope.HeaderLen + 4 + len(ck.Net.Config.Name) + 5*4
	for _, tc := range []struct {
		flags uint32
		want  string
	}{{0, "no config flags"}, {3, "unknown bits"}} {
		bad := append([]byte(nil), b...)
		binary.LittleEndian.PutUint32(bad[at:], tc.flags)
		if _, err := model.Unmarshal(reseal(bad)); !errors.Is(err, envelope.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("flags %d: %v, want %q", tc.flags, err, tc.want)
		}
	}
	// A version 1 file cannot claim the head's tensors.
	bad := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(bad[8:], model.FormatVersion)
	if _, err := model.Unmarshal(reseal(bad)); !errors.Is(err, envelope.ErrMalformed) {
		t.Errorf("version 1 with a flags word: %v", err)
	}
}
