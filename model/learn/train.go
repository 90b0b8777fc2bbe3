package learn

import (
	"fmt"
	"math"
	"time"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"dama/model"
	"dama/rules"
)

// Sample is one training position with its targets, from the side to
// move's point of view.
type Sample struct {
	Pos         rules.Position
	Repetitions int
	QuietPlies  int
	Legal       []rules.Move // legal moves of Pos
	Policy      []float32    // target per legal move, sums to 1
	WDL         [3]float32   // target win, draw, loss for the side to move
}

// TrainOptions configures a Trainer. Zero fields take the documented
// defaults, except the amounts whose zero is none (WeightDecay, Momentum);
// no field has a negative value with a special meaning.
type TrainOptions struct {
	Batch       int     // samples per step, fixed for a Trainer (required)
	LR          float64 // peak learning rate (default 1e-3 for Adam, 0.02 for SGD)
	WeightDecay float64 // L2 coefficient on convolution and dense weights (0: none)

	Optimizer string  // "adam" (default) or "sgd" (with momentum)
	Momentum  float64 // SGD momentum, [0,1) (0: none, plain SGD; StandardMomentum is the usual value)
	Beta1     float64 // Adam (default 0.9)
	Beta2     float64 // Adam (default 0.999)
	Epsilon   float64 // Adam (default 1e-8)

	// Learning-rate schedule: the rate follows Schedule over the training
	// steps, counted from the start of training (Checkpoint.Step), so a
	// trainer resumed from a checkpoint continues it where it was:
	//   "constant" (default): LR;
	//   "step": LR * DecayFactor^(k / DecaySteps) after k post-warm-up steps;
	//   "cosine": from LR down to MinLR over TotalSteps (then MinLR).
	// It is scaled by a warm-up that rises linearly from 1/WarmupSteps to 1
	// over the first WarmupSteps steps of the optimizer state
	// (Checkpoint.Opt.Steps): a fresh Adam's first updates move every weight
	// by about the full rate, so a trainer that starts a new optimizer on a
	// trained network (one shipped without its state) warms up again, and
	// one resumed with its state does not.
	Schedule    string
	WarmupSteps int64
	DecaySteps  int64   // step schedule
	DecayFactor float64 // step schedule (default 0.1)
	TotalSteps  int64   // cosine schedule
	MinLR       float64 // cosine schedule

	BNMomentum float64 // weight of a batch in the running statistics (default 0.1)
}

// StandardMomentum is the usual SGD momentum (TrainOptions.Momentum).
const StandardMomentum = 0.9

func (o TrainOptions) withDefaults() TrainOptions {
	if o.Optimizer == "" {
		o.Optimizer = "adam"
	}
	if o.LR == 0 {
		o.LR = 1e-3
		if o.Optimizer == "sgd" {
			o.LR = 0.02
		}
	}
	if o.Beta1 == 0 {
		o.Beta1 = 0.9
	}
	if o.Beta2 == 0 {
		o.Beta2 = 0.999
	}
	if o.Epsilon == 0 {
		o.Epsilon = 1e-8
	}
	if o.Schedule == "" {
		o.Schedule = "constant"
	}
	if o.DecayFactor == 0 {
		o.DecayFactor = 0.1
	}
	if o.BNMomentum == 0 {
		o.BNMomentum = 0.1
	}
	return o
}

