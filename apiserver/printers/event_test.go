package printers_test

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEventCells checks `kubectl get events` rows (all ten cells: LAST SEEN
// TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME) for
// events written by the legacy recorder, by the events.k8s.io/v1 API, and as
// a series.
func TestEventCells(t *testing.T) {
	scheduled := corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-7d9c"}
	pulling := corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-7d9c", FieldPath: "spec.containers{web}"}

	tests := []struct {
		name  string
		event *corev1.Event
		want  []any
	}{
		{
			name: "legacy recorder, repeated",
			event: &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: "web-7d9c.17f0a1", Namespace: "default"},
				InvolvedObject: pulling,
				Reason:         "BackOff",
				Message:        "Back-off pulling image \"nginx:nope\"",
				Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
				FirstTimestamp: ago(3 * day),
				LastTimestamp:  ago(2 * day),
				Count:          6,
				Type:           corev1.EventTypeWarning,
			},
			want: []any{"2d", "Warning", "BackOff", "pod/web-7d9c", "spec.containers{web}", "kubelet, node-1",
				"Back-off pulling image \"nginx:nope\"", "3d", int64(6), "web-7d9c.17f0a1"},
		},
		{
			name: "events.k8s.io/v1 singleton: eventTime only, count 1",
			event: &corev1.Event{
				ObjectMeta:          metav1.ObjectMeta{Name: "web-7d9c.17f0a2", Namespace: "default"},
				InvolvedObject:      scheduled,
				Reason:              "Scheduled",
				Message:             "Successfully assigned default/web-7d9c to node-1",
				EventTime:           metav1.NewMicroTime(now.Add(-5 * time.Minute)),
				ReportingController: "default-scheduler",
				ReportingInstance:   "default-scheduler-control-plane",
				Action:              "Binding",
				Type:                corev1.EventTypeNormal,
			},
			want: []any{"5m", "Normal", "Scheduled", "pod/web-7d9c", "", "default-scheduler, default-scheduler-control-plane",
				"Successfully assigned default/web-7d9c to node-1", "5m", int64(1), "web-7d9c.17f0a2"},
		},
		{
			name: "series: last seen and count from the series",
			event: &corev1.Event{
				ObjectMeta:          metav1.ObjectMeta{Name: "web-7d9c.17f0a3", Namespace: "default"},
				InvolvedObject:      pulling,
				Reason:              "Unhealthy",
				Message:             "Readiness probe failed: connection refused",
				EventTime:           metav1.NewMicroTime(now.Add(-10 * time.Minute)),
				Series:              &corev1.EventSeries{Count: 4, LastObservedTime: metav1.NewMicroTime(now.Add(-30 * time.Second))},
				ReportingController: "kubelet",
				ReportingInstance:   "node-1",
				Type:                corev1.EventTypeWarning,
			},
			want: []any{"30s", "Warning", "Unhealthy", "pod/web-7d9c", "spec.containers{web}", "kubelet, node-1",
				"Readiness probe failed: connection refused", "10m", int64(4), "web-7d9c.17f0a3"},
		},
		{
			name: "first timestamp without last timestamp",
			event: &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: "node-1.1", Namespace: "default"},
				InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "node-1", UID: "node-1"},
				Reason:         "Starting",
				Message:        "Starting kubelet.",
				Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
				FirstTimestamp: ago(25 * time.Hour),
				Count:          1,
				Type:           corev1.EventTypeNormal,
			},
			want: []any{"25h", "Normal", "Starting", "node/node-1", "", "kubelet, node-1", "Starting kubelet.", "25h", int64(1), "node-1.1"},
		},
		{
			name: "object without a name, source without a host, message trimmed",
			event: &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: "x.1", Namespace: "kube-system"},
				InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet"},
				Reason:         "FailedCreate",
				Message:        "  quota exceeded\n",
				Source:         corev1.EventSource{Component: "replicaset-controller"},
				FirstTimestamp: ago(time.Minute),
				LastTimestamp:  ago(time.Minute),
				Count:          2,
				Type:           corev1.EventTypeWarning,
			},
			want: []any{"60s", "Warning", "FailedCreate", "replicaset", "", "replicaset-controller", "quota exceeded", "60s", int64(2), "x.1"},
		},
		{
			name: "no times at all",
			event: &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: "bare", Namespace: "default"},
				InvolvedObject: scheduled,
				Reason:         "Test",
			},
			want: []any{"<unknown>", "", "Test", "pod/web-7d9c", "", "", "", "<unknown>", int64(1), "bare"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MustRow(t, tt.event); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells = %#v\nwant    %#v", got, tt.want)
			}
		})
	}
}
