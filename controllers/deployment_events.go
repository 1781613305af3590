package controllers

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// ReasonScalingReplicaSet is the reason of the Events the deployment
// controller records when it changes a ReplicaSet's size, as upstream's
// (kubectl describe deployment lists them).
const ReasonScalingReplicaSet = "ScalingReplicaSet"

// startEvents sets up the controller's event recorder, as upstream's
// NewDeploymentController and Run do: a broadcaster whose events go to
// the core/v1 Events API (aggregated and rate-limited by client-go's
// correlator, as upstream's are), from the component
// deployment-controller. It returns the broadcaster's Shutdown. Called
// by Run before the workers start.
func (c *DeploymentController) startEvents(ctx context.Context) func() {
	b := record.NewBroadcaster(record.WithContext(ctx))
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
	c.recorder = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: DeploymentControllerName})
	return b.Shutdown
}

// recordScaled records that rs went from size from to size to, worded as
// upstream's: "Scaled up replica set web-5d9c7c8f4b from 0 to 3" (a new
// ReplicaSet) or "Scaled down replica set ... from 5 to 4". Without a
// recorder (a controller not started by Run) it does nothing.
func (c *DeploymentController) recordScaled(d *appsv1.Deployment, rs *appsv1.ReplicaSet, from, to int32) {
	if c.recorder == nil || from == to {
		return
	}
	direction := "up"
	if to < from {
		direction = "down"
	}
	c.recorder.Event(d, corev1.EventTypeNormal, ReasonScalingReplicaSet,
		fmt.Sprintf("Scaled %s replica set %s from %d to %d", direction, rs.Name, from, to))
}