// Validate reports the first bad option (after defaults are applied).
func (o TrainOptions) Validate() error {
	o = o.withDefaults()
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("learn: train option %s = %v, want %s", field, v, want)
	}
	switch {
	case o.Batch < 2 || o.Batch > 1<<16:
		return bad("Batch", o.Batch, "2..65536 (batch norm needs two samples)")
	case !(o.LR > 0) || o.LR > 10:
		return bad("LR", o.LR, "in (0, 10]")
	case !(o.WeightDecay >= 0) || o.WeightDecay > 1:
		return bad("WeightDecay", o.WeightDecay, "in [0, 1]")
	case o.Optimizer != "adam" && o.Optimizer != "sgd":
		return bad("Optimizer", o.Optimizer, `"adam" or "sgd"`)
	case !(o.Momentum >= 0 && o.Momentum < 1):
		return bad("Momentum", o.Momentum, "in [0, 1)")
	case !(o.Beta1 >= 0 && o.Beta1 < 1):
		return bad("Beta1", o.Beta1, "in [0, 1)")
	case !(o.Beta2 >= 0 && o.Beta2 < 1):
		return bad("Beta2", o.Beta2, "in [0, 1)")
	case !(o.Epsilon > 0):
		return bad("Epsilon", o.Epsilon, "> 0")
	case o.Schedule != "constant" && o.Schedule != "step" && o.Schedule != "cosine":
		return bad("Schedule", o.Schedule, `"constant", "step" or "cosine"`)
	case o.WarmupSteps < 0:
		return bad("WarmupSteps", o.WarmupSteps, ">= 0")
	case o.Schedule == "step" && o.DecaySteps <= 0:
		return bad("DecaySteps", o.DecaySteps, "> 0 for the step schedule")
	case !(o.DecayFactor > 0 && o.DecayFactor <= 1):
		return bad("DecayFactor", o.DecayFactor, "in (0, 1]")
	case o.Schedule == "cosine" && o.TotalSteps <= 0:
		return bad("TotalSteps", o.TotalSteps, "> 0 for the cosine schedule")
	case !(o.MinLR >= 0 && o.MinLR <= o.LR):
		return bad("MinLR", o.MinLR, "in [0, LR]")
	case !(o.BNMomentum > 0 && o.BNMomentum <= 1):
		return bad("BNMomentum", o.BNMomentum, "in (0, 1]")
	}
	return nil
}

// RateAt returns the learning rate of training step step (counted from 0)
// when the optimizer has taken optSteps steps before it (counted from when
// its state began; equal to step for a run trained from scratch).
func (o TrainOptions) RateAt(step, optSteps int64) float64 {
	o = o.withDefaults()
	r := o.scheduled(step)
	if optSteps < o.WarmupSteps {
		r *= float64(optSteps+1) / float64(o.WarmupSteps)
	}
	return r
}

// scheduled is the rate of Schedule at step, before the warm-up's factor.
func (o TrainOptions) scheduled(step int64) float64 {
	k := max(step-o.WarmupSteps, 0)
	switch o.Schedule {
	case "step":
		if o.DecaySteps > 0 {
			return o.LR * math.Pow(o.DecayFactor, float64(k/o.DecaySteps))
		}
	case "cosine":
		if o.TotalSteps > 0 {
			if k >= o.TotalSteps {
				return o.MinLR
			}
			return o.MinLR + (o.LR-o.MinLR)*0.5*(1+math.Cos(math.Pi*float64(k)/float64(o.TotalSteps)))
		}
	}
	return o.LR
}

// Losses are the mean losses of one training step.
type Losses struct {
	Policy  float64 // cross-entropy of the masked policy against its target
	Value   float64 // cross-entropy of the WDL head against its target
	Entropy float64 // mean entropy of the network's policy over the legal moves
	L2      float64 // weight decay term
	Total   float64 // Policy + Value + L2, the minimised loss
	LR      float64 // learning rate used
}

// illegalLogit is added to the logits of illegal moves before the softmax.
const illegalLogit = -1e9

// Trainer trains a network with a Gorgonia graph of a fixed batch size
// (make one Trainer per batch size). The batch norms normalise with each
// batch's statistics and update their running statistics with weight
// BNMomentum; Checkpoint and Network return those running statistics, which
// inference uses. It is not safe for concurrent use.
type Trainer struct {
	opt   TrainOptions
	net   *model.Network // tensors, refreshed from the graph by Checkpoint
	meta  model.Meta
	step  int64
	gr    *graph
	vm    G.VM
	slots [][]float32 // optimizer state per trainable node: m (and v for Adam)
	optN  int64       // optimizer steps taken, for Adam's bias correction

	x, mask, ptarget, vtarget []float32 // graph input backings (x: the NHWC encoding of a batch)
}

