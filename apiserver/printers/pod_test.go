package printers_test

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Pod cells, in column order.
const (
	podName = iota
	podReady
	podStatus
	podRestarts
	podAge
	podIP
	podNode
	podNominatedNode
	podReadinessGates
)

// TestPodReadyStatusRestarts checks the READY, STATUS and RESTARTS cells of
// `kubectl get pods` for the pod states a learner meets on a real cluster.
func TestPodReadyStatusRestarts(t *testing.T) {
	type want struct{ ready, status, restarts string }
	pod := func(phase corev1.PodPhase, spec corev1.PodSpec, st corev1.PodStatus) *corev1.Pod {
		st.Phase = phase
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", CreationTimestamp: ago(5 * time.Minute)},
			Spec:       spec,
			Status:     st,
		}
	}
	oneApp := corev1.PodSpec{Containers: containers("app")}
	twoApps := corev1.PodSpec{Containers: containers("app", "helper")}
	withInits := corev1.PodSpec{InitContainers: containers("init-db", "init-cache"), Containers: containers("app")}
	withSidecar := corev1.PodSpec{InitContainers: []corev1.Container{sidecar("proxy")}, Containers: containers("app")}
	initThenSidecar := corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init-db", Image: "busybox"}, sidecar("proxy")},
		Containers:     containers("app"),
	}
	twoSidecars := corev1.PodSpec{InitContainers: []corev1.Container{sidecar("proxy"), sidecar("logs")}, Containers: containers("app")}

	initialized := condition(corev1.PodInitialized, corev1.ConditionTrue)
	notInitialized := condition(corev1.PodInitialized, corev1.ConditionFalse)
	ready := condition(corev1.PodReady, corev1.ConditionTrue)

	signalled := terminatedStatus("app", "", 137)
	signalled.State.Terminated.Signal = 9
	initSignalled := terminatedStatus("init-db", "", 137)
	initSignalled.State.Terminated.Signal = 9
	neverRestartedSince := runningStatus("app", true)
	neverRestartedSince.RestartCount = 2 // no lastState recorded

	tests := []struct {
		name string
		pod  *corev1.Pod
		want want
	}{
		// Scheduling and start-up.
		{"not scheduled yet", pod(corev1.PodPending, oneApp, corev1.PodStatus{
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}},
		}), want{"0/1", "Pending", "0"}},
		{"held by scheduling gates", pod(corev1.PodPending, oneApp, corev1.PodStatus{
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}},
		}), want{"0/1", "SchedulingGated", "0"}},
		{"container being created", pod(corev1.PodPending, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{waitingStatus("app", "ContainerCreating")},
		}), want{"0/1", "ContainerCreating", "0"}},
		{"image cannot be pulled", pod(corev1.PodPending, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{waitingStatus("app", "ErrImagePull")},
		}), want{"0/1", "ErrImagePull", "0"}},
		{"image pull backing off", pod(corev1.PodPending, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{waitingStatus("app", "ImagePullBackOff")},
		}), want{"0/1", "ImagePullBackOff", "0"}},
		{"phase Unknown", pod(corev1.PodUnknown, oneApp, corev1.PodStatus{}), want{"0/1", "Unknown", "0"}},

		// Running.
		{"running and ready", pod(corev1.PodRunning, oneApp, corev1.PodStatus{
			Conditions:        []corev1.PodCondition{ready},
			ContainerStatuses: []corev1.ContainerStatus{runningStatus("app", true)},
		}), want{"1/1", "Running", "0"}},
		{"running but readiness probe failing", pod(corev1.PodRunning, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{runningStatus("app", false)},
		}), want{"0/1", "Running", "0"}},
		{"first container's state wins", pod(corev1.PodPending, twoApps, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{waitingStatus("app", "ImagePullBackOff"), runningStatus("helper", true)},
		}), want{"1/2", "ImagePullBackOff", "0"}},
		{"crash looping", pod(corev1.PodRunning, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{restarted(waitingStatus("app", "CrashLoopBackOff"), 4, 30*time.Second)},
		}), want{"0/1", "CrashLoopBackOff", "4 (30s ago)"}},
		{"just OOM-killed", pod(corev1.PodRunning, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "OOMKilled", 137)},
		}), want{"0/1", "OOMKilled", "0"}},

		// Finished.
		{"completed", pod(corev1.PodSucceeded, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "Completed", 0)},
		}), want{"0/1", "Completed", "0"}},
		{"error", pod(corev1.PodFailed, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "Error", 1)},
		}), want{"0/1", "Error", "0"}},
		{"terminated without a reason shows the exit code", pod(corev1.PodFailed, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "", 2)},
		}), want{"0/1", "ExitCode:2", "0"}},
		{"terminated without a reason shows the signal", pod(corev1.PodFailed, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{signalled},
		}), want{"0/1", "Signal:9", "0"}},
		{"one completed, one running, pod not ready", pod(corev1.PodRunning, twoApps, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "Completed", 0), runningStatus("helper", true)},
		}), want{"1/2", "NotReady", "0"}},
		{"one completed, one running, pod ready", pod(corev1.PodRunning, twoApps, corev1.PodStatus{
			Conditions:        []corev1.PodCondition{ready},
			ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "Completed", 0), runningStatus("helper", true)},
		}), want{"1/2", "Running", "0"}},
		{"one failed, one running", pod(corev1.PodRunning, twoApps, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "Error", 1), runningStatus("helper", true)},
		}), want{"1/2", "Error", "0"}},
		{"completed does not hide a failed container", pod(corev1.PodFailed, twoApps, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "Completed", 0), terminatedStatus("helper", "Error", 1)},
		}), want{"0/2", "Error", "0"}},

		// status.reason and deletion.
		{"status.reason overrides the phase", pod(corev1.PodFailed, oneApp, corev1.PodStatus{
			Reason: "Evicted", Message: "The node was low on resource: memory.",
		}), want{"0/1", "Evicted", "0"}},
		{"node lost, not deleted", pod(corev1.PodRunning, oneApp, corev1.PodStatus{
			Reason:            "NodeLost",
			ContainerStatuses: []corev1.ContainerStatus{runningStatus("app", true)},
		}), want{"1/1", "NodeLost", "0"}},
		{"terminating", func() *corev1.Pod {
			p := pod(corev1.PodRunning, oneApp, corev1.PodStatus{
				Conditions:        []corev1.PodCondition{ready},
				ContainerStatuses: []corev1.ContainerStatus{runningStatus("app", true)},
			})
			p.DeletionTimestamp = agoPtr(10 * time.Second)
			return p
		}(), want{"1/1", "Terminating", "0"}},
		{"terminating before it started", func() *corev1.Pod {
			p := pod(corev1.PodPending, oneApp, corev1.PodStatus{})
			p.DeletionTimestamp = agoPtr(10 * time.Second)
			return p
		}(), want{"0/1", "Terminating", "0"}},
		{"deleting a completed pod keeps Completed", func() *corev1.Pod {
			p := pod(corev1.PodSucceeded, oneApp, corev1.PodStatus{
				ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "Completed", 0)},
			})
			p.DeletionTimestamp = agoPtr(10 * time.Second)
			return p
		}(), want{"0/1", "Completed", "0"}},
		{"deleting a failed pod keeps Error", func() *corev1.Pod {
			p := pod(corev1.PodFailed, oneApp, corev1.PodStatus{
				ContainerStatuses: []corev1.ContainerStatus{terminatedStatus("app", "Error", 1)},
			})
			p.DeletionTimestamp = agoPtr(10 * time.Second)
			return p
		}(), want{"0/1", "Error", "0"}},
		{"deleted on a lost node", func() *corev1.Pod {
			p := pod(corev1.PodRunning, oneApp, corev1.PodStatus{
				Reason:            "NodeLost",
				ContainerStatuses: []corev1.ContainerStatus{runningStatus("app", true)},
			})
			p.DeletionTimestamp = agoPtr(10 * time.Second)
			return p
		}(), want{"1/1", "Unknown", "0"}},

		// Init containers.
		{"init containers not started", pod(corev1.PodPending, withInits, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{notInitialized},
			InitContainerStatuses: []corev1.ContainerStatus{waitingStatus("init-db", "PodInitializing"), waitingStatus("init-cache", "PodInitializing")},
			ContainerStatuses:     []corev1.ContainerStatus{waitingStatus("app", "PodInitializing")},
		}), want{"0/1", "Init:0/2", "0"}},
		{"first init container running", pod(corev1.PodPending, withInits, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{notInitialized},
			InitContainerStatuses: []corev1.ContainerStatus{runningStatus("init-db", false), waitingStatus("init-cache", "PodInitializing")},
			ContainerStatuses:     []corev1.ContainerStatus{waitingStatus("app", "PodInitializing")},
		}), want{"0/1", "Init:0/2", "0"}},
		{"second init container running", pod(corev1.PodPending, withInits, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{notInitialized},
			InitContainerStatuses: []corev1.ContainerStatus{terminatedStatus("init-db", "Completed", 0), runningStatus("init-cache", false)},
			ContainerStatuses:     []corev1.ContainerStatus{waitingStatus("app", "PodInitializing")},
		}), want{"0/1", "Init:1/2", "0"}},
		{"init container failed", pod(corev1.PodFailed, withInits, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{notInitialized},
			InitContainerStatuses: []corev1.ContainerStatus{terminatedStatus("init-db", "Error", 1), waitingStatus("init-cache", "PodInitializing")},
			ContainerStatuses:     []corev1.ContainerStatus{waitingStatus("app", "PodInitializing")},
		}), want{"0/1", "Init:Error", "0"}},
		{"init container crash looping", pod(corev1.PodPending, withInits, corev1.PodStatus{
			Conditions: []corev1.PodCondition{notInitialized},
			InitContainerStatuses: []corev1.ContainerStatus{
				restarted(waitingStatus("init-db", "CrashLoopBackOff"), 3, 40*time.Second),
				waitingStatus("init-cache", "PodInitializing"),
			},
			ContainerStatuses: []corev1.ContainerStatus{waitingStatus("app", "PodInitializing")},
		}), want{"0/1", "Init:CrashLoopBackOff", "3 (40s ago)"}},
		{"init container image pull backing off", pod(corev1.PodPending, withInits, corev1.PodStatus{
			InitContainerStatuses: []corev1.ContainerStatus{waitingStatus("init-db", "ImagePullBackOff"), waitingStatus("init-cache", "PodInitializing")},
		}), want{"0/1", "Init:ImagePullBackOff", "0"}},
		{"init container exit code without reason", pod(corev1.PodFailed, withInits, corev1.PodStatus{
			InitContainerStatuses: []corev1.ContainerStatus{terminatedStatus("init-db", "", 3)},
		}), want{"0/1", "Init:ExitCode:3", "0"}},
		{"init container signal without reason", pod(corev1.PodFailed, withInits, corev1.PodStatus{
			InitContainerStatuses: []corev1.ContainerStatus{initSignalled},
		}), want{"0/1", "Init:Signal:9", "0"}},
		{"initialized: init restarts no longer counted", pod(corev1.PodRunning, withInits, corev1.PodStatus{
			Conditions: []corev1.PodCondition{initialized, ready},
			InitContainerStatuses: []corev1.ContainerStatus{
				restarted(terminatedStatus("init-db", "Completed", 0), 2, 2*time.Minute),
				terminatedStatus("init-cache", "Completed", 0),
			},
			ContainerStatuses: []corev1.ContainerStatus{runningStatus("app", true)},
		}), want{"1/1", "Running", "0"}},

		// Sidecars (restartable init containers) count in READY.
		{"sidecar not started yet", pod(corev1.PodPending, withSidecar, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{notInitialized},
			InitContainerStatuses: []corev1.ContainerStatus{func() corev1.ContainerStatus { s := runningStatus("proxy", false); s.Started = ptr(false); return s }()},
			ContainerStatuses:     []corev1.ContainerStatus{waitingStatus("app", "PodInitializing")},
		}), want{"0/2", "Init:0/1", "0"}},
		{"sidecar and app ready", pod(corev1.PodRunning, withSidecar, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{initialized, ready},
			InitContainerStatuses: []corev1.ContainerStatus{runningStatus("proxy", true)},
			ContainerStatuses:     []corev1.ContainerStatus{runningStatus("app", true)},
		}), want{"2/2", "Running", "0"}},
		{"sidecar started but not ready", pod(corev1.PodRunning, withSidecar, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{initialized},
			InitContainerStatuses: []corev1.ContainerStatus{runningStatus("proxy", false)},
			ContainerStatuses:     []corev1.ContainerStatus{runningStatus("app", true)},
		}), want{"1/2", "Running", "0"}},
		{"sidecar restarts count with the app's", pod(corev1.PodRunning, withSidecar, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{initialized, ready},
			InitContainerStatuses: []corev1.ContainerStatus{restarted(runningStatus("proxy", true), 2, 3*time.Minute)},
			ContainerStatuses:     []corev1.ContainerStatus{restarted(runningStatus("app", true), 1, 10*time.Minute)},
		}), want{"2/2", "Running", "3 (3m ago)"}},
		{"init container done, sidecar up, app being created", pod(corev1.PodPending, initThenSidecar, corev1.PodStatus{
			Conditions:            []corev1.PodCondition{initialized},
			InitContainerStatuses: []corev1.ContainerStatus{terminatedStatus("init-db", "Completed", 0), runningStatus("proxy", true)},
			ContainerStatuses:     []corev1.ContainerStatus{waitingStatus("app", "ContainerCreating")},
		}), want{"1/2", "ContainerCreating", "0"}},
		{"second sidecar running but not started", pod(corev1.PodPending, twoSidecars, corev1.PodStatus{
			Conditions: []corev1.PodCondition{notInitialized},
			InitContainerStatuses: []corev1.ContainerStatus{
				restarted(runningStatus("proxy", false), 3, 10*time.Second),
				func() corev1.ContainerStatus { s := runningStatus("logs", false); s.Started = ptr(false); return s }(),
			},
			ContainerStatuses: []corev1.ContainerStatus{waitingStatus("app", "PodInitializing")},
		}), want{"0/3", "Init:1/2", "3 (10s ago)"}},
		{"job with sidecars finished", pod(corev1.PodSucceeded, twoSidecars, corev1.PodStatus{
			Conditions: []corev1.PodCondition{initialized},
			InitContainerStatuses: []corev1.ContainerStatus{
				restarted(terminatedStatus("proxy", "Error", 137), 3, 10*time.Second),
				terminatedStatus("logs", "Error", 137),
			},
			ContainerStatuses: []corev1.ContainerStatus{restarted(terminatedStatus("app", "Completed", 0), 4, 20*time.Second)},
		}), want{"0/3", "Completed", "7 (10s ago)"}},

		// The RESTARTS cell.
		{"restarts without a recorded last termination", pod(corev1.PodRunning, oneApp, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{neverRestartedSince},
		}), want{"1/1", "Running", "2"}},
		{"restarts summed, the most recent one shown", pod(corev1.PodRunning, twoApps, corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{
				restarted(runningStatus("app", true), 6, 5*day),
				restarted(runningStatus("helper", true), 3, 20*day),
			},
		}), want{"2/2", "Running", "9 (5d ago)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cells := MustRow(t, tt.pod)
			got := want{cells[podReady].(string), cells[podStatus].(string), cells[podRestarts].(string)}
			if got != tt.want {
				t.Errorf("READY, STATUS, RESTARTS = %q, %q, %q; want %q, %q, %q",
					got.ready, got.status, got.restarts, tt.want.ready, tt.want.status, tt.want.restarts)
			}
		})
	}
}

