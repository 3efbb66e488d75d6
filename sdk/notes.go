package sdk

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Noter is implemented by a policy that keeps values of its own per job,
// worth keeping with the jobs' records: multifactor notes each job's
// priority and its factors at its start, as Slurm's sprio shows them, and
// why the job waited, as squeue's reason shows it. The engine asks for the
// notes once, after the last call (sim.Result.Notes), and the jobs file
// keeps them in columns of their own. Like Counter's counts, notes must
// depend only on the run's inputs, so that a rerun gives the same ones.
type Noter interface {
	Notes() *Notes
}

// Notes are a policy's values per job, each slice indexed by Job.Index.
// A policy need not know how many jobs a run has: the engine pads what
// is shorter, columns with NaN and waits with none (Pad).
type Notes struct {
	// Columns are named values, one per job; NaN where the policy has none
	// for a job (one that never started, say).
	Columns []NoteColumn
	// Waits lists, per job, why it waited: each spell the time from which
	// a reason held, in time order, a reason differing from the one before
	// it. A nil Waits keeps no reasons; a job's empty list, none for it.
	Waits [][]WaitSpell
}

// NoteColumn is one named value per job. Its name, made of lower-case
// letters, digits and underscores, becomes the jobs file's column
// policy_NAME.
type NoteColumn struct {
	Name   string
	Values []float64
}

// WaitSpell is a reason a job waited, from a time on: until the next
// spell's time, or the job's start.
type WaitSpell struct {
	From   int64
	Reason string
}

// Pad extends the columns shorter than jobs with NaN, and Waits, when not
// nil, with empty lists.
func (n *Notes) Pad(jobs int) {
	for k := range n.Columns {
		for len(n.Columns[k].Values) < jobs {
			n.Columns[k].Values = append(n.Columns[k].Values, math.NaN())
		}
	}
	if n.Waits != nil && len(n.Waits) < jobs {
		n.Waits = append(n.Waits, make([][]WaitSpell, jobs-len(n.Waits))...)
	}
}

// ErrNotes is wrapped by the errors of Notes.Check.
var ErrNotes = errors.New("policy notes")

// MaxReason is the longest reason a wait spell may give, in bytes.
const MaxReason = 255

// Check reports notes that do not fit a run of the given number of jobs:
// notes with neither columns nor waits; a column of another length, a
// name that is empty, longer than 64 bytes, repeated, not made of
// lower-case letters, digits and underscores, or beginning with wait_from
// or wait_reason (the jobs file's names of the reasons); an infinite
// value; a spell whose reason is empty, longer than MaxReason bytes or not
// UTF-8, or not after the one before it; or the same reason twice in a row.
func (n *Notes) Check(jobs int) error {
	if len(n.Columns) == 0 && n.Waits == nil {
		return fmt.Errorf("%w: neither columns nor waits", ErrNotes)
	}
	seen := map[string]bool{}
	for k, c := range n.Columns {
		if !noteName(c.Name) || seen[c.Name] || strings.HasPrefix(c.Name, "wait_from") || strings.HasPrefix(c.Name, "wait_reason") {
			return fmt.Errorf("%w: column %d: name %q is empty, too long, repeated, not of a-z, 0-9 and _, or the reasons'", ErrNotes, k, c.Name)
		}
		seen[c.Name] = true
		if len(c.Values) != jobs {
			return fmt.Errorf("%w: column %s has %d values for %d jobs", ErrNotes, c.Name, len(c.Values), jobs)
		}
		for i, v := range c.Values {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: column %s: job index %d: %v", ErrNotes, c.Name, i, v)
			}
		}
	}
	if n.Waits == nil {
		return nil
	}
	if len(n.Waits) != jobs {
		return fmt.Errorf("%w: waits of %d jobs for %d jobs", ErrNotes, len(n.Waits), jobs)
	}
	for i, ws := range n.Waits {
		for k, w := range ws {
			switch {
			case w.Reason == "" || len(w.Reason) > MaxReason || !utf8.ValidString(w.Reason):
				return fmt.Errorf("%w: job index %d: wait %d: reason %.40q is empty, longer than %d bytes or not UTF-8", ErrNotes, i, k, w.Reason, MaxReason)
			case k > 0 && w.From <= ws[k-1].From:
				return fmt.Errorf("%w: job index %d: wait %d at %d is not after the one before it (%d)", ErrNotes, i, k, w.From, ws[k-1].From)
			case k > 0 && w.Reason == ws[k-1].Reason:
				return fmt.Errorf("%w: job index %d: wait %d repeats the reason %q", ErrNotes, i, k, w.Reason)
			}
		}
	}
	return nil
}

// noteName reports whether s is a valid note column name.
func noteName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}