// NewTrainer starts training from ck (which is not changed) with the given
// options. The checkpoint's optimizer state is resumed when it is for the
// same optimizer.
func NewTrainer(ck *model.Checkpoint, opt TrainOptions) (*Trainer, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	if ck == nil || ck.Net == nil {
		return nil, fmt.Errorf("learn: NewTrainer: no network in the checkpoint")
	}
	if err := ck.Net.Check(); err != nil {
		return nil, err
	}
	t := &Trainer{opt: opt, net: ck.Net.Clone(), meta: ck.Meta, step: ck.Step}
	gr, err := buildGraph(t.net, opt.Batch, tensor.Float32, true, opt.BNMomentum, opt.WeightDecay)
	if err != nil {
		return nil, err
	}
	t.gr = gr
	B := opt.Batch
	t.x = make([]float32, B*model.InputSize)
	t.mask = make([]float32, B*model.PolicySize)
	t.ptarget = make([]float32, B*model.PolicySize)
	t.vtarget = make([]float32, B*model.ValueSize)
	if err := t.bind(); err != nil {
		return nil, err
	}
	t.vm = G.NewTapeMachine(gr.g, G.BindDualValues(gr.learn...))
	if err := gr.setStats(t.net); err != nil {
		t.vm.Close()
		return nil, err
	}
	nslots := 1
	if opt.Optimizer == "adam" {
		nslots = 2
	}
	t.slots = make([][]float32, nslots*len(gr.learn))
	for k, i := range gr.learnIdx {
		for s := 0; s < nslots; s++ {
			t.slots[k*nslots+s] = make([]float32, len(t.net.Tensors[i].Data))
		}
	}
	if ck.Opt.Kind == opt.Optimizer && len(ck.Opt.Slots) > 0 {
		if err := t.restoreSlots(ck.Opt, nslots); err != nil {
			t.vm.Close()
			return nil, err
		}
		t.optN = ck.Opt.Steps
	}
	return t, nil
}

func (t *Trainer) restoreSlots(o model.OptimizerState, nslots int) error {
	if len(o.Slots) != len(t.slots) {
		return fmt.Errorf("learn: optimizer state has %d tensors, want %d", len(o.Slots), len(t.slots))
	}
	for k, i := range t.gr.learnIdx {
		for s := 0; s < nslots; s++ {
			src := o.Slots[k*nslots+s]
			name := model.SlotName(s, t.net.Tensors[i].Name)
			if src.Name != name || len(src.Data) != len(t.slots[k*nslots+s]) {
				return fmt.Errorf("learn: optimizer tensor %d is %s with %d values, want %s with %d", k*nslots+s, src.Name, len(src.Data), name, len(t.slots[k*nslots+s]))
			}
			copy(t.slots[k*nslots+s], src.Data)
		}
	}
	return nil
}

// StepCount returns the number of training steps taken (including those of
// the checkpoint it started from).
func (t *Trainer) StepCount() int64 { return t.step }

// Step trains on one batch of exactly the options' Batch samples and returns
// the losses computed before the update. A sample with bad targets is
// reported by its index and nothing is changed.
func (t *Trainer) Step(batch []Sample) (Losses, error) {
	if err := t.load(batch); err != nil {
		return Losses{}, err
	}
	// Gorgonia accumulates gradients across runs: clear them first.
	if err := t.zeroGrads(); err != nil {
		return Losses{}, err
	}
	defer t.vm.Reset()
	if err := t.vm.RunAll(); err != nil {
		return Losses{}, fmt.Errorf("learn: training step: %w", err)
	}
	l := Losses{
		Policy: scalarValue(t.gr.policyLoss),
		Value:  scalarValue(t.gr.valueLoss),
		L2:     scalarValue(t.gr.l2),
	}
	l.Total = l.Policy + l.Value + l.L2
	l.Entropy = t.entropy()
	if math.IsNaN(l.Total) || math.IsInf(l.Total, 0) {
		return l, fmt.Errorf("learn: training step %d: loss is %v (policy %v, value %v); weights left unchanged", t.step, l.Total, l.Policy, l.Value)
	}
	l.LR = t.opt.RateAt(t.step, t.optN)
	if err := t.update(l.LR); err != nil {
		return l, err
	}
	t.step++
	return l, nil
}

