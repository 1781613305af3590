package printers_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// now is the clock of every test; ages are measured back from it.
var now = time.Date(2025, time.June, 1, 12, 0, 0, 0, time.UTC)

// ago returns the time d before now.
func ago(d time.Duration) metav1.Time {
	return metav1.NewTime(now.Add(-d))
}

// agoPtr is ago for fields that take a pointer, such as deletionTimestamp.
func agoPtr(d time.Duration) *metav1.Time {
	t := ago(d)
	return &t
}

const day = 24 * time.Hour

// MustTable converts obj with the test clock and fails the test on error.
func MustTable(tb testing.TB, obj runtime.Object, opts printers.Options) *metav1.Table {
	tb.Helper()
	if opts.Now.IsZero() {
		opts.Now = now
	}
	table, err := toTable(obj, opts)
	if err != nil {
		tb.Fatalf("toTable(%T): %v", obj, err)
	}
	return table
}

// MustRow converts a single object and returns the cells of its only row.
func MustRow(tb testing.TB, obj runtime.Object) []any {
	tb.Helper()
	table := MustTable(tb, obj, printers.Options{})
	if len(table.Rows) != 1 {
		tb.Fatalf("toTable(%T) has %d rows, want 1", obj, len(table.Rows))
	}
	if got, want := len(table.Rows[0].Cells), len(table.ColumnDefinitions); got != want {
		tb.Fatalf("toTable(%T) row has %d cells for %d columns", obj, got, want)
	}
	return table.Rows[0].Cells
}

// Container states as the kubelet reports them.

func runningStatus(name string, ready bool) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:    name,
		Ready:   ready,
		Started: ptr(true),
		State:   corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ago(time.Minute)}},
	}
}

func waitingStatus(name, reason string) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:    name,
		Started: ptr(false),
		State:   corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}},
	}
}

func terminatedStatus(name, reason string, exitCode int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:    name,
		Started: ptr(false),
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Reason: reason, ExitCode: exitCode, FinishedAt: ago(time.Minute),
		}},
	}
}

// restarted records that the container restarted n times, the last run
// having ended d ago.
func restarted(cs corev1.ContainerStatus, n int32, d time.Duration) corev1.ContainerStatus {
	cs.RestartCount = n
	cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 1, Reason: "Error", FinishedAt: ago(d),
	}}
	return cs
}

func containers(names ...string) []corev1.Container {
	var cs []corev1.Container
	for _, n := range names {
		cs = append(cs, corev1.Container{Name: n, Image: "busybox"})
	}
	return cs
}

func sidecar(name string) corev1.Container {
	return corev1.Container{Name: name, Image: "envoy", RestartPolicy: ptr(corev1.ContainerRestartPolicyAlways)}
}

func condition(t corev1.PodConditionType, s corev1.ConditionStatus) corev1.PodCondition {
	return corev1.PodCondition{Type: t, Status: s}
}

func ptr[T any](v T) *T { return &v }

// handlers are the tables of every built-in kind with columns of its own.
var handlers = []*printers.Handler{
	printers.Pods, printers.Nodes, printers.Namespaces, printers.Events, printers.Leases,
	printers.RoleBindings, printers.ClusterRoleBindings, printers.APIServices,
	printers.ConfigMaps, printers.Secrets, printers.ServiceAccounts,
	printers.Services, printers.Endpoints, printers.EndpointSlices,
	printers.Deployments, printers.ReplicaSets, printers.ControllerRevisions,
	printers.Jobs, printers.CronJobs, printers.PodDisruptionBudgets, printers.HorizontalPodAutoscalers,
	printers.PriorityClasses,
}

// toTable converts obj with the handler of its kind, or with
// printers.Default when no handler converts it (Role, ClusterRole), as
// the server does for the resource obj belongs to.
func toTable(obj runtime.Object, opts printers.Options) (*metav1.Table, error) {
	for _, h := range handlers {
		if h.Converts(obj) {
			return h.ConvertToTable(obj, opts)
		}
	}
	return printers.Default.ConvertToTable(obj, opts)
}
