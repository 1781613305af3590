package controllers

// scaleDecision is the decision to scale the ReplicaSet rs from one
// size to another (upstream's ScalingReplicaSet event says the same:
// "Scaled up replica set web-5d9c7c8f4b from 1 to 2").
func scaleDecision(rs string, from, to int32) Decision {
	reason := DecisionScaleUp
	if to < from {
		reason = DecisionScaleDown
	}
	return Decision{Reason: reason, Target: rs, From: from, To: to}
}
