package backfill

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// Slurm's limits on running jobs (issue 36, point 3), as multifactor's
// parameters: per user and per account running jobs and TRES (a QOS's
// MaxJobsPerUser, MaxTRESPerUser, MaxJobsPerAccount, MaxTRESPerAccount),
// per association of the account tree (GrpJobs, GrpTRES over the account
// and everything under it) and per QOS the longest walltime (MaxWall). A
// job a limit holds is skipped, as Slurm's loops skip it: it neither
// starts nor holds a reservation, and the jobs after it go on. Sources and
// choices: docs/policies.md ("Limits").

// The limits, in the order a job is checked against them: the first that
// holds it is its reason.
const (
	limMaxWall = iota
	limMaxJobsPerUser
	limMaxTRESPerUser
	limMaxJobsPerAccount
	limMaxTRESPerAccount
	limGrpJobs
	limGrpTRES
	nLimits
)

// limitNames are the parameters of the limits, by limit.
var limitNames = [nLimits]string{"MaxWall", "MaxJobsPerUser", "MaxTRESPerUser", "MaxJobsPerAccount", "MaxTRESPerAccount",
	"GrpJobs", "GrpTRES"}

// The values of multifactor's OverLimit: what becomes of a job that a
// limit would hold for ever, alone on the machine (a walltime over its
// QOS's MaxWall, a request over a TRES limit).
const (
	// OverReject turns the job away at submission (sdk.Reject), as
	// Slurm does with the QOS flag DenyOnLimit.
	OverReject = "reject"
	// OverExempt lets the job run as if the limits it exceeds alone were
	// unset for it, counting it.
	OverExempt = "exempt"
)

// The reasons a job waits that are not limits, as squeue names them.
const (
	reasonPriority  = "Priority"
	reasonResources = "Resources"
)

// limitParams declares the limits' parameters.
func limitParams() []sdk.Param {
	tres := "TRES held at once, e.g. cpu=64,mem=100G,gres/gpu=4,node=2 (mem in MiB, or M, G, T, P as suffixed; each positive)"
	return []sdk.Param{
		{Name: "MaxJobsPerUser", Type: sdk.Int, Default: "0", Doc: "running jobs of each user, at most (0: no limit)"},
		{Name: "MaxTRESPerUser", Type: sdk.String, Default: "", Doc: "each user's " + tres},
		{Name: "MaxJobsPerAccount", Type: sdk.Int, Default: "0",
			Doc: "running jobs of each account (its users' jobs), at most (0: no limit)"},
		{Name: "MaxTRESPerAccount", Type: sdk.String, Default: "", Doc: "each account's (its users') " + tres},
		{Name: "GrpJobs", Type: sdk.String, Default: "",
			Doc: "running jobs of an account and every account under it, ACCOUNT=N,... (accounts of Accounts, or root)"},
		{Name: "GrpTRES", Type: sdk.String, Default: "",
			Doc: "TRES held by an account and every account under it, ACCOUNT=TRES;... e.g. A=cpu=100,node=4;root=gres/gpu=8"},
		{Name: "MaxWall", Type: sdk.String, Default: "",
			Doc: "longest walltime of a QOS's jobs, QOS=TIME,... (the job's QOS is its trace queue number; TIME a Slurm time)"},
		{Name: "OverLimit", Type: sdk.String, Default: OverReject, Choices: []string{OverReject, OverExempt},
			Doc: "a job that a limit would hold alone on the machine (over MaxWall, or a request over a TRES limit): " +
				"reject (turned away at submission, as Slurm's DenyOnLimit) or exempt (runs as if those limits were unset for it)"},
	}
}

// limitCfg is the parsed limits; a zero amount is no limit.
type limitCfg struct {
	maxJobsUser, maxJobsAcct int64
	maxTRESUser, maxTRESAcct tres
	grpJobs                  map[string]int64
	grpTRES                  map[string]tres
	maxWall                  map[int32]int64
	exempt                   bool
}

