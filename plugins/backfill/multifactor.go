package backfill

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// Multifactor is the plugin of Slurm's priority/multifactor plugin over EASY
// backfilling (issue 36): a job's priority is the sum of weight x factor
// over age, fair share (classic or Fair Tree), job size, partition and QOS,
// recomputed every PriorityCalcPeriod; the queue is ordered by partition
// PriorityTier, then priority, then submission, and EASY backfilling (or
// Slurm's loops, SchedulerType) runs over that order, skipping the jobs a
// limit holds (limits.go). Parameter names are slurm.conf's and
// sacctmgr's. Formulas, sources and choices: docs/policies.md
// ("multifactor").
func Multifactor() sdk.Plugin {
	w := func(name, what string) sdk.Param {
		return sdk.Param{Name: name, Type: sdk.Int, Default: "0", Doc: "weight of the " + what + " factor (0 to 4294967295)"}
	}
	return sdk.Plugin{
		Info: sdk.Info{
			Name:    "multifactor",
			Version: "0.2.0",
			Description: "Slurm's priority/multifactor (age, fair share classic or Fair Tree with decayed usage, job size, " +
				"partition, QOS) over EASY backfilling or Slurm's loops, with Slurm's limits; slurm.conf and sacctmgr parameter names",
			Params: append([]sdk.Param{
				windowsParam(),
				w("PriorityWeightAge", "age"),
				w("PriorityWeightFairshare", "fair-share"),
				w("PriorityWeightJobSize", "job size"),
				w("PriorityWeightPartition", "partition"),
				w("PriorityWeightQOS", "QOS"),
				{Name: "PriorityMaxAge", Type: sdk.String, Default: "7-0",
					Doc: "wait at which the age factor reaches 1 (Slurm time string: min, min:sec, hr:min:sec, days-hr, days-hr:min, days-hr:min:sec)"},
				{Name: "PriorityDecayHalfLife", Type: sdk.String, Default: "7-0",
					Doc: "half-life of past usage (Slurm time string; 0: no decay)"},
				{Name: "PriorityCalcPeriod", Type: sdk.String, Default: "5",
					Doc: "minutes between calculations of decay, fair share and priorities (Slurm time string; 0: at every scheduling call)"},
				{Name: "PriorityUsageResetPeriod", Type: sdk.String, Default: "NONE",
					Doc: "usage set to 0: NONE, NOW (the same here: usage starts at 0), DAILY or WEEKLY (trace time 0 read as Sunday 00:00)"},
				{Name: "PriorityFavorSmall", Type: sdk.String, Default: "NO",
					Doc: "YES: the smaller the job the larger its job size factor; NO: the larger"},
				{Name: "PriorityFlags", Type: sdk.String, Default: "",
					Doc: "comma-separated: NO_FAIR_TREE (classic fair share), SMALL_RELATIVE_TO_TIME, NO_NORMAL_PART, NO_NORMAL_QOS, " +
						"NO_NORMAL_ALL, ACCRUE_ALWAYS (no effect: jobs have no holds or dependencies)"},
				{Name: "FairShareDampeningFactor", Type: sdk.Int, Default: "1",
					Doc: "classic fair share: F = 2^(-UE/S/d)"},
				{Name: "Accounts", Type: sdk.String, Default: "",
					Doc: "the association tree: entries under the root, each an account NAME[:SHARES](ENTRIES) or a user ID[:SHARES], " +
						"ID the trace's user number, SHARES > 0 (default 1) or parent (FairShare=parent); e.g. \"A:40(B:30(1), C:10(2,3)), " +
						"D:60(4)\"; empty: every user of the trace its own account, all with one share"},
				{Name: "AutoAccounts", Type: sdk.String, Default: AccountsUser, Choices: []string{AccountsUser, AccountsGroup},
					Doc: "without Accounts, the accounts of the tree: user (every user its own account) or group (every user in the " +
						"account gN of its trace group N, the group of its first job; every account and user one share)"},
				{Name: "PriorityJobFactor", Type: sdk.String, Default: "",
					Doc: "partitions' PriorityJobFactor as PARTITION=VALUE,... (the job's trace partition number; others 0)"},
				{Name: "PriorityTier", Type: sdk.String, Default: "",
					Doc: "partitions' PriorityTier as PARTITION=VALUE,... (jobs of a higher tier come first whatever their priority; others 0)"},
				{Name: "QOSPriority", Type: sdk.String, Default: "",
					Doc: "QOS priorities as QUEUE=VALUE,...: the job's QOS is its trace queue number (others 0)"},
				{Name: "PriorityWeightTRES", Type: sdk.String, Default: "",
					Doc: "TRES weights of the priority, e.g. CPU=1000,Mem=2000,GRES/gpu=3000,Node=500: each times the job's request over the cluster's"},
				{Name: "TRESBillingWeights", Type: sdk.String, Default: "",
					Doc: "usage charged per second: the sum (MAX_TRES: the largest) of weight x TRES held, e.g. CPU=1.0,Mem=0.25G,GRES/gpu=2.0 " +
						"(Mem per MiB, or per K, M, G, T, P as suffixed); empty: CPU=1"},
				{Name: "SchedulerType", Type: sdk.String, Default: SchedEASY, Choices: []string{SchedEASY, SchedBackfill, SchedBuiltin},
					Doc: "easy: EASY backfilling at every event over the priority order (schedlab's; Slurm's default is sched/backfill); " +
						"sched/backfill: Slurm's main loop and backfill loop (SchedulerParameters; on nodes the plan counts totals); sched/builtin: the main loop only"},
				{Name: "SchedulerParameters", Type: sdk.String, Default: "",
					Doc: "with sched/*: sched_interval (60 s; -1 off, 0 every call), default_queue_depth (100), bf_interval (30 s; -1 off, " +
						"0 every call), bf_window (1440 min), bf_resolution (60 s), bf_max_job_test (500; 0 no limit), bf_max_job_user (0: no limit), bf_continue"},
				reservationParam(),
				notesParam(),
			}, limitParams()...),
		},
		New: func() sdk.Policy { return &multifactor{} },
	}
}

