package sdk

// DrainNodes drains the given nodes of cluster c, a cluster of nodes, in
// increasing order (see ActionDrain): they take no new job from now on,
// and the jobs on them run to their end.
func DrainNodes(c int, nodes []int32) Decision {
	return Decision{Action: ActionDrain, Cluster: c, Nodes: nodes}
}

// ResumeNodes returns the given nodes of cluster c, which the policy
// drained, to service (see ActionResume).
func ResumeNodes(c int, nodes []int32) Decision {
	return Decision{Action: ActionResume, Cluster: c, Nodes: nodes}
}
