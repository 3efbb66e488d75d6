// Package swf reads and writes workload traces in the Standard Workload
// Format (SWF) of the Parallel Workloads Archive.
//
// An SWF file is plain text. Lines whose first non-blank character is ';'
// are comments; those before the first job form the header and carry
// "; Key: value" pairs (MaxProcs, MaxNodes, UnixStartTime, Queue, Note...).
// Every other line is one job: 18 whitespace-separated numeric fields, with
// -1 meaning "unknown". This package only parses and writes the format; it
// makes no cleaning decision (see package workload for that).
//
// The Reader streams: it holds one line at a time, so a trace of any size is
// read in constant memory. A line is at most MaxLineBytes long and the
// header at most MaxHeaderBytes, so that a file that is not a trace (no
// newline in a gigabyte) is an error naming the line, not a gigabyte held. It reads plain and gzip-compressed input alike and
// hashes the uncompressed bytes, which is how SOURCES.md names traces.
package swf

// NumFields is the number of fields of every job line.
const NumFields = 18

// Missing is the value SWF writes for an unknown field.
const Missing = -1

// Record is one job line of an SWF file, with the fields in file order.
// Times are in seconds, memory in kilobytes per processor. Every field is
// Missing (-1) when the trace does not know it.
type Record struct {
	// Line is the 1-based line number of the record in its file (0 for a
	// record that was not read from a file).
	Line int

	JobNumber    int64   // field 1: job number, a counter from 1
	Submit       int64   // field 2: submit time, seconds from the start of the log
	Wait         int64   // field 3: wait time between submission and start
	RunTime      int64   // field 4: wall-clock run time (end minus start)
	AllocProcs   int64   // field 5: number of allocated processors
	AvgCPUTime   float64 // field 6: average CPU time used per processor; fractional in some traces
	UsedMemory   float64 // field 7: average memory used per processor, in KB; may be fractional
	ReqProcs     int64   // field 8: requested number of processors
	ReqTime      int64   // field 9: requested time (the user's walltime estimate)
	ReqMemory    float64 // field 10: requested memory per processor, in KB; may be fractional
	Status       int64   // field 11: 1 completed, 0 failed, 5 cancelled (other codes exist)
	User         int64   // field 12: user ID
	Group        int64   // field 13: group ID
	App          int64   // field 14: executable (application) number
	Queue        int64   // field 15: queue number
	Partition    int64   // field 16: partition number
	PrecedingJob int64   // field 17: job number this job depends on
	ThinkTime    int64   // field 18: think time after the preceding job
}

// FieldName returns the name of the 1-based field i as used in error
// messages, or "" when i is not a field number.
func FieldName(i int) string {
	switch i {
	case 1:
		return "job number"
	case 2:
		return "submit time"
	case 3:
		return "wait time"
	case 4:
		return "run time"
	case 5:
		return "allocated processors"
	case 6:
		return "average CPU time"
	case 7:
		return "used memory"
	case 8:
		return "requested processors"
	case 9:
		return "requested time"
	case 10:
		return "requested memory"
	case 11:
		return "status"
	case 12:
		return "user"
	case 13:
		return "group"
	case 14:
		return "application"
	case 15:
		return "queue"
	case 16:
		return "partition"
	case 17:
		return "preceding job"
	case 18:
		return "think time"
	}
	return ""
}

// isFloatField reports whether the 1-based field i may be fractional: the
// average CPU time and the two memory fields are averages, so real traces
// (HPC2N, SDSC-BLUE) write them with decimals.
func isFloatField(i int) bool { return i == 6 || i == 7 || i == 10 }

// intField returns a pointer to the 1-based integer field i of r.
func (r *Record) intField(i int) *int64 {
	switch i {
	case 1:
		return &r.JobNumber
	case 2:
		return &r.Submit
	case 3:
		return &r.Wait
	case 4:
		return &r.RunTime
	case 5:
		return &r.AllocProcs
	case 8:
		return &r.ReqProcs
	case 9:
		return &r.ReqTime
	case 11:
		return &r.Status
	case 12:
		return &r.User
	case 13:
		return &r.Group
	case 14:
		return &r.App
	case 15:
		return &r.Queue
	case 16:
		return &r.Partition
	case 17:
		return &r.PrecedingJob
	case 18:
		return &r.ThinkTime
	}
	return nil
}

// floatField returns a pointer to the 1-based fractional field i of r.
func (r *Record) floatField(i int) *float64 {
	switch i {
	case 6:
		return &r.AvgCPUTime
	case 7:
		return &r.UsedMemory
	case 10:
		return &r.ReqMemory
	}
	return nil
}
