package backfill

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// The parameters of multifactor: reading and checking them.

// ParamError is a parameter a policy refuses: Param names it.
type ParamError struct {
	Param string
	Err   error
}

func (e *ParamError) Error() string { return e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

// CheckMultifactor checks multifactor's parameters as its Init does, so
// that a host refuses bad values before any run: an error names its
// parameter (a *ParamError, or an unknown or ill-typed name from
// sdk.ResolveParams).
func CheckMultifactor(params map[string]string) error {
	ps, err := sdk.ResolveParams(Multifactor().Info.Params, params)
	if err != nil {
		return err
	}
	_, _, err = parseMultifactor(ps)
	return err
}

// paramNames lists multifactor's parameters, longest first, so that an
// error's leading name is found whole.
var paramNames = func() []string {
	var out []string
	for _, p := range Multifactor().Info.Params {
		out = append(out, p.Name)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}()

// parseMultifactor reads and checks the parameters; each error is a
// *ParamError naming the parameter its message starts with.
func parseMultifactor(ps sdk.Params) (mfConfig, *fsTree, error) {
	c, t, err := parseMultifactorParams(ps)
	if err != nil {
		for _, n := range paramNames {
			if strings.HasPrefix(err.Error(), n) {
				return c, t, &ParamError{Param: n, Err: err}
			}
		}
	}
	return c, t, err
}

func parseMultifactorParams(ps sdk.Params) (mfConfig, *fsTree, error) {
	var c mfConfig
	var err error
	weight := func(name string) float64 {
		v := ps.Int(name)
		if err == nil && (v < 0 || v > math.MaxUint32) {
			err = fmt.Errorf("%s = %d: a weight is from 0 to 4294967295", name, v)
		}
		return float64(v)
	}
	c.wAge, c.wFS, c.wJS = weight("PriorityWeightAge"), weight("PriorityWeightFairshare"), weight("PriorityWeightJobSize")
	c.wPart, c.wQOS = weight("PriorityWeightPartition"), weight("PriorityWeightQOS")
	if err != nil {
		return c, nil, err
	}
	dur := func(name string) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = slurmTime(ps.String(name))
		if err != nil {
			err = fmt.Errorf("%s: %w", name, err)
		}
		return v
	}
	c.maxAge = dur("PriorityMaxAge")
	c.halfLife = dur("PriorityDecayHalfLife")
	c.period = dur("PriorityCalcPeriod")
	if err != nil {
		return c, nil, err
	}
	switch strings.ToUpper(ps.String("PriorityUsageResetPeriod")) {
	case "NONE", "NOW":
	case "DAILY":
		c.resetEvery = 86400
	case "WEEKLY":
		c.resetEvery = 7 * 86400
	case "MONTHLY", "QUARTERLY", "YEARLY":
		return c, nil, fmt.Errorf("PriorityUsageResetPeriod = %s: calendar months are not modelled (a trace's time 0 has no date); use NONE, NOW, DAILY or WEEKLY",
			ps.String("PriorityUsageResetPeriod"))
	default:
		return c, nil, fmt.Errorf("PriorityUsageResetPeriod = %q: want NONE, NOW, DAILY or WEEKLY", ps.String("PriorityUsageResetPeriod"))
	}
	switch strings.ToUpper(ps.String("PriorityFavorSmall")) {
	case "YES", "TRUE", "1":
		c.favorSmall = true
	case "NO", "FALSE", "0":
	default:
		return c, nil, fmt.Errorf("PriorityFavorSmall = %q: want YES or NO", ps.String("PriorityFavorSmall"))
	}
	c.fairTree, c.normPart, c.normQOS, c.normTRES = true, true, true, true
	for _, f := range strings.Split(ps.String("PriorityFlags"), ",") {
		f = strings.ToUpper(strings.TrimSpace(f))
		switch f {
		case "":
		case flagNoFairTree:
			c.fairTree = false
		case flagSmallRel:
			c.smallRel = true
		case flagNoNormalPart:
			c.normPart = false
		case flagNoNormalQOS:
			c.normQOS = false
		case flagNoNormalTRES:
			c.normTRES = false
		case flagNoNormalAll:
			c.normPart, c.normQOS, c.normTRES = false, false, false
		case flagMaxTRES:
			c.maxTRES = true
		case flagAccrueAlways:
		default:
			return c, nil, fmt.Errorf("PriorityFlags: %q is not a flag schedlab models (it takes %s)", f, strings.Join(supportedFlags, ", "))
		}
	}
	c.damp = float64(ps.Int("FairShareDampeningFactor"))
	if c.damp < 1 {
		return c, nil, fmt.Errorf("FairShareDampeningFactor = %d: want at least 1", ps.Int("FairShareDampeningFactor"))
	}
	for _, m := range []struct {
		name string
		to   *map[int32]float64
		max  *float64
	}{{"PriorityJobFactor", &c.part, &c.maxPart}, {"PriorityTier", &c.tier, nil}, {"QOSPriority", &c.qos, &c.maxQOS}} {
		v, mx, err := parseFactorMap(m.name, ps.String(m.name))
		if err != nil {
			return c, nil, err
		}
		*m.to = v
		if m.max != nil {
			*m.max = mx
		}
	}
	if c.wTRES, err = parseTRES("PriorityWeightTRES", ps.String("PriorityWeightTRES"), false); err != nil {
		return c, nil, err
	}
	if c.bill, err = parseTRES("TRESBillingWeights", ps.String("TRESBillingWeights"), true); err != nil {
		return c, nil, err
	}
	if strings.TrimSpace(ps.String("TRESBillingWeights")) == "" {
		c.bill = tres{cpu: 1}
	}
	if c.sched = ps.String("SchedulerType"); c.sched != SchedEASY {
		if c.sp, err = parseSchedulerParameters(ps.String("SchedulerParameters")); err != nil {
			return c, nil, err
		}
		if c.sp.schedInterval < 0 && (c.sched == SchedBuiltin || c.sp.bfInterval < 0) {
			return c, nil, fmt.Errorf("%s: every scheduling loop is off (sched_interval = -1%s)", "SchedulerParameters",
				map[bool]string{true: ", and bf_interval = -1", false: " under sched/builtin"}[c.sched == SchedBackfill])
		}
	}
	var tree *fsTree
	if a := strings.TrimSpace(ps.String("Accounts")); a != "" {
		tree, err = parseAccounts(a)
		if err != nil {
			return c, nil, fmt.Errorf("%s: %w", "Accounts", err)
		}
		if ps.String("AutoAccounts") != AccountsUser {
			return c, nil, fmt.Errorf("AutoAccounts = %s: the accounts of the automatic tree; Accounts declares the tree", ps.String("AutoAccounts"))
		}
	} else {
		tree = newAutoTree()
		if ps.String("AutoAccounts") == AccountsGroup {
			tree.groups = true
			tree.groupAcct, tree.firstGroup, tree.multiGroup = map[int32]int{}, map[int32]int32{}, map[int32]bool{}
		}
	}
	tree.fairTree, tree.damp = c.fairTree, c.damp
	if c.lim, err = parseLimits(ps, tree); err != nil {
		return c, nil, err
	}
	return c, tree, nil
}

// parseFactorMap reads KEY=VALUE,... with integer keys and values from 0
// to 65535 (Slurm's uint16 PriorityJobFactor and PriorityTier; QOS
// priorities are uint32), and returns the largest value.
func parseFactorMap(name, s string) (map[int32]float64, float64, error) {
	out := map[int32]float64{}
	mx := 0.0
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			return nil, 0, fmt.Errorf("%s: %q: want NUMBER=VALUE", name, e)
		}
		kk, err1 := strconv.ParseInt(strings.TrimSpace(k), 10, 32)
		vv, err2 := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
		if err1 != nil || err2 != nil {
			return nil, 0, fmt.Errorf("%s: %q: want NUMBER=VALUE, both integers, VALUE at least 0", name, e)
		}
		out[int32(kk)] = float64(vv)
		mx = max(mx, float64(vv))
	}
	return out, mx, nil
}

