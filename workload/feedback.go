package workload

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/swf"
)

// Values of Feedback.Mode: how a workload reacts to the simulated
// scheduler (docs/semantics.md, "Feedback").
const (
	// FeedbackNone replays the trace: every job is submitted at its
	// recorded time, whatever the scheduler does.
	FeedbackNone = "none"
	// FeedbackSWF honours the trace's own dependencies, SWF fields 17
	// (preceding job) and 18 (think time), where the log has them.
	FeedbackSWF = "swf"
	// FeedbackSessions infers each user's dependencies as Zakay and
	// Feitelson (MASCOTS 2014) do: a job depends on that user's latest job
	// that ended in the trace before it was submitted, when the gap is
	// below Feedback.Threshold; longer gaps break sessions.
	FeedbackSessions = "sessions"
)

// DefaultSessionThreshold is the default Feedback.Threshold: 20 minutes,
// the session gap of Zakay and Feitelson.
const DefaultSessionThreshold = int64(20 * time.Minute / time.Second)

// Setting names of a workload's feedback, in provenance.
const (
	SettingFeedback         = "feedback"
	SettingSessionThreshold = "session-threshold"
	SettingUnknownWait      = "unknown-wait"
)

// Values of Feedback.UnknownWait: what a job's trace end is when its wait
// (SWF field 3) is unknown.
const (
	// WaitNoEnd leaves its end unknown: no job can follow it.
	WaitNoEnd = "no-end"
	// WaitZero reads the wait as 0: the job ended at submit + run time.
	// NASA-iPSC and LLNL-Thunder record no wait at all (NASA's header
	// notes that its submit times are start times).
	WaitZero = "zero"
)

// Feedback rule names: every kept job is counted by exactly one of the
// first seven (it depends on a job, or why it does not); the last two
// count dependent jobs whose think time came from the trace's gap, and
// kept jobs whose wait the trace does not give.
const (
	// RuleDependent counts the jobs given a predecessor: they are
	// submitted their think time after its simulated end.
	RuleDependent = "dependent"
	// RuleNoPredecessor counts the jobs that depend on none: field 17
	// says none (swf), or no earlier job of the user had ended in the
	// trace when the job was submitted (sessions: the user's first job,
	// or every earlier one still running).
	RuleNoPredecessor = "no-predecessor"
	// RuleUnknownUser counts the jobs of an unknown user (field 12 is
	// -1), whose sessions cannot be told (sessions).
	RuleUnknownUser = "unknown-user"
	// RuleSessionBreak counts the jobs submitted at least the threshold
	// after the user's latest end: a new session, submitted at its trace
	// time (sessions).
	RuleSessionBreak = "session-break"
	// RuleMissingPredecessor counts the jobs whose field 17 names a job
	// number the trace does not have (swf): submitted at their trace time.
	RuleMissingPredecessor = "missing-predecessor"
	// RuleDroppedPredecessor counts the jobs whose predecessor the cleaning
	// dropped (or a job-ids range left out, or a mapping onto nodes
	// dropped): it never runs, so they are submitted at their trace time.
	RuleDroppedPredecessor = "dropped-predecessor"
	// RuleForwardPredecessor counts the jobs whose predecessor does not
	// come before them in (submit, ID) order: the job itself, a later job,
	// or a cycle of dependencies. The engine needs a predecessor submitted
	// first, so they are submitted at their trace time.
	RuleForwardPredecessor = "forward-predecessor"
	// RuleThinkTimeUnknown counts the dependent jobs whose field 18 is
	// negative (unknown, or a negative think time) or beyond sim.MaxTime
	// (swf): their think time is the trace's gap between the
	// predecessor's end and their submission, 0 when negative or unknown.
	RuleThinkTimeUnknown = "think-time-unknown"
	// RuleWaitUnknown counts the kept jobs whose wait (field 3) is unknown,
	// so that their trace end is too, unless Feedback.UnknownWait reads it
	// as 0.
	RuleWaitUnknown = "wait-unknown"
)

// Feedback is a workload's feedback setting.
type Feedback struct {
	// Mode is FeedbackNone (the default, also ""), FeedbackSWF or
	// FeedbackSessions.
	Mode string
	// Threshold is the session gap of FeedbackSessions, in seconds (0:
	// DefaultSessionThreshold); it must be 0 under the other modes.
	Threshold int64
	// UnknownWait is WaitNoEnd (the default under swf and sessions) or
	// WaitZero; it must be empty under FeedbackNone.
	UnknownWait string
}

