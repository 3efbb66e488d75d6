// Package sacct reads Slurm accounting logs, the output of
// `sacct --parsable2` (-P) or `--parsable` (-p), into job records for
// analysis, and converts them to SWF records for the simulator.
//
// # Format
//
// The first non-blank line is the header: field names separated by '|'.
// Fields are found by name (case-insensitive), so any field order and any
// --format, --format=ALL included, is read. Fields this package does not
// convert are kept (Job.Raw, Job.Field). Only JobID, or JobIDRaw when
// JobID is absent, is required; every other Job field is Missing (-1),
// NaN, "" or nil when its column is absent or empty. The Reader streams,
// one record at a time; plain and gzip input are recognised by content.
//
// Values: durations [D-]HH:MM:SS, MM:SS, MM:SS.mmm and HH:MM:SS.mmm (CPU
// times carry milliseconds), with UNLIMITED, Partition_Limit, INVALID,
// Unknown and empty as non-values (ParseDuration); timestamps
// YYYY-MM-DDTHH:MM:SS in the zone given by Options.Location, with Unknown,
// None and empty as missing (ParseTime); sizes with binary K/M/G/T/P/E
// suffixes (ParseSize, ParseReqMem: "2800Mc" per CPU, "180000Mn" per
// node, "4000M" the job's total on Slurm 21.08 and later); TRES strings
// into maps (ParseTRES); states normalised ("CANCELLED by 123" is
// CANCELLED, NormalizeState).
//
// # Separators and newlines inside fields
//
// sacct does not escape its output: a job name "a|b" adds a field to its
// line, and a newline in a --wrap script splits a record over lines. A
// record is never shifted silently. The rule:
//
//  1. A record with as many '|'-separated pieces as the header is taken
//     as is.
//  2. A line with fewer pieces is joined with the lines after it (with
//     "\n"), up to 1000 lines, until there are enough pieces, but never
//     with a line that is a well-formed record by itself (a truncated line
//     must not swallow the next record). If there is no such join, or the
//     joined record cannot be read by rule 3, the first line is an error
//     (ErrShortRecord, naming file and line) and the following lines are
//     read again as records of their own.
//  3. Extra pieces can only belong to free-text fields (FreeText):
//     AdminComment, Comment, Constraints, Container, Extra, JobName,
//     StdErr, StdIn, StdOut, SubmitLine, SystemComment, WCKey, WorkDir.
//     Every way of giving the extra pieces to those fields is considered,
//     and the ways that leave every other field in the format Slurm
//     writes for it (numbers, durations, timestamps, exit codes, TRES,
//     job ids, states; a newline only in a free-text field) are kept. If
//     several remain, those in which the fewest free-text values begin or
//     end with '|' are kept (the edge rule: with Comment empty and
//     Constraints "cpu-a|cpu-b", the reading Comment="|cpu-a",
//     Constraints="cpu-b" is also well-formed). Exactly one reading must
//     be left. Otherwise the record is an error naming the file, the line
//     and the fields involved, with two of the readings (ErrAmbiguous),
//     or saying that no reading is well-formed (ErrSeparators).
//
// Every repaired record is listed in Report.Repairs with the fields that
// hold '|' or a newline, and how many readings the edge rule set aside.
// With one free-text field in the header there is only one reading, which
// is used if it is well-formed.
// Options.SkipMalformed turns record errors into entries of Report.Skipped.
//
// # Steps
//
// A record whose JobID has a ".step" suffix ("123.batch", "123.extern",
// "123.0", "123_4.0", "123+1.0") is a step of the job whose ID is the
// JobID before the '.', without "+N". It is folded into the latest
// allocation record with that ID (the one before it in the file; steps
// met before their job wait for it; steps whose job never comes are
// listed in Report.Skipped as orphans). Folding adds the step's name to
// Job.Steps, and:
//
//   - TotalCPU, UserCPU, SystemCPU: when the job record has no value, the
//     sum over its steps' known values (the job record normally holds the
//     sum already, and is kept);
//   - MaxRSS, MaxVMSize: the maximum of the job's and its steps' values
//     (the job record normally has none);
//   - Start, End, Elapsed: when the job record has no value, the earliest
//     step start, the latest step end, the longest step.
//
// Nothing else: state, exit code, counts, CPUTime and TRES are the job
// record's, since the steps overlap (batch and extern both span the
// allocation).
//
// A heterogeneous job has one allocation record per component ("123+0",
// "123+1") and no "123" record. The first component met is the job
// (Job.ID "123"); each further component adds its CPU and node counts,
// CPUTime, CPU times and TRES, and widens Submit, Eligible, Start (the
// earliest), End, Elapsed, Timelimit, MaxRSS and MaxVMSize (the largest).
// Names, state and ReqMem stay the first component's. A second allocation
// record with the same ID and no new component (sacct -D) is a job of its
// own, counted in Report.DuplicateIDs.
//
// # Workloads
//
// LoadWorkload makes a workload of a log for the simulator: its jobs
// cleaned as SWF records (ToSWF) and, by job index, what each asks of
// nodes (workload.NodeRequest: ReqTRES and AllocTRES read by Resources,
// NNodes, Partition, Constraints), which package workload/nodes maps onto
// a platform of nodes by named settings (docs/semantics.md). It checks the
// node items of every TRES strictly (CheckNodeTRES).
package sacct
