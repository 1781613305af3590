package scenarios

// actionKinds are the actions a step may have, one line per key. Their
// order is the order messages list them in, and docs/scenarios.md's table
// of actions must list them in it too (TestDocsListEveryKind).
var actionKinds = []actionKind{
	{"apply", parseApply},
	{"applyFile", parseApplyFile},
	{"create", parseApply},
	{"update", parseUpdate},
	{"delete", parseDelete},
	{"patch", parsePatch},
	{"addNode", parseAddNode},
	{"removeNode", parseNodeAction},
	{"stopScheduler", parseControl},
	{"startScheduler", parseControl},
	{"stopKubelet", parseNodeAction},
	{"startKubelet", parseNodeAction},
	{"restartAPIServer", parseControl},
	{"compactEtcd", parseControl},
	{"stopMetricsServer", parseControl},
	{"startMetricsServer", parseControl},
	{"validateServe", parseValidateServe},
	{"startupTrace", parseStartupTrace},
	{"http", parseHTTP},
	{"etcdWatch", parseEtcdWatch},
	{"restfulDispatch", parseRestfulDispatch},
	{"restfulHello", parseRestfulHello},
	{"http2Frames", parseHTTP2Frames},
	{"watchCompare", parseWatchCompare},
	{"slowWatch", parseSlowWatch},
	{"scale", parseScale},
	{"setImage", parseSetImage},
	{"rolloutUndo", parseRolloutUndo},
	{"passReadinessGates", parsePassReadinessGates},
}

// expectationKinds are the expectations a step may list, one line per
// key, in the order messages (and docs/scenarios.md's table of
// expectations) list them.
var expectationKinds = []expectationKind{
	{"podStage", parsePodStage},
	{"podPhase", parsePodPhase},
	{"containerState", parseContainerState},
	{"event", parseEvent},
	{"eventMessage", parseEventMessage},
	{"status", parseStatus},
	{"message", parseMessage},
	{"watchEvents", parseWatchEvents},
	{"absent", parseAbsent},
	{"nodeReady", parseNodeReady},
	{"condition", parseCondition},
	{"canI", parseCanI},
	{"scheduling", parseScheduling},
	{"transcript", parseTranscript},
	{"restfulRoute", parseRestfulRoute},
	{"restfulScore", parseRestfulScore},
	{"restfulAnswer", parseRestfulAnswer},
	{"scoreboard", parseScoreboard},
	{"slowWatcher", parseSlowWatcher},
	{"deployment", parseDeploymentExpectation},
	{"replicaSets", parseReplicaSets},
	{"nodeTaints", parseNodeTaints},
	{"pods", parsePods},
	{"objects", parseObjects},
	{"endpoints", parseEndpoints},
}