// Resolved returns f with its defaults filled in, or an error naming the
// setting and what it allows.
func (f Feedback) Resolved() (Feedback, error) {
	switch f.Mode {
	case "", FeedbackNone:
		f.Mode = FeedbackNone
	case FeedbackSWF, FeedbackSessions:
	default:
		return f, fmt.Errorf("%s: value %q: allowed are %s, %s, %s", SettingFeedback, f.Mode, FeedbackNone, FeedbackSWF, FeedbackSessions)
	}
	switch f.UnknownWait {
	case "":
		if f.Mode != FeedbackNone {
			f.UnknownWait = WaitNoEnd
		}
	case WaitNoEnd, WaitZero:
		if f.Mode == FeedbackNone {
			return f, fmt.Errorf("%s: set under %s=%s, which reads no trace end; it needs %s=%s or %s", SettingUnknownWait, SettingFeedback, f.Mode, SettingFeedback, FeedbackSWF, FeedbackSessions)
		}
	default:
		return f, fmt.Errorf("%s: value %q: allowed are %s, %s", SettingUnknownWait, f.UnknownWait, WaitNoEnd, WaitZero)
	}
	switch {
	case f.Threshold < 0 || f.Threshold > sim.MaxTime:
		return f, fmt.Errorf("%s: %d s: give a number of seconds from 1 to %d", SettingSessionThreshold, f.Threshold, int64(sim.MaxTime))
	case f.Mode != FeedbackSessions && f.Threshold != 0:
		return f, fmt.Errorf("%s: set under %s=%s, which has no sessions; it needs %s=%s", SettingSessionThreshold, SettingFeedback, f.Mode, SettingFeedback, FeedbackSessions)
	case f.Mode == FeedbackSessions && f.Threshold == 0:
		f.Threshold = DefaultSessionThreshold
	}
	return f, nil
}

// Settings returns the settings in force by name, for provenance: none
// under FeedbackNone, so that a replay's provenance is what it was before
// feedback existed.
func (f Feedback) Settings() map[string]string {
	if f.Mode == "" || f.Mode == FeedbackNone {
		return nil
	}
	s := map[string]string{SettingFeedback: f.Mode, SettingUnknownWait: f.UnknownWait}
	if f.Mode == FeedbackSessions {
		s[SettingSessionThreshold] = strconv.FormatInt(f.Threshold, 10)
	}
	return s
}

// FeedbackReport says what the feedback setting did: the setting in force
// and, by rule, the jobs it touched (all rules, in the order of the Rule
// constants, zero counts included). It is empty under FeedbackNone.
type FeedbackReport struct {
	Feedback Feedback
	Counts   []Count
}

// Count returns the jobs counted by rule, 0 if there is no such rule.
func (r FeedbackReport) Count(rule string) int {
	for _, c := range r.Counts {
		if c.Rule == rule {
			return c.Jobs
		}
	}
	return 0
}

// Independent is the Count.Setting of the rules whose jobs depend on
// none: what they do with the job.
const Independent = "independent"

// FeedbackRuleNames returns the names of the feedback rules, in report
// order.
func FeedbackRuleNames() []string {
	out := make([]string, len(feedbackRules))
	for k, r := range feedbackRules {
		out[k] = r.rule
	}
	return out
}

// feedbackRules are the rules in report order, with what each does.
var feedbackRules = [...]struct{ rule, setting, action string }{
	{RuleDependent, "after-predecessor", Adjusted},
	{RuleNoPredecessor, Independent, Counted},
	{RuleUnknownUser, Independent, Counted},
	{RuleSessionBreak, Independent, Counted},
	{RuleMissingPredecessor, Independent, Counted},
	{RuleDroppedPredecessor, Independent, Counted},
	{RuleForwardPredecessor, Independent, Counted},
	{RuleThinkTimeUnknown, "trace-gap", Adjusted},
	{RuleWaitUnknown, "", Counted}, // the setting is Feedback.UnknownWait
}

// traced is what the feedback needs of a record of the trace, kept or not:
// one per record with a submit time, in file order.
type traced struct {
	id, submit int64
	// end is the trace's end, submit + wait + runtime; -1 when unknown.
	end           int64
	user          int64
	precede, wait int64 // fields 17 and 18
	// kept is the job's position among the kept jobs in file order, -1
	// for a record the cleaning dropped.
	kept int32
	// noWait says the trace gives no wait (field 3 negative).
	noWait bool
}

// tracedOf returns what the feedback needs of rec; zeroWait reads an
// unknown wait as 0 (WaitZero).
func tracedOf(rec *swf.Record, zeroWait bool) traced {
	t := traced{id: rec.JobNumber, submit: rec.Submit, end: -1, user: rec.User,
		precede: rec.PrecedingJob, wait: rec.ThinkTime, kept: -1, noWait: rec.Wait < 0}
	w := rec.Wait
	if w < 0 && zeroWait {
		w = 0
	}
	if w >= 0 && rec.RunTime >= 0 && rec.Submit <= sim.MaxTime && w <= sim.MaxTime && rec.RunTime <= sim.MaxTime {
		t.end = rec.Submit + w + rec.RunTime
	}
	return t
}