// any reports whether a limit is set.
func (c *limitCfg) any() bool {
	return c.maxJobsUser > 0 || c.maxJobsAcct > 0 || c.maxTRESUser != (tres{}) || c.maxTRESAcct != (tres{}) ||
		len(c.grpJobs) > 0 || len(c.grpTRES) > 0 || len(c.maxWall) > 0
}

// parseLimits reads the limits' parameters; accounts are checked against
// the tree. Each error starts with its parameter's name.
func parseLimits(ps sdk.Params, tree *fsTree) (limitCfg, error) {
	var c limitCfg
	for _, n := range []struct {
		name string
		to   *int64
	}{{"MaxJobsPerUser", &c.maxJobsUser}, {"MaxJobsPerAccount", &c.maxJobsAcct}} {
		if *n.to = ps.Int(n.name); *n.to < 0 {
			return c, fmt.Errorf("%s = %d: want 0 (no limit) or more", n.name, *n.to)
		}
	}
	var err error
	if c.maxTRESUser, err = parseTRESLimit("MaxTRESPerUser", ps.String("MaxTRESPerUser")); err != nil {
		return c, err
	}
	if c.maxTRESAcct, err = parseTRESLimit("MaxTRESPerAccount", ps.String("MaxTRESPerAccount")); err != nil {
		return c, err
	}
	account := func(name, a string) error {
		if tree.account(a) < 0 && !(tree.groups && isGroupAccount(a)) {
			known := tree.accountNames()
			return fmt.Errorf("%s: account %q is not in Accounts (%s)%s", name, a, strings.Join(known, ", "), didYouMean(a, known))
		}
		return nil
	}
	for _, e := range splitList(ps.String("GrpJobs"), ",;") {
		a, v, ok := strings.Cut(e, "=")
		a = strings.TrimSpace(a)
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if !ok || err != nil || n < 1 {
			return c, fmt.Errorf("GrpJobs: %q: want ACCOUNT=N, N a positive integer", e)
		}
		if err := account("GrpJobs", a); err != nil {
			return c, err
		}
		if c.grpJobs == nil {
			c.grpJobs = map[string]int64{}
		}
		c.grpJobs[a] = n
	}
	for _, e := range splitList(ps.String("GrpTRES"), ";") {
		a, v, ok := strings.Cut(e, "=")
		a = strings.TrimSpace(a)
		if !ok {
			return c, fmt.Errorf("GrpTRES: %q: want ACCOUNT=TYPE=N,... (e.g. A=cpu=100,node=4)", e)
		}
		if err := account("GrpTRES", a); err != nil {
			return c, err
		}
		t, err := parseTRESLimit("GrpTRES", v)
		if err != nil {
			return c, err
		}
		if c.grpTRES == nil {
			c.grpTRES = map[string]tres{}
		}
		c.grpTRES[a] = t
	}
	for _, e := range splitList(ps.String("MaxWall"), ",") {
		q, v, ok := strings.Cut(e, "=")
		qos, err1 := strconv.ParseInt(strings.TrimSpace(q), 10, 32)
		if !ok || err1 != nil {
			return c, fmt.Errorf("MaxWall: %q: want QOS=TIME, QOS the trace's queue number", e)
		}
		w, err := slurmTime(v)
		if err != nil || w <= 0 {
			return c, fmt.Errorf("MaxWall: %q: want a positive Slurm time after =", e)
		}
		if c.maxWall == nil {
			c.maxWall = map[int32]int64{}
		}
		c.maxWall[int32(qos)] = w
	}
	c.exempt = ps.String("OverLimit") == OverExempt
	return c, nil
}

