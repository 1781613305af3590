package scenarios

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

func i64(v int64) *int64 { return &v }

func TestParseDeploymentExpectation(t *testing.T) {
	checkParse(t, parseDeploymentExpectation, []parseCase[Expectation]{
		{name: "figures", key: "deployment", src: "{name: web, revision: 2, current: 7, ready: 4}",
			want: &DeploymentExpectation{Deployment: webDeployment, Revision: i64(2), Current: i64(7), Ready: i64(4)}},
		{name: "no figure", key: "deployment", src: "{name: web}",
			wantErr: `1:1: deployment: give at least one of revision, desired, current, upToDate, ready, available, unavailable`},
		{name: "no name", key: "deployment", src: "{ready: 1}", wantErr: `1:1: deployment: missing field "name"`},
		{name: "revision 0", key: "deployment", src: "{name: web, revision: 0}", wantErr: `1:23: deployment.revision: 0 is out of range (at least 1)`},
		{name: "negative", key: "deployment", src: "{name: web, ready: -1}", wantErr: `1:20: deployment.ready: -1 is out of range (at least 0)`},
		{name: "kubectl's word", key: "deployment", src: "{name: web, updated: 1}",
			wantErr: `1:13: deployment: unknown field "updated" (allowed: name, namespace, revision, desired, current, upToDate, ready, available, unavailable)`},
	})
}

func TestParseAutoscaler(t *testing.T) {
	hpa := ObjectSpec{Kind: "HorizontalPodAutoscaler", Name: "web", Namespace: DefaultNamespace}
	checkParse(t, parseAutoscaler, []parseCase[Expectation]{
		{name: "figures", key: "autoscaler", src: "{name: web, current: 5, desired: 5, utilizationAtLeast: 181, utilizationAtMost: 189}",
			want: &AutoscalerExpectation{Autoscaler: hpa, Current: i64(5), Desired: i64(5), UtilizationAtLeast: i64(181), UtilizationAtMost: i64(189)}},
		{name: "no figure", key: "autoscaler", src: "{name: web}",
			wantErr: `1:1: autoscaler: give at least one of current, desired, utilization, utilizationAtLeast, utilizationAtMost`},
		{name: "negative", key: "autoscaler", src: "{name: web, desired: -1}", wantErr: `1:22: autoscaler.desired: -1 is out of range (at least 0)`},
	})
}

func TestParseReplicaSets(t *testing.T) {
	checkParse(t, parseReplicaSets, []parseCase[Expectation]{
		{name: "two sets", key: "replicaSets", src: "deployment: web\nsets:\n  - {revision: 1, desired: 0}\n  - {revision: 3, ready: 5, image: 'nginx:1.26', revisionHistory: [1]}",
			want: &ReplicaSetsExpectation{Deployment: webDeployment, Sets: []ReplicaSetWant{
				{Revision: 1, Desired: i64(0)},
				{Revision: 3, Ready: i64(5), Image: "nginx:1.26", RevisionHistory: []int64{1}, historyGiven: true}}}},
		{name: "no history", key: "replicaSets", src: "{deployment: web, sets: [{revision: 1, revisionHistory: []}]}",
			want: &ReplicaSetsExpectation{Deployment: webDeployment, Sets: []ReplicaSetWant{{Revision: 1, RevisionHistory: []int64{}, historyGiven: true}}}},
		{name: "no sets", key: "replicaSets", src: "{deployment: web}", wantErr: `1:1: replicaSets: missing field "sets"`},
		{name: "empty sets", key: "replicaSets", src: "{deployment: web, sets: []}",
			wantErr: `1:25: replicaSets.sets: expected a list of at least one ReplicaSet, got a list`},
		{name: "no revision", key: "replicaSets", src: "deployment: web\nsets:\n  - {ready: 1}",
			wantErr: `3:5: replicaSets.sets[0]: missing field "revision"`},
		{name: "revision twice", key: "replicaSets", src: "deployment: web\nsets:\n  - {revision: 1}\n  - {revision: 1, ready: 2}",
			wantErr: `4:5: replicaSets.sets[1]: revision 1 given twice`},
		{name: "unknown field", key: "replicaSets", src: "deployment: web\nsets:\n  - {revision: 1, replicas: 2}",
			wantErr: `3:19: replicaSets.sets[0]: unknown field "replicas" (allowed: revision, desired, current, ready, available, image, revisionHistory)`},
		{name: "history of strings", key: "replicaSets", src: "deployment: web\nsets:\n  - {revision: 3, revisionHistory: [one]}",
			wantErr: `3:37: replicaSets.sets[0].revisionHistory[0]: expected an integer, got a string ("one")`},
	})
}

// TestReplicaSetWantMatches: each figure given is compared, and a status
// not yet of the ReplicaSet's generation never matches.
func TestReplicaSetWantMatches(t *testing.T) {
	rs := rsOf("web-abc", "3", "nginx:1.26")
	rs.Annotations[revisionHistoryAnnotation] = "1"
	five := int32(5)
	rs.Spec.Replicas = &five
	rs.Generation = 2
	rs.Status = appsv1.ReplicaSetStatus{ObservedGeneration: 2, Replicas: 5, ReadyReplicas: 4, AvailableReplicas: 3}
	for _, tc := range []struct {
		name string
		want ReplicaSetWant
		ok   bool
	}{
		{"all figures", ReplicaSetWant{Revision: 3, Desired: i64(5), Current: i64(5), Ready: i64(4), Available: i64(3), Image: "nginx:1.26",
			RevisionHistory: []int64{1}, historyGiven: true}, true},
		{"ready differs", ReplicaSetWant{Revision: 3, Ready: i64(5)}, false},
		{"image differs", ReplicaSetWant{Revision: 3, Image: "nginx:1.27"}, false},
		{"history differs", ReplicaSetWant{Revision: 3, RevisionHistory: []int64{}, historyGiven: true}, false},
		{"nothing but the revision", ReplicaSetWant{Revision: 3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.want.matches(rs); got != tc.ok {
				t.Errorf("%s matches %s = %v, want %v", tc.want, replicaSetSeen(rs), got, tc.ok)
			}
		})
	}
	rs.Generation = 3
	if (ReplicaSetWant{Revision: 3}).matches(rs) {
		t.Errorf("a status of generation 2 matched a ReplicaSet of generation 3")
	}
}