// slurmTime reads a Slurm time string (time_str2mins): "min", "min:sec",
// "hr:min:sec", "days-hr", "days-hr:min", "days-hr:min:sec", in seconds;
// INFINITE and UNLIMITED are refused.
func slurmTime(s string) (int64, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("%q is not a Slurm time (min, min:sec, hr:min:sec, days-hr, days-hr:min or days-hr:min:sec)", s)
	num := func(x string) (int64, bool) {
		v, err := strconv.ParseInt(x, 10, 64)
		return v, err == nil && v >= 0
	}
	days := int64(0)
	rest := s
	if d, r, ok := strings.Cut(s, "-"); ok {
		v, ok := num(d)
		if !ok {
			return 0, bad
		}
		days, rest = v, r
		parts := strings.Split(rest, ":")
		if len(parts) > 3 {
			return 0, bad
		}
		var hms [3]int64
		for i, x := range parts {
			v, ok := num(x)
			if !ok {
				return 0, bad
			}
			hms[i] = v
		}
		return days*86400 + hms[0]*3600 + hms[1]*60 + hms[2], nil
	}
	parts := strings.Split(rest, ":")
	var vs []int64
	for _, x := range parts {
		v, ok := num(x)
		if !ok {
			return 0, bad
		}
		vs = append(vs, v)
	}
	switch len(vs) {
	case 1:
		return vs[0] * 60, nil
	case 2:
		return vs[0]*60 + vs[1], nil
	case 3:
		return vs[0]*3600 + vs[1]*60 + vs[2], nil
	}
	return 0, bad
}