// applyFeedback sets the dependencies of jobs (sorted, with index[k] the
// index of the k-th kept job in file order) from the records recs by f,
// and returns its report.
func applyFeedback(f Feedback, recs []traced, jobs []sim.Input, index []int32) FeedbackReport {
	var counts [len(feedbackRules)]int
	rule := func(name string) int {
		for k, r := range feedbackRules {
			if r.rule == name {
				return k
			}
		}
		panic("no feedback rule " + name)
	}
	depend := func(e, p *traced, think int64) string {
		switch {
		case p.kept < 0:
			return RuleDroppedPredecessor
		case index[p.kept] >= index[e.kept]:
			return RuleForwardPredecessor
		}
		j := &jobs[index[e.kept]]
		j.After, j.Think = index[p.kept]+1, think
		return RuleDependent
	}
	switch f.Mode {
	case FeedbackSWF:
		byID := make(map[int64]int32, len(recs))
		for k := len(recs) - 1; k >= 0; k-- {
			byID[recs[k].id] = int32(k) // the first record of a duplicated number
		}
		for k := range recs {
			e := &recs[k]
			if e.kept < 0 {
				continue
			}
			p, ok := byID[e.precede]
			switch {
			case e.precede <= 0:
				counts[rule(RuleNoPredecessor)]++
			case !ok:
				counts[rule(RuleMissingPredecessor)]++
			default:
				pe := &recs[p]
				think := e.wait
				unknown := think < 0 || think > sim.MaxTime
				if unknown {
					think = 0
					if pe.end >= 0 && e.submit > pe.end {
						think = e.submit - pe.end
					}
				}
				r := depend(e, pe, think)
				counts[rule(r)]++
				if r == RuleDependent && unknown {
					counts[rule(RuleThinkTimeUnknown)]++
				}
			}
		}
	case FeedbackSessions:
		sessions(recs, func(e, p *traced) {
			var r string
			switch {
			case e.user < 0:
				r = RuleUnknownUser
			case p == nil:
				r = RuleNoPredecessor
			case e.submit-p.end >= f.Threshold:
				r = RuleSessionBreak
			default:
				r = depend(e, p, e.submit-p.end)
			}
			counts[rule(r)]++
		})
	}
	for k := range recs {
		if recs[k].kept >= 0 && recs[k].noWait {
			counts[rule(RuleWaitUnknown)]++
		}
	}
	rep := FeedbackReport{Feedback: f}
	for k, r := range feedbackRules {
		setting := r.setting
		if r.rule == RuleWaitUnknown {
			setting = f.UnknownWait
		}
		rep.Counts = append(rep.Counts, Count{Rule: r.rule, Setting: setting, Action: r.action, Jobs: counts[k]})
	}
	return rep
}

// sessions calls fn for every kept record e, in (submit, ID) order, with
// the latest record of the same user (kept or not) that ended in the trace
// at or before e's submission, nil if none; ties of ends go to the later
// record in (submit, ID) order. Records of an unknown user (-1) are never
// anyone's latest, and get nil.
func sessions(recs []traced, fn func(e, p *traced)) {
	order := make([]int32, len(recs))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		if c := cmp.Compare(recs[a].submit, recs[b].submit); c != 0 {
			return c
		}
		return cmp.Compare(recs[a].id, recs[b].id)
	})
	rank := make([]int32, len(recs))
	for r, k := range order {
		rank[k] = int32(r)
	}
	type user struct {
		running []int32 // records not ended yet, a heap by (end, rank)
		latest  int32   // -1 before any end
	}
	users := map[int64]*user{}
	less := func(a, b int32) bool {
		return recs[a].end < recs[b].end || recs[a].end == recs[b].end && rank[a] < rank[b]
	}
	for _, k := range order {
		e := &recs[k]
		if e.user < 0 {
			if e.kept >= 0 {
				fn(e, nil)
			}
			continue
		}
		u := users[e.user]
		if u == nil {
			u = &user{latest: -1}
			users[e.user] = u
		}
		for len(u.running) > 0 && recs[u.running[0]].end <= e.submit {
			u.latest = u.running[0]
			u.running = popHeap(u.running, less)
		}
		if e.kept >= 0 {
			if u.latest < 0 {
				fn(e, nil)
			} else {
				fn(e, &recs[u.latest])
			}
		}
		if e.end >= 0 {
			u.running = pushHeap(u.running, k, less)
		}
	}
}

func pushHeap(h []int32, x int32, less func(a, b int32) bool) []int32 {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

func popHeap(h []int32, less func(a, b int32) bool) []int32 {
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(h) && less(h[l], h[m]) {
			m = l
		}
		if r := l + 1; r < len(h) && less(h[r], h[m]) {
			m = r
		}
		if m == i {
			return h
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