// The PriorityFlags schedlab takes.
const (
	flagNoFairTree   = "NO_FAIR_TREE"
	flagSmallRel     = "SMALL_RELATIVE_TO_TIME"
	flagNoNormalPart = "NO_NORMAL_PART"
	flagNoNormalQOS  = "NO_NORMAL_QOS"
	flagNoNormalAll  = "NO_NORMAL_ALL"
	flagAccrueAlways = "ACCRUE_ALWAYS"
	flagMaxTRES      = "MAX_TRES"
	flagNoNormalTRES = "NO_NORMAL_TRES"
)

var supportedFlags = []string{flagNoFairTree, flagSmallRel, flagNoNormalPart, flagNoNormalQOS, flagNoNormalTRES, flagNoNormalAll,
	flagMaxTRES, flagAccrueAlways}

// mfConfig is the parsed configuration.
type mfConfig struct {
	wAge, wFS, wJS, wPart, wQOS float64
	maxAge, halfLife, period    int64 // seconds
	resetEvery                  int64 // seconds; 0: never
	favorSmall, smallRel        bool
	fairTree                    bool
	damp                        float64
	part, tier, qos             map[int32]float64 // raw values
	normPart, normQOS, normTRES bool
	maxPart, maxQOS             float64
	// wTRES weighs the TRES factors; bill the TRES charged (maxTRES: the
	// largest term, else their sum).
	wTRES, bill tres
	maxTRES     bool
	// sched is the SchedulerType, sp its SchedulerParameters.
	sched string
	sp    slurmParams
	// lim is the limits (limits.go).
	lim limitCfg
}

// tres is an amount, or a weight, of each TRES schedlab models: CPU, Mem
// (MiB), GRES/gpu and Node.
type tres struct{ cpu, mem, gpu, node float64 }

