package controllers

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestProportionalSizes: the documented example of proportional scaling
// (kubernetes.io, Deployments: a rollout of 10 replicas, maxSurge 3,
// stuck with 8 old and 5 new, scaled to 15): the 5 replicas added go 3
// to the old ReplicaSet and 2 to the new one; scaled back down, they
// leave in the same proportion.
func TestProportionalSizes(t *testing.T) {
	rs := func(name string, replicas int32, age time.Duration, maxReplicas string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(1e9, 0).Add(-age)),
				Annotations: map[string]string{MaxReplicasAnnotation: maxReplicas}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &replicas},
		}
	}
	deployment := func(replicas int32) *appsv1.Deployment {
		surge, unavailable := intstr.FromInt32(3), intstr.FromInt32(2)
		return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &replicas, Strategy: appsv1.DeploymentStrategy{
			Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}}}
	}
	tests := []struct {
		name     string
		replicas int32
		old, new *appsv1.ReplicaSet
		want     map[string]int32
	}{
		{"up 10 to 15", 15, rs("old", 8, time.Hour, "13"), rs("new", 5, time.Minute, "13"), map[string]int32{"old": 11, "new": 7}},
		{"down 15 to 10", 10, rs("old", 11, time.Hour, "18"), rs("new", 7, time.Minute, "18"), map[string]int32{"old": 8, "new": 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := proportionalSizes(deployment(tt.replicas), []*appsv1.ReplicaSet{tt.old, tt.new})
			for name, want := range tt.want {
				if got[name] != want {
					t.Errorf("%s: %d replicas, want %d (all: %v)", name, got[name], want, got)
				}
			}
		})
	}
}

// TestFenceposts: maxSurge rounds up, maxUnavailable down, and both 0
// would stall a rollout, so maxUnavailable is then 1.
func TestFenceposts(t *testing.T) {
	tests := []struct {
		surge, unavailable       intstr.IntOrString
		replicas                 int32
		wantSurge, wantUnavailab int32
	}{
		{intstr.FromString("25%"), intstr.FromString("25%"), 3, 1, 0},
		{intstr.FromString("25%"), intstr.FromString("25%"), 10, 3, 2},
		{intstr.FromInt32(0), intstr.FromInt32(0), 5, 0, 1},
	}
	for _, tt := range tests {
		d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &tt.replicas, Strategy: appsv1.DeploymentStrategy{
			Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &tt.surge, MaxUnavailable: &tt.unavailable}}}}
		if s, u := fenceposts(d); s != tt.wantSurge || u != tt.wantUnavailab {
			t.Errorf("%s/%s of %d: surge %d unavailable %d, want %d and %d", tt.surge.String(), tt.unavailable.String(), tt.replicas, s, u, tt.wantSurge, tt.wantUnavailab)
		}
	}
}
