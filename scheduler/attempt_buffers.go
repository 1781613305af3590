package scheduler

// attemptBuffers are the working memory of the scheduling loop, kept from
// one attempt to the next so that an attempt allocates nothing per node
// (kube-scheduler allocates its lists per attempt; in a process that
// schedules thousands of pods a second, that garbage is most of the
// collector's work). Only the scheduling loop uses them, one attempt at a
// time; nothing an attempt hands on (errors, flow events, the chosen
// node) points into them.
type attemptBuffers struct {
	state CycleState
	// verdicts and feasible: findFeasible.
	verdicts []*Status
	feasible []*NodeInfo
	// score: runScore.
	score scoreBuffers
	// best: selectHost.
	best []string
}

// scoreBuffers are runScore's lists.
type scoreBuffers struct {
	active []bool
	out    []pluginScores
	// flat holds out's scores, one row per node.
	flat []int64
	// raw holds every plugin's scores, one list of all nodes per plugin.
	raw []NodeScore
}