// dot is the sum of w x t over the TRES, or its largest term.
func (w tres) dot(t tres, largest bool) float64 {
	terms := [4]float64{float64(w.cpu * t.cpu), float64(w.mem * t.mem), float64(w.gpu * t.gpu), float64(w.node * t.node)}
	if largest {
		return max(terms[0], terms[1], terms[2], terms[3])
	}
	return terms[0] + terms[1] + terms[2] + terms[3]
}

// parseTRES reads TYPE=WEIGHT,... over CPU, Mem, GRES/gpu and Node (any
// case). With units, a Mem weight may end in K, M, G, T or P: the weight
// of that unit (Slurm's base is MiB), turned into a weight per MiB.
func parseTRES(name, s string, units bool) (tres, error) {
	var t tres
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			return t, fmt.Errorf("%s: %q: want TYPE=WEIGHT", name, e)
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		scale := 1.0
		if units && k == "mem" && v != "" {
			if i := strings.IndexByte("KMGTP", strings.ToUpper(v[len(v)-1:])[0]); i >= 0 {
				scale = math.Pow(1024, float64(1-i)) // per KiB: x1024 per MiB; per GiB: /1024
				v = v[:len(v)-1]
			}
		}
		w, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(w) || math.IsInf(w, 0) {
			return t, fmt.Errorf("%s: %q: the weight is not a number", name, e)
		}
		w *= scale
		switch k {
		case "cpu":
			t.cpu = w
		case "mem":
			t.mem = w
		case "gres/gpu":
			t.gpu = w
		case "node":
			t.node = w
		default:
			return t, fmt.Errorf("%s: %q is not a TRES schedlab models (CPU, Mem, GRES/gpu, Node)", name, k)
		}
	}
	return t, nil
}

type multifactor struct {
	easy
	cfg  mfConfig
	tree *fsTree
	// decay is Slurm's decay factor per second, 1 - 0.693/half-life.
	decay float64
	// last is the time of the last calculation; -1 before the first.
	last      int64
	nextReset int64
	// Cluster totals for the job size and TRES factors.
	cpus, nodes float64
	hasNodes    bool
	total       tres
	mem, gpu    int // the resources' indices; -1 without
	// prio is each waiting job's priority, by Index, and prioAt the
	// calculation it is of (calcs then).
	prio   []float64
	prioAt []uint64
	// calcs counts the calculations, from 1 at the first call.
	calcs uint64
	// powV is decay^powD, the last charge's (powD 0: none yet).
	powD, powV float64
	// loops are Slurm's scheduling loops; nil under SchedulerType easy.
	loops *slurmLoops
	// lim enforces the limits; nil when none is set. rejects are the
	// rejections of a call, limited the call's state without them.
	lim     *limiter
	rejects []sdk.Decision
	limited sdk.State
	// fromScratch computes every fair-share factor at every calculation,
	// the reference of the tests (fsTree.incremental).
	fromScratch bool
	// running: the jobs started and not yet seen to end, in the order
	// they started (a slice, so that charges are summed in one order),
	// with their user's node, cpus and start time.
	running []mfRun
	// notes are the jobs' factors at their start and the reasons they
	// waited (mfnotes.go); nil with JobNotes = false.
	notes *mfNotes
}

type mfRun struct {
	idx   int
	node  int
	cpus  float64 // the billing per second (TRESBillingWeights)
	start int64
}