func scalarValue(n *G.Node) float64 {
	switch v := n.Value().Data().(type) {
	case float32:
		return float64(v)
	case float64:
		return v
	}
	return math.NaN()
}

// load encodes a batch into the graph's inputs.
func (t *Trainer) load(batch []Sample) error {
	if len(batch) != t.opt.Batch {
		return fmt.Errorf("learn: training batch has %d samples, this trainer takes %d", len(batch), t.opt.Batch)
	}
	if err := loadBatch(batch, t.x, t.mask, t.ptarget, t.vtarget); err != nil {
		return err
	}
	return t.bind()
}

// bind (re)binds the input backings to the graph's input nodes.
func (t *Trainer) bind() error {
	B := t.opt.Batch
	type let struct {
		n     *G.Node
		shape []int
		data  []float32
	}
	lets := []let{
		{t.gr.x, t.gr.inputShape(), t.x},
		{t.gr.mask, []int{B, model.PolicySize}, t.mask},
		{t.gr.ptarget, []int{B, model.PolicySize}, t.ptarget},
		{t.gr.vtarget, []int{B, model.ValueSize}, t.vtarget},
	}
	for _, l := range lets {
		if err := G.Let(l.n, tensor.New(tensor.WithShape(l.shape...), tensor.WithBacking(l.data))); err != nil {
			return fmt.Errorf("learn: binding %s: %w", l.n.Name(), err)
		}
	}
	return nil
}

// loadBatch validates samples and writes the graph inputs: NHWC planes,
// policy mask and targets, WDL targets.
func loadBatch(batch []Sample, x, mask, ptarget, vtarget []float32) error {
	for i := range batch {
		s := &batch[i]
		if err := checkSample(s); err != nil {
			return fmt.Errorf("learn: sample %d (%s): %w", i, s.Pos.FEN(), err)
		}
		model.Encode(x[i*model.InputSize:(i+1)*model.InputSize], s.Pos, s.Repetitions, s.QuietPlies)
		// The target is normalised where the sample is made (checkSample
		// holds it to a sum of 1): it is scattered as it is.
		if err := model.PolicyTarget(ptarget[i*model.PolicySize:(i+1)*model.PolicySize], mask[i*model.PolicySize:(i+1)*model.PolicySize], s.Pos, s.Legal, s.Policy, illegalLogit); err != nil {
			return fmt.Errorf("learn: sample %d: %w", i, err)
		}
		ws := s.WDL[0] + s.WDL[1] + s.WDL[2]
		for k := 0; k < model.ValueSize; k++ {
			vtarget[i*model.ValueSize+k] = s.WDL[k] / ws
		}
	}
	return nil
}

// checkPolicy verifies a policy target over legal moves: one finite,
// non-negative value per move, summing to 1.
func checkPolicy(legal []rules.Move, policy []float32) error {
	if len(legal) == 0 {
		return fmt.Errorf("no legal moves")
	}
	if len(policy) != len(legal) {
		return fmt.Errorf("%d policy targets for %d legal moves", len(policy), len(legal))
	}
	var sum float64
	for i, p := range policy {
		if !(p >= 0) || math.IsInf(float64(p), 0) {
			return fmt.Errorf("policy target %d (%s) is %v", i, legal[i], p)
		}
		sum += float64(p)
	}
	if math.Abs(sum-1) > 1e-3 {
		return fmt.Errorf("policy targets sum to %v, want 1", sum)
	}
	return nil
}

// checkSample verifies a sample's targets.
func checkSample(s *Sample) error {
	if err := checkPolicy(s.Legal, s.Policy); err != nil {
		return err
	}
	var sum float64
	for i, p := range s.WDL {
		if !(p >= 0) || math.IsInf(float64(p), 0) {
			return fmt.Errorf("WDL target %d is %v", i, p)
		}
		sum += float64(p)
	}
	if math.Abs(sum-1) > 1e-3 {
		return fmt.Errorf("WDL targets sum to %v, want 1", sum)
	}
	return nil
}