// splitList splits s at any of seps, dropping empty entries.
func splitList(s, seps string) []string {
	var out []string
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// tresNames are the TRES of limits, as Slurm writes them.
var tresNames = []string{"cpu", "mem", "gres/gpu", "node"}

// parseTRESLimit reads TYPE=N,... over cpu, mem, gres/gpu and node (any
// case), each N a positive integer; mem is in MiB, or in M, G, T or P as
// suffixed, as sacctmgr reads it.
func parseTRESLimit(name, s string) (tres, error) {
	var t tres
	for _, e := range splitList(s, ",") {
		k, v, ok := strings.Cut(e, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok {
			return t, fmt.Errorf("%s: %q: want TYPE=N", name, e)
		}
		scale := 1.0
		if k == "mem" && v != "" {
			if i := strings.IndexByte("MGTP", strings.ToUpper(v[len(v)-1:])[0]); i >= 0 {
				scale = math.Pow(1024, float64(i))
				v = v[:len(v)-1]
			}
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return t, fmt.Errorf("%s: %q: the limit is not a positive integer", name, e)
		}
		x := float64(n) * scale
		switch k {
		case "cpu":
			t.cpu = x
		case "mem":
			t.mem = x
		case "gres/gpu":
			t.gpu = x
		case "node":
			t.node = x
		default:
			return t, fmt.Errorf("%s: %q is not a TRES schedlab limits (%s)%s", name, k, strings.Join(tresNames, ", "), didYouMean(k, tresNames))
		}
	}
	return t, nil
}

// over reports whether use + add exceeds the limit lim in a TRES it sets.
func over(use, add, lim tres) bool {
	return lim.cpu > 0 && use.cpu+add.cpu > lim.cpu || lim.mem > 0 && use.mem+add.mem > lim.mem ||
		lim.gpu > 0 && use.gpu+add.gpu > lim.gpu || lim.node > 0 && use.node+add.node > lim.node
}

func (t tres) plus(u tres, sign float64) tres {
	return tres{cpu: t.cpu + sign*u.cpu, mem: t.mem + sign*u.mem, gpu: t.gpu + sign*u.gpu, node: t.node + sign*u.node}
}

// limiter enforces the limits over the association tree and counts the
// reasons jobs wait.
type limiter struct {
	cfg  limitCfg
	tree *fsTree
	// amounts reads a job's TRES for the limits.
	amounts func(j *sdk.Job) tres
	// By tree node: running jobs and TRES of the node and everything under
	// it (sub), and of the node's own users (own, for an account; a user's
	// are its own); the Grp limits set on the node.
	subJobs, ownJobs []int64
	subUse, ownUse   []tres
	grpJobs          []int64
	grpTRES          []tres
	// jobs is, by Index, each job's user node and amounts, read once when
	// the job is seen (the checks of every call read them), and whether it
	// runs.
	jobs []limJob
	// By Index: the limits a job is exempt from (OverLimit = exempt), the
	// limits that ever held it, whether it was seen.
	exempt, everHeld []uint8
	seen             []bool
	// kept is the queue without the jobs rejected in a call.
	kept []*sdk.Job
	// Counts: (job, call) waits by limit, then for Priority and
	// Resources; jobs ever held by a limit; jobs rejected or exempted by
	// a limit.
	waits                        [nLimits + 2]int64
	rejected, exempted, heldJobs [nLimits]int64
}

// The indices of the waits for Priority and Resources.
const (
	waitPriority  = nLimits
	waitResources = nLimits + 1
)

type limJob struct {
	node    int
	amt     tres
	running bool
}

func newLimiter(cfg limitCfg, tree *fsTree, amounts func(j *sdk.Job) tres) *limiter {
	return &limiter{cfg: cfg, tree: tree, amounts: amounts}
}

// grow sizes the per-node slices to the tree (an automatic tree grows as
// users are met) and the per-job ones to index top.
func (l *limiter) grow(top int) {
	for n := len(l.subJobs); n < len(l.tree.nodes); n++ {
		l.subJobs, l.ownJobs = append(l.subJobs, 0), append(l.ownJobs, 0)
		l.subUse, l.ownUse = append(l.subUse, tres{}), append(l.ownUse, tres{})
		name := l.tree.nodes[n].name
		if l.tree.nodes[n].isUser {
			name = "" // Grp limits are set on accounts only
		}
		l.grpJobs, l.grpTRES = append(l.grpJobs, l.cfg.grpJobs[name]), append(l.grpTRES, l.cfg.grpTRES[name])
	}
	if top >= len(l.seen) {
		k := top + 1 - len(l.seen)
		l.seen = append(l.seen, make([]bool, k)...)
		l.exempt, l.everHeld = append(l.exempt, make([]uint8, k)...), append(l.everHeld, make([]uint8, k)...)
		l.jobs = append(l.jobs, make([]limJob, k)...)
	}
}

// ended gives back what the jobs that ended (or were requeued) held.
func (l *limiter) ended(cs []sdk.Completion) {
	for _, c := range cs {
		if r := &l.jobs[c.Job.Index]; r.running {
			r.running = false
			l.add(r.node, r.amt, -1)
		}
	}
}

// add adds a job's amounts (sign 1) or takes them back (-1) along the path
// from user node k to the root.
func (l *limiter) add(k int, amt tres, sign int64) {
	l.ownJobs[k] += sign
	l.ownUse[k] = l.ownUse[k].plus(amt, float64(sign))
	if a := l.tree.nodes[k].parent; a >= 0 {
		l.ownJobs[a] += sign
		l.ownUse[a] = l.ownUse[a].plus(amt, float64(sign))
	}
	for n := k; n >= 0; n = l.tree.nodes[n].parent {
		l.subJobs[n] += sign
		l.subUse[n] = l.subUse[n].plus(amt, float64(sign))
	}
}

// took counts job j, started now.
func (l *limiter) took(j *sdk.Job) {
	r := &l.jobs[j.Index]
	r.running = true
	l.add(r.node, r.amt, 1)
}

// alone returns the limits job j exceeds alone on the machine, as a set of
// bits.
func (l *limiter) alone(j *sdk.Job) uint8 {
	var bits uint8
	if w, ok := l.cfg.maxWall[j.Queue]; ok && j.Walltime > w {
		bits |= 1 << limMaxWall
	}
	amt := l.jobs[j.Index].amt
	if over(tres{}, amt, l.cfg.maxTRESUser) {
		bits |= 1 << limMaxTRESPerUser
	}
	if over(tres{}, amt, l.cfg.maxTRESAcct) {
		bits |= 1 << limMaxTRESPerAccount
	}
	for n := l.tree.nodes[l.jobs[j.Index].node].parent; n >= 0; n = l.tree.nodes[n].parent {
		if over(tres{}, amt, l.grpTRES[n]) {
			bits |= 1 << limGrpTRES
		}
	}
	return bits
}

// admit sees the jobs of the queue q for the first time: a job a limit
// would hold alone on the machine is rejected (its decision appended to
// out) or exempted from those limits. It returns the queue without the
// rejected jobs: q itself when none is.
func (l *limiter) admit(q []*sdk.Job, out []sdk.Decision) ([]*sdk.Job, []sdk.Decision) {
	dropped := false
	for i, j := range q {
		reject := false
		if !l.seen[j.Index] {
			l.seen[j.Index] = true
			l.jobs[j.Index] = limJob{node: l.tree.user(j.User), amt: l.amounts(j)}
			switch bits := l.alone(j); {
			case bits == 0:
			case l.cfg.exempt:
				l.exempt[j.Index] = bits
				for k := range nLimits {
					if bits&(1<<k) != 0 {
						l.exempted[k]++
					}
				}
			default:
				reject = true
				out = append(out, sdk.Reject(j))
				l.rejected[first(bits)]++
			}
		}
		switch {
		case reject && !dropped:
			dropped = true
			l.kept = append(l.kept[:0], q[:i]...)
		case !reject && dropped:
			l.kept = append(l.kept, j)
		}
	}
	if !dropped {
		return q, out
	}
	return l.kept, out
}

// first returns the lowest limit of a set.
func first(bits uint8) int {
	for k := range nLimits {
		if bits&(1<<k) != 0 {
			return k
		}
	}
	return -1
}

// heldBy returns the first limit that holds job j now, -1 for none: the
// limits count the jobs running, those started earlier in this call
// included, and j's amounts on top.
func (l *limiter) heldBy(j *sdk.Job) int {
	ex := l.exempt[j.Index]
	k, amt := l.jobs[j.Index].node, l.jobs[j.Index].amt
	c := &l.cfg
	switch {
	case c.maxJobsUser > 0 && l.ownJobs[k]+1 > c.maxJobsUser:
		return limMaxJobsPerUser
	case ex&(1<<limMaxTRESPerUser) == 0 && over(l.ownUse[k], amt, c.maxTRESUser):
		return limMaxTRESPerUser
	}
	a := l.tree.nodes[k].parent
	switch {
	case c.maxJobsAcct > 0 && l.ownJobs[a]+1 > c.maxJobsAcct:
		return limMaxJobsPerAccount
	case ex&(1<<limMaxTRESPerAccount) == 0 && over(l.ownUse[a], amt, c.maxTRESAcct):
		return limMaxTRESPerAccount
	}
	for n := a; n >= 0; n = l.tree.nodes[n].parent {
		if g := l.grpJobs[n]; g > 0 && l.subJobs[n]+1 > g {
			return limGrpJobs
		}
	}
	if ex&(1<<limGrpTRES) == 0 {
		for n := a; n >= 0; n = l.tree.nodes[n].parent {
			if over(l.subUse[n], amt, l.grpTRES[n]) {
				return limGrpTRES
			}
		}
	}
	return -1
}

// limitReasons are the pending reasons of the limits (Slurm's
// job_state_reason_string), by limit and, for a TRES limit, by the TRES
// over it in Slurm's order: cpu, mem, node, gres/gpu.
func limitReasons(k int) [4]string {
	switch k {
	case limMaxWall:
		return [4]string{"QOSMaxWallDurationPerJobLimit"}
	case limMaxJobsPerUser:
		return [4]string{"QOSMaxJobsPerUserLimit"}
	case limMaxTRESPerUser:
		return [4]string{"QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser", "QOSMaxNodePerUserLimit", "QOSMaxGRESPerUser"}
	case limMaxJobsPerAccount:
		return [4]string{"MaxJobsPerAccount"}
	case limMaxTRESPerAccount:
		return [4]string{"MaxCpuPerAccount", "MaxMemoryPerAccount", "MaxNodePerAccount", "MaxGRESPerAccount"}
	case limGrpJobs:
		return [4]string{"AssocGrpJobsLimit"}
	default:
		return [4]string{"AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpNodeLimit", "AssocGrpGRES"}
	}
}

// overAt returns the first TRES, in Slurm's order (cpu, mem, node,
// gres/gpu), in which use + add exceeds the limit lim; 0 for none.
func overAt(use, add, lim tres) int {
	in := [4][3]float64{{use.cpu, add.cpu, lim.cpu}, {use.mem, add.mem, lim.mem}, {use.node, add.node, lim.node}, {use.gpu, add.gpu, lim.gpu}}
	for t, x := range in {
		if x[2] > 0 && x[0]+x[1] > x[2] {
			return t
		}
	}
	return 0
}

// reason returns why a limit holds job j now, as squeue says it; "" when
// none does.
func (l *limiter) reason(j *sdk.Job) string {
	k := l.heldBy(j)
	if k < 0 {
		return ""
	}
	node, amt := l.jobs[j.Index].node, l.jobs[j.Index].amt
	a := l.tree.nodes[node].parent
	t := 0
	switch k {
	case limMaxTRESPerUser:
		t = overAt(l.ownUse[node], amt, l.cfg.maxTRESUser)
	case limMaxTRESPerAccount:
		t = overAt(l.ownUse[a], amt, l.cfg.maxTRESAcct)
	case limGrpTRES:
		for n := a; n >= 0; n = l.tree.nodes[n].parent {
			if over(l.subUse[n], amt, l.grpTRES[n]) {
				t = overAt(l.subUse[n], amt, l.grpTRES[n])
				break
			}
		}
	}
	return limitReasons(k)[t]
}

// held reports whether a limit holds j now.
func (l *limiter) held(j *sdk.Job) bool { return l.heldBy(j) >= 0 }

// tally counts the reason each job of q still waits for at the end of a
// call: the first limit that holds it, else Resources when its request is
// over what is free in total, else Priority.
func (l *limiter) tally(q []*sdk.Job, free sdk.Vector) {
	for _, j := range q {
		if l.jobs[j.Index].running {
			continue // started in this call
		}
		switch k := l.heldBy(j); {
		case k >= 0:
			l.waits[k]++
			if l.everHeld[j.Index]&(1<<k) == 0 {
				l.everHeld[j.Index] |= 1 << k
				l.heldJobs[k]++
			}
		case !j.Request.Fits(free):
			l.waits[waitResources]++
		default:
			l.waits[waitPriority]++
		}
	}
}

// counts returns the counts under their names (docs/policies.md).
func (l *limiter) counts() map[string]int64 {
	out := map[string]int64{}
	out["wait_"+reasonPriority], out["wait_"+reasonResources] = l.waits[waitPriority], l.waits[waitResources]
	for k, name := range limitNames {
		if k != limMaxWall {
			out["wait_"+name] = l.waits[k]
			out["held_jobs_"+name] = l.heldJobs[k]
		}
		if k == limMaxWall || k == limMaxTRESPerUser || k == limMaxTRESPerAccount || k == limGrpTRES {
			out["rejected_"+name] = l.rejected[k]
			out["exempt_"+name] = l.exempted[k]
		}
	}
	return out
}

// didYouMean returns " (did you mean X?)" for the known name closest to
// got, when it is close enough to be a misspelling, else "".
func didYouMean(got string, known []string) string {
	best, bestD := "", math.MaxInt
	for _, k := range known {
		if d := editDistance(strings.ToLower(got), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" || bestD > max(1, len(got)/3) {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// account returns the node of the account named a, -1 for none.
func (t *fsTree) account(a string) int {
	for i := range t.nodes {
		if !t.nodes[i].isUser && t.nodes[i].name == a {
			return i
		}
	}
	return -1
}

// isGroupAccount reports whether a names the account of a trace group
// (gN), which a tree of groups makes when it meets the group.
func isGroupAccount(a string) bool {
	_, err := strconv.ParseInt(strings.TrimPrefix(a, "g"), 10, 32)
	return strings.HasPrefix(a, "g") && err == nil
}

// accountNames lists the tree's accounts, root first.
func (t *fsTree) accountNames() []string {
	var out []string
	for i := range t.nodes {
		if !t.nodes[i].isUser {
			out = append(out, t.nodes[i].name)
		}
	}
	return slices.Clip(out)
}

// requested is what job j requests of each TRES (memory in MiB): its
// nodes are those it names, else 1 (on a pool, its processors).
func (p *multifactor) requested(j *sdk.Job) tres {
	nodes := float64(j.Procs())
	if p.hasNodes {
		nodes = 1
		if j.Tasks != nil && j.Tasks.Nodes > 0 {
			nodes = float64(j.Tasks.Nodes)
		}
	}
	return p.amounts(j.Request, nodes)
}

// limitAmounts is what job j counts against the limits: its request
// (Slurm's first check, before nodes are selected; what an exclusive job
// holds beyond it is not counted).
func (p *multifactor) limitAmounts(j *sdk.Job) tres { return p.requested(j) }

// limitQueue takes back what the jobs that ended held, and sees the new
// jobs of s's queue (top its highest Index): it returns the state with the
// jobs the limits reject taken out of the queue, and their rejections.
func (p *multifactor) limitQueue(s *sdk.State, top int) (*sdk.State, []sdk.Decision) {
	l := p.lim
	l.grow(top)
	l.ended(s.Completed)
	q, rejects := l.admit(s.Queue, p.rejects[:0])
	p.rejects = rejects
	if len(q) == len(s.Queue) {
		return s, rejects
	}
	p.limited = *s
	p.limited.Queue = q
	return &p.limited, rejects
}

// Counts returns the limits' counts and, with AutoAccounts = group, the
// users met in more than one group (sdk.Counter; docs/policies.md,
// "Limits"): none without either, so that such a run's records are
// those of multifactor before both existed.
func (p *multifactor) Counts() map[string]int64 {
	var out map[string]int64
	if p.lim != nil {
		out = p.lim.counts()
	}
	if p.tree.groups {
		if out == nil {
			out = map[string]int64{}
		}
		out["users_in_several_groups"] = int64(len(p.tree.multiGroup))
	}
	return out
}