func (p *multifactor) Init(env sdk.Env) error {
	cfg, tree, err := parseMultifactor(env.Params)
	if err != nil {
		return err
	}
	p.cfg, p.tree = cfg, tree
	tree.incremental = !p.fromScratch
	p.decay = 1
	if cfg.halfLife > 0 {
		p.decay = 1 - 0.693/float64(cfg.halfLife)
	}
	p.last = -1
	if len(env.Platform.Clusters) > 0 {
		c := &env.Platform.Clusters[0]
		p.cpus = float64(c.Capacity[0])
		p.hasNodes = c.HasNodes()
		p.nodes = p.cpus // on a pool, every processor is a node
		if p.hasNodes {
			p.nodes = float64(c.NodeCount())
		}
		p.mem, p.gpu = env.Platform.Resource(sdk.Memory), env.Platform.Resource(sdk.GPUs)
		p.total = p.amounts(c.Capacity, p.nodes)
	}
	o := orderer{order: "multifactor", scoring: scoring{score: p.score, higherFirst: true, timed: true}}
	if !p.fromScratch {
		o.steady = func() uint64 { return p.calcs }
	}
	if err := p.easy.init("multifactor", env, o); err != nil {
		return err
	}
	if st := cfg.sched; st != SchedEASY {
		p.loops = &slurmLoops{sp: cfg.sp, backfill: st == SchedBackfill, users: map[int32]int64{}, blocked: map[int32]bool{},
			room: &p.easy.room, nextSched: math.MinInt64, nextBF: math.MinInt64} // both run at the first call
	}
	if cfg.lim.any() {
		p.lim = newLimiter(cfg.lim, tree, p.limitAmounts)
		p.easy.gate = p.lim
		if p.loops != nil {
			p.loops.gate = p.lim
		}
	}
	if env.Params.Bool("JobNotes") {
		p.notes = &mfNotes{}
	}
	return nil
}

func (p *multifactor) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if err := p.account(s); err != nil {
		return nil, err
	}
	// With jobs submitted during a run (feedback), the queue's last job
	// need not have its highest index.
	top := -1
	for _, j := range s.Queue {
		top = max(top, j.Index)
	}
	if top >= len(p.prio) {
		p.prio = append(p.prio, make([]float64, top+1-len(p.prio))...)
	}
	if top >= len(p.prioAt) {
		p.prioAt = append(p.prioAt, make([]uint64, top+1-len(p.prioAt))...)
	}
	for _, j := range s.Queue {
		// A job with a priority was met at an earlier call.
		if p.prioAt[j.Index] != 0 && !p.fromScratch {
			continue
		}
		if p.tree.meet(j) < 0 {
			return nil, fmt.Errorf("multifactor: job %d: user %d is in no account of Accounts", j.ID, j.User)
		}
	}
	for _, j := range s.Queue {
		// A priority changes only at a calculation (a job's age is
		// counted to the last).
		if p.prioAt[j.Index] != p.calcs || p.fromScratch {
			p.prio[j.Index] = p.priority(j, max(p.last, j.Submit))
			p.prioAt[j.Index] = p.calcs
		}
	}
	var rejects []sdk.Decision
	if p.lim != nil {
		s, rejects = p.limitQueue(s, top)
	}
	var out []sdk.Decision
	var err error
	if p.loops != nil {
		out = p.loops.schedule(s, p.sorted(s))
	} else {
		out, err = p.easy.Schedule(s)
	}
	if p.notes != nil {
		p.note(s, out, top)
	}
	if p.lim != nil {
		p.lim.tally(s.Queue, p.easy.room.free)
		out = append(out, rejects...)
	}
	for _, d := range out {
		if d.Action == sdk.ActionStart {
			j := d.Job
			p.running = append(p.running, mfRun{idx: j.Index, node: p.tree.user(j.User), cpus: p.billing(j), start: s.Now})
		}
	}
	return out, err
}

// billing is what job j, started in this call, is charged per second: its
// TRES held (on nodes, what its allocation holds, whole nodes for an
// exclusive job; on a pool, its request, each processor a node) weighed
// by TRESBillingWeights.
func (p *multifactor) billing(j *sdk.Job) float64 {
	held, nodes := j.Request, float64(j.Procs())
	if p.loops != nil {
		for _, h := range p.loops.held {
			if h.idx == j.Index {
				held, nodes = h.held, float64(h.nodes)
				break
			}
		}
	} else if p.hasNodes {
		for _, r := range p.easy.now {
			if r.idx == j.Index {
				held, nodes = r.held, float64(r.alloc.Len())
				break
			}
		}
	}
	return p.cfg.bill.dot(p.amounts(held, nodes), p.cfg.maxTRES)
}

