package results

// WritePlainJobs lets the benchmarks of package results_test write a jobs
// file as schedlab-results 1.0.0 did, every column plain.
var WritePlainJobs = writePlainJobs