// entropy returns the mean entropy of the masked policy of the last run.
func (t *Trainer) entropy() float64 {
	logp, ok := t.gr.logp.Value().Data().([]float32)
	if !ok {
		return math.NaN()
	}
	var h float64
	for i, m := range t.mask {
		if m == 0 {
			lp := float64(logp[i])
			h -= math.Exp(lp) * lp
		}
	}
	return h / float64(t.opt.Batch)
}

// zeroGrads clears the gradients of the trainable nodes.
func (t *Trainer) zeroGrads() error {
	for _, n := range t.gr.learn {
		gv, err := n.Grad()
		if err != nil || gv == nil {
			continue // no gradient yet: nothing accumulated
		}
		if g, ok := gv.Data().([]float32); ok {
			clear(g)
		}
	}
	return nil
}

// update applies one optimizer step with learning rate lr.
func (t *Trainer) update(lr float64) error {
	o := t.opt
	t.optN++
	var c1, c2 float64
	if o.Optimizer == "adam" {
		c1 = 1 - math.Pow(o.Beta1, float64(t.optN))
		c2 = 1 - math.Pow(o.Beta2, float64(t.optN))
	}
	for k, n := range t.gr.learn {
		gv, err := n.Grad()
		if err != nil {
			return fmt.Errorf("learn: gradient of %s: %w", n.Name(), err)
		}
		g, ok1 := gv.Data().([]float32)
		w, ok2 := n.Value().Data().([]float32)
		if !ok1 || !ok2 || len(g) != len(w) {
			return fmt.Errorf("learn: gradient of %s has an unexpected type or size", n.Name())
		}
		if o.Optimizer == "adam" {
			m, v := t.slots[2*k], t.slots[2*k+1]
			b1, b2 := float32(o.Beta1), float32(o.Beta2)
			step := float32(lr / c1)
			sc2 := float32(1 / c2)
			eps := float32(o.Epsilon)
			for i, gi := range g {
				m[i] = b1*m[i] + (1-b1)*gi
				v[i] = b2*v[i] + (1-b2)*gi*gi
				w[i] -= step * m[i] / (float32(math.Sqrt(float64(v[i]*sc2))) + eps)
			}
		} else {
			m := t.slots[k]
			mu, rate := float32(o.Momentum), float32(lr)
			for i, gi := range g {
				m[i] = mu*m[i] + gi
				w[i] -= rate * m[i]
			}
		}
	}
	return nil
}

// Network returns a copy of the network as trained so far (weights and
// running statistics).
func (t *Trainer) Network() *model.Network {
	t.gr.readParams(t.net)
	t.gr.readStats(t.net)
	return t.net.Clone()
}

// Checkpoint returns a checkpoint of the current state: a copy of the
// network (weights and batch-norm running statistics), the step count, the
// optimizer state, and the metadata of the checkpoint training started from
// with Created set to now and ConfigDigest filled in. Set Meta.Parent to
// the name of the starting checkpoint (the trainer does not know it) and
// Meta.Note before saving.
func (t *Trainer) Checkpoint() *model.Checkpoint {
	net := t.Network()
	ck := &model.Checkpoint{Net: net, Step: t.step, Meta: t.meta}
	ck.Meta.Created = time.Now().UTC()
	ck.Meta.ConfigDigest = net.Config.Digest()
	ck.Opt = model.OptimizerState{Kind: t.opt.Optimizer, Steps: t.optN}
	nslots := len(t.slots) / len(t.gr.learn)
	for k, i := range t.gr.learnIdx {
		for s := 0; s < nslots; s++ {
			src := t.net.Tensors[i]
			ck.Opt.Slots = append(ck.Opt.Slots, model.Tensor{
				Name: model.SlotName(s, src.Name), Kind: src.Kind,
				Shape: append([]int(nil), src.Shape...), Data: append([]float32(nil), t.slots[k*nslots+s]...),
			})
		}
	}
	return ck
}

// Close releases the graph's machine.
func (t *Trainer) Close() {
	if t.vm != nil {
		t.vm.Close()
		t.vm = nil
	}
}