// amounts reads a vector's TRES (memory in MiB), with its node count.
func (p *multifactor) amounts(v sdk.Vector, nodes float64) tres {
	t := tres{cpu: float64(v[0]), node: nodes}
	if p.mem >= 0 {
		t.mem = float64(v[p.mem]) / (1 << 20)
	}
	if p.gpu >= 0 {
		t.gpu = float64(v[p.gpu])
	}
	return t
}

// score is the queue order's key: PriorityTier x 2^32 + priority (both
// integers, exact in a float64 up to tiers of 2^21).
func (p *multifactor) score(j *sdk.Job, _ int64) float64 {
	return p.cfg.tier[j.Partition]*(1<<32) + p.prio[j.Index]
}

// account brings usage and fair share to the last calculation at or
// before s.Now: the jobs that ended are charged up to their end (Slurm's
// priority_p_job_end), the calculations due are made in order, each
// decaying all usage, charging the running jobs for the time since the
// previous one (_apply_new_usage, run_delta x D^run_delta x cpus); the
// fair-share factors are those of the last.
func (p *multifactor) account(s *sdk.State) error {
	now := s.Now
	if p.last < 0 {
		p.last = now
		if p.cfg.period > 0 {
			p.last = now - now%p.cfg.period
		}
		if p.cfg.resetEvery > 0 {
			p.nextReset = (p.last/p.cfg.resetEvery + 1) * p.cfg.resetEvery
		}
		if p.cfg.wFS > 0 {
			p.tree.calc() // without usage: every factor 1
		}
		p.calcs++
	}
	ended := s.Completed
	ticked := false
	for {
		next := now
		if p.cfg.period > 0 {
			next = p.last + p.cfg.period
		}
		if next > now || (p.cfg.period == 0 && next == p.last) {
			break
		}
		// The jobs that ended by then are charged first.
		for len(ended) > 0 && ended[0].End <= next {
			p.end(ended[0])
			ended = ended[1:]
		}
		p.tick(next)
		ticked = true
	}
	if ticked {
		p.calcs++
	}
	if ticked && p.cfg.wFS > 0 {
		// Only the factors of the last calculation are ever read: the
		// ones before it, between two calls, are not computed. The jobs
		// that ended since are charged after it.
		p.tree.calc()
	}
	for _, c := range ended {
		p.end(c)
	}
	return nil
}

// end charges a job that ended for its time since the last calculation.
func (p *multifactor) end(c sdk.Completion) {
	for i, r := range p.running {
		if r.idx == c.Job.Index {
			p.running = append(p.running[:i], p.running[i+1:]...)
			p.charge(r, c.End)
			return
		}
	}
}

func (p *multifactor) charge(r mfRun, to int64) {
	from := max(r.start, p.last)
	if to <= from {
		return
	}
	d := float64(to - from)
	// At a calculation, every job running since the last is charged
	// for the same time: D^d once for all of them.
	if d != p.powD {
		p.powD, p.powV = d, math.Pow(p.decay, d)
	}
	p.tree.charge(r.node, float64(d*p.powV)*r.cpus)
}

// tick is a calculation at time t: reset when due, decay, and the charge
// of the jobs running at t (those still running now, and those that ended
// after t, not yet removed); account computes the fair-share factors of
// the last.
func (p *multifactor) tick(t int64) {
	if p.cfg.resetEvery > 0 && t >= p.nextReset {
		p.tree.reset()
		p.nextReset = (t/p.cfg.resetEvery + 1) * p.cfg.resetEvery
	}
	if dt := t - p.last; dt > 0 && p.decay != 1 {
		p.tree.decay(max(math.Pow(p.decay, float64(dt)), math.SmallestNonzeroFloat64))
	}
	// Every job in p.running started at or before t was running at t:
	// the ended ones before t were charged and removed.
	for _, r := range p.running {
		if r.start <= t {
			p.charge(r, t)
		}
	}
	p.last = t
}

// priority is the job's priority at time at (Slurm's
// _get_priority_internal and set_priority_factors): the weighted factors
// summed in Slurm's order, at least 1, truncated to an integer.
func (p *multifactor) priority(j *sdk.Job, at int64) float64 {
	return p.factors(j, at)[0]
}