// TestPodCells checks whole rows, the -o wide cells included.
func TestPodCells(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want []any
	}{
		{
			name: "running on a node",
			pod: &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "web-7d9c", Namespace: "default", CreationTimestamp: ago(5 * time.Minute)},
				Spec:       corev1.PodSpec{NodeName: "node-1", Containers: containers("web")},
				Status: corev1.PodStatus{
					Phase:             corev1.PodRunning,
					PodIP:             "10.244.1.5",
					PodIPs:            []corev1.PodIP{{IP: "10.244.1.5"}, {IP: "fd00::5"}},
					Conditions:        []corev1.PodCondition{condition(corev1.PodReady, corev1.ConditionTrue)},
					ContainerStatuses: []corev1.ContainerStatus{runningStatus("web", true)},
				},
			},
			want: []any{"web-7d9c", "1/1", "Running", "0", "5m", "10.244.1.5", "node-1", "<none>", "<none>"},
		},
		{
			name: "waiting for preemption",
			pod: &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "default", CreationTimestamp: ago(90 * time.Second)},
				Spec:       corev1.PodSpec{Containers: containers("big")},
				Status:     corev1.PodStatus{Phase: corev1.PodPending, NominatedNodeName: "node-2"},
			},
			want: []any{"big", "0/1", "Pending", "0", "90s", "<none>", "<none>", "node-2", "<none>"},
		},
		{
			name: "only podIPs set",
			pod: &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "v6", CreationTimestamp: ago(3 * day)},
				Spec:       corev1.PodSpec{NodeName: "node-1", Containers: containers("app")},
				Status: corev1.PodStatus{
					Phase:             corev1.PodRunning,
					PodIPs:            []corev1.PodIP{{IP: "fd00::7"}},
					ContainerStatuses: []corev1.ContainerStatus{runningStatus("app", true)},
				},
			},
			want: []any{"v6", "1/1", "Running", "0", "3d", "fd00::7", "node-1", "<none>", "<none>"},
		},
		{
			name: "readiness gates, one passed, one not reported",
			pod: &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "gated", CreationTimestamp: ago(3*time.Minute + 20*time.Second)},
				Spec: corev1.PodSpec{
					NodeName:       "node-1",
					Containers:     containers("app"),
					ReadinessGates: []corev1.PodReadinessGate{{ConditionType: "example.com/lb-ready"}, {ConditionType: "example.com/dns-ready"}},
				},
				Status: corev1.PodStatus{
					Phase: corev1.PodRunning,
					PodIP: "10.244.1.9",
					Conditions: []corev1.PodCondition{
						condition("example.com/lb-ready", corev1.ConditionTrue),
						condition(corev1.PodReady, corev1.ConditionFalse),
					},
					ContainerStatuses: []corev1.ContainerStatus{runningStatus("app", true)},
				},
			},
			want: []any{"gated", "1/1", "Running", "0", "3m20s", "10.244.1.9", "node-1", "<none>", "1/2"},
		},
		{
			name: "no creation timestamp",
			pod: &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "new"},
				Spec:       corev1.PodSpec{Containers: containers("app")},
				Status:     corev1.PodStatus{Phase: corev1.PodPending},
			},
			want: []any{"new", "0/1", "Pending", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MustRow(t, tt.pod); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells = %q\nwant    %q", got, tt.want)
			}
		})
	}
}

// TestPodRowConditions checks that finished pods carry the Completed row
// condition kubectl uses to recognise them.
func TestPodRowConditions(t *testing.T) {
	tests := []struct {
		phase corev1.PodPhase
		want  []metav1.TableRowCondition
	}{
		{corev1.PodPending, nil},
		{corev1.PodRunning, nil},
		{corev1.PodSucceeded, []metav1.TableRowCondition{{
			Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: "Succeeded", Message: "The pod has completed successfully.",
		}}},
		{corev1.PodFailed, []metav1.TableRowCondition{{
			Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: "Failed", Message: "The pod failed.",
		}}},
	}
	for _, tt := range tests {
		t.Run(string(tt.phase), func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: tt.phase}}
			table := MustTable(t, pod, printers.Options{})
			if got := table.Rows[0].Conditions; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("row conditions = %+v, want %+v", got, tt.want)
			}
		})
	}
}
