package scenarios

import (
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubesim/kubesim/internal/flow"
)

// A pod's moments, as this run's evidence shows them: the API server
// records every write of a pod to etcd as a flow event with its revision,
// the user whose request made it and the value written (see
// apiserver/flowevidence.go). podOrder, podTimeline and the firstPod and
// momentBy facts read them.

// The moments of a pod, in the order they come to one pod.
const (
	momentCreated     = "created"     // its create
	momentBound       = "bound"       // the first write with spec.nodeName set
	momentReady       = "ready"       // the first write with phase Running and Ready True
	momentTerminating = "terminating" // the first write with a deletionTimestamp
	momentDeleted     = "deleted"     // its delete from etcd
)

// momentNames are the moments, in that order.
var momentNames = []string{momentCreated, momentBound, momentReady, momentTerminating, momentDeleted}

// podMoment is one moment of one pod: the etcd write that made it.
type podMoment struct {
	Pod       string // the pod's name
	Namespace string
	Moment    string // one of momentNames
	Revision  int64  // the write's etcd revision
	User      string // who sent the request that wrote it ("" for the API server's own writes)
	Node      string // the pod's spec.nodeName as written
	Labels    labels.Set
}

// podWrite is the part of a pod's written value the moments need.
type podWrite struct {
	Metadata struct {
		Labels            map[string]string `json:"labels"`
		DeletionTimestamp *string           `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase      corev1.PodPhase       `json:"phase"`
		Conditions []corev1.PodCondition `json:"conditions"`
	} `json:"status"`
}

// podMoments returns the moments of the pods in namespace that events
// (a run's flow events, in recording order) show, each pod's moment at
// most once (its first, by revision; a pod is told by its UID, so a pod
// made again under the same name has moments of its own), sorted by
// revision. A pod's labels are those of its last write with a value.
func podMoments(events []flow.Event, namespace string) []podMoment {
	type state struct {
		seen   map[string]bool
		labels labels.Set
	}
	pods := map[string]*state{}
	var out []podMoment
	for i := range events {
		ev := &events[i]
		if ev.Etcd == nil || ev.Object.Kind != "Pod" || ev.Object.Namespace != namespace {
			continue
		}
		st := pods[string(ev.Object.UID)]
		if st == nil {
			st = &state{seen: map[string]bool{}}
			pods[string(ev.Object.UID)] = st
		}
		var w podWrite
		if ev.Etcd.Value != "" && json.Unmarshal([]byte(ev.Etcd.Value), &w) == nil {
			st.labels = w.Metadata.Labels
		}
		for _, m := range momentsOfWrite(ev.Etcd.Op, &w) {
			if st.seen[m] {
				continue
			}
			st.seen[m] = true
			pm := podMoment{Pod: ev.Object.Name, Namespace: namespace, Moment: m, Revision: ev.Etcd.Revision, Node: w.Spec.NodeName, Labels: st.labels}
			if ev.Etcd.By != nil {
				pm.User = ev.Etcd.By.User
			}
			out = append(out, pm)
		}
	}
	slices.SortStableFunc(out, func(a, b podMoment) int { return int(a.Revision - b.Revision) })
	return out
}

// momentsOfWrite lists the moments a write (op create, update or delete)
// of value w may stand for; podMoments keeps each pod's first.
func momentsOfWrite(op string, w *podWrite) []string {
	if op == "delete" {
		return []string{momentDeleted}
	}
	var ms []string
	if op == "create" {
		ms = append(ms, momentCreated)
	}
	if w.Spec.NodeName != "" {
		ms = append(ms, momentBound)
	}
	if w.Status.Phase == corev1.PodRunning && writtenReady(w) {
		ms = append(ms, momentReady)
	}
	if w.Metadata.DeletionTimestamp != nil {
		ms = append(ms, momentTerminating)
	}
	return ms
}

// writtenReady reports whether the written pod's Ready condition is True.
func writtenReady(w *podWrite) bool {
	for _, c := range w.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// momentOf returns the first moment m of the pod named pod among ms.
func momentOf(ms []podMoment, pod, m string) (podMoment, bool) {
	for _, x := range ms {
		if x.Pod == pod && x.Moment == m {
			return x, true
		}
	}
	return podMoment{}, false
}

// selectMoments returns the moments of ms whose pod's labels match sel
// (nil: all).
func selectMoments(ms []podMoment, sel labels.Selector) []podMoment {
	var out []podMoment
	for _, m := range ms {
		if sel == nil || sel.Matches(m.Labels) {
			out = append(out, m)
		}
	}
	return out
}