// factors are the job's priority at time at, then its weighted factors as
// sprio shows them: age, fair share, job size, partition, QOS, TRES.
func (p *multifactor) factors(j *sdk.Job, at int64) [7]float64 {
	c := &p.cfg
	var age, fs, js, part, qos, tr float64
	if c.wAge > 0 {
		diff := max(at-j.Submit, 0)
		if diff < c.maxAge {
			age = float64(diff) / float64(c.maxAge)
		} else {
			age = 1
		}
	}
	if c.wFS > 0 {
		if k := p.tree.user(j.User); k >= 0 {
			fs = p.tree.factor(k)
		}
	}
	if c.wJS > 0 {
		js = p.jobSize(j)
	}
	if v := c.part[j.Partition]; v > 0 && c.wPart > 0 {
		part = v
		if c.normPart {
			part = v / c.maxPart
		}
	}
	if v := c.qos[j.Queue]; v > 0 && c.wQOS > 0 {
		qos = v
		if c.normQOS {
			qos = v / c.maxQOS
		}
	}
	if c.wTRES != (tres{}) {
		tr = c.wTRES.dot(p.tresFactors(j), false)
	}
	wa, wf, wj, wp, wq := float64(c.wAge*age), float64(c.wFS*fs), float64(c.wJS*js), float64(c.wPart*part), float64(c.wQOS*qos)
	prio := wa + wf + wj + wp + wq + tr
	if prio < 1 {
		prio = 1
	}
	return [7]float64{min(math.Floor(prio), math.MaxUint32), wa, wf, wj, wp, wq, tr}
}

// tresFactors are a waiting job's TRES factors (_get_tres_factors): its
// request of each over the cluster's total (the partition's, in Slurm),
// or the request itself with NO_NORMAL_TRES. Its nodes are those it
// names, else 1 (on a pool, its processors).
func (p *multifactor) tresFactors(j *sdk.Job) tres {
	t := p.requested(j)
	if !p.cfg.normTRES {
		return t
	}
	div := func(a, b float64) float64 {
		if b <= 0 {
			return 0
		}
		return a / b
	}
	return tres{cpu: div(t.cpu, p.total.cpu), mem: div(t.mem, p.total.mem), gpu: div(t.gpu, p.total.gpu), node: div(t.node, p.total.node)}
}

// jobSize is Slurm's job size factor (set_priority_factors): with
// min_nodes the job's nodes and cpu_cnt its processors, (min_nodes /
// nodes + cpu_cnt / cpus) / 2, or with PriorityFavorSmall ((nodes -
// min_nodes) / nodes + (cpus - cpu_cnt) / cpus) / 2 (the first term 0 when
// min_nodes >= nodes); with SMALL_RELATIVE_TO_TIME, max(min_nodes x cpus /
// nodes, cpu_cnt) / time limit in minutes / cpus (1 minus that with
// PriorityFavorSmall). On a pool every processor is a node.
func (p *multifactor) jobSize(j *sdk.Job) float64 {
	if p.cpus <= 0 || p.nodes <= 0 {
		return 0
	}
	cpu := float64(j.Procs())
	minNodes := max(cpu, 1)
	if p.hasNodes {
		minNodes = 1
		if j.Tasks != nil && j.Tasks.Nodes > 0 {
			minNodes = float64(j.Tasks.Nodes)
		}
	}
	var js float64
	switch {
	case p.cfg.smallRel:
		js = max(minNodes*p.cpus/p.nodes, cpu)
		js /= float64(max((j.Walltime+59)/60, 1))
		js /= p.cpus
		if p.cfg.favorSmall {
			js = 1 - js
		}
	case p.cfg.favorSmall:
		if p.nodes > minNodes {
			js = (p.nodes - minNodes) / p.nodes
		}
		if cpu > 0 {
			js += (p.cpus - cpu) / p.cpus
			js /= 2
		}
	default:
		js = minNodes / p.nodes
		if cpu > 0 {
			js += cpu / p.cpus
			js /= 2
		}
	}
	return min(max(js, 0), 1)
}
