package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
)

// ReplicaSetsExpectation: the Deployment's ReplicaSets (those it
// controls, as kubectl rollout finds them) are exactly Sets, one each,
// told apart by revision, each with its status of its current generation
// and every figure given: what kubectl get replicasets prints (DESIRED
// spec.replicas, CURRENT status.replicas, READY status.readyReplicas)
// and status.availableReplicas, the pod template's image, and the
// revisions it had before (revision-history: a rollback makes an old
// ReplicaSet the newest revision).
type ReplicaSetsExpectation struct {
	Deployment ObjectSpec
	Sets       []ReplicaSetWant
}

// ReplicaSetWant is one ReplicaSet of a ReplicaSetsExpectation; nil and
// empty fields are not checked.
type ReplicaSetWant struct {
	Revision                           int64
	Desired, Current, Ready, Available *int64
	Image                              string
	RevisionHistory                    []int64
	historyGiven                       bool
}

var _ prober = (*ReplicaSetsExpectation)(nil)

// replicaSetsKeys are the fields of replicaSets, replicaSetKeys those of
// one of its sets.
var (
	replicaSetsKeys = []string{"deployment", "namespace", "sets"}
	replicaSetKeys  = []string{"revision", "desired", "current", "ready", "available", "image", "revisionHistory"}
)

// Kind returns "replicaSets".
func (e *ReplicaSetsExpectation) Kind() string { return "replicaSets" }

// String lists the sets it expects.
func (e *ReplicaSetsExpectation) String() string {
	parts := make([]string, len(e.Sets))
	for i, w := range e.Sets {
		parts[i] = w.String()
	}
	return fmt.Sprintf("replicaSets of %s: %s", deploymentName(e.Deployment), strings.Join(parts, "; "))
}

// String is "revision 2: desired 3, ready 0, image nginx:1.27".
func (w ReplicaSetWant) String() string {
	var parts []string
	for _, f := range w.figures() {
		if *f.want != nil {
			parts = append(parts, fmt.Sprintf("%s %d", f.name, **f.want))
		}
	}
	if w.Image != "" {
		parts = append(parts, "image "+w.Image)
	}
	if w.historyGiven {
		parts = append(parts, "revisionHistory ["+joinInts(w.RevisionHistory)+"]")
	}
	s := fmt.Sprintf("revision %d", w.Revision)
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

func (w *ReplicaSetWant) figures() []struct {
	name string
	want **int64
} {
	return []struct {
		name string
		want **int64
	}{{"desired", &w.Desired}, {"current", &w.Current}, {"ready", &w.Ready}, {"available", &w.Available}}
}

// parseReplicaSets reads {deployment, namespace, sets}: sets is a list
// of at least one {revision, desired, current, ready, available, image,
// revisionHistory}, revisions distinct.
func parseReplicaSets(l *loader, key string, n *yaml.Node) (Expectation, error) {
	fields, _, err := l.fields(n, key, replicaSetsKeys)
	if err != nil {
		return nil, err
	}
	e := &ReplicaSetsExpectation{}
	if e.Deployment, err = l.deploymentRef(n, fields, key); err != nil {
		return nil, err
	}
	f, ok := fields["sets"]
	if !ok {
		return nil, l.errAt(n, "%s: missing field \"sets\"", key)
	}
	if f.val.Kind != yaml.SequenceNode || len(f.val.Content) == 0 {
		return nil, l.errAt(f.val, "%s.sets: expected a list of at least one ReplicaSet, got %s", key, describe(f.val))
	}
	for i, item := range f.val.Content {
		w, err := l.replicaSetWant(item, fmt.Sprintf("%s.sets[%d]", key, i))
		if err != nil {
			return nil, err
		}
		for _, o := range e.Sets {
			if o.Revision == w.Revision {
				return nil, l.errAt(item, "%s.sets[%d]: revision %d given twice", key, i, w.Revision)
			}
		}
		e.Sets = append(e.Sets, w)
	}
	return e, nil
}

// replicaSetWant reads one item of sets.
func (l *loader) replicaSetWant(n *yaml.Node, what string) (ReplicaSetWant, error) {
	var w ReplicaSetWant
	fields, _, err := l.fields(n, what, replicaSetKeys)
	if err != nil {
		return w, err
	}
	f, ok := fields["revision"]
	if !ok {
		return w, l.errAt(n, "%s: missing field \"revision\"", what)
	}
	if w.Revision, err = l.atLeast(f.val, what+".revision", 1); err != nil {
		return w, err
	}
	for _, fig := range w.figures() {
		if *fig.want, err = l.optionalCount(fields, what, fig.name, false); err != nil {
			return w, err
		}
	}
	if err := l.optionalStr(fields, what, "image", &w.Image); err != nil {
		return w, err
	}
	if f, ok := fields["revisionHistory"]; ok {
		w.historyGiven = true
		if w.RevisionHistory, err = l.revisionList(f.val, what+".revisionHistory"); err != nil {
			return w, err
		}
	}
	return w, nil
}

// revisionList reads a list of revisions ([] for none).
func (l *loader) revisionList(n *yaml.Node, what string) ([]int64, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, l.errAt(n, "%s: expected a list of revisions, got %s", what, describe(n))
	}
	out := []int64{}
	for i, item := range n.Content {
		v, err := l.atLeast(item, fmt.Sprintf("%s[%d]", what, i), 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// probe lists the Deployment's ReplicaSets and compares them with Sets.
func (e *ReplicaSetsExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	d, err := p.getDeployment(ctx, e.Deployment, expectUser)
	if err != nil {
		return errString(err), false, nil
	}
	rss, err := p.replicaSetsOf(ctx, d, expectUser)
	if err != nil {
		return errString(err), false, nil
	}
	seen := make([]string, len(rss))
	for i, rs := range rss {
		seen[i] = replicaSetSeen(rs)
	}
	got := "ReplicaSets " + strings.Join(seen, "; ")
	if len(rss) == 0 {
		got = "no ReplicaSets"
	}
	if len(rss) != len(e.Sets) {
		return got, false, nil
	}
	for _, w := range e.Sets {
		i := slices.IndexFunc(rss, func(rs *appsv1.ReplicaSet) bool { return rsRevision(rs) == w.Revision })
		if i < 0 || !w.matches(rss[i]) {
			return got, false, nil
		}
	}
	return "", true, nil
}

// matches reports whether rs's status is current and has w's figures.
func (w ReplicaSetWant) matches(rs *appsv1.ReplicaSet) bool {
	if rs.Status.ObservedGeneration < rs.Generation {
		return false
	}
	got := replicaSetFigures(rs)
	for _, f := range w.figures() {
		if *f.want != nil && got[f.name] != **f.want {
			return false
		}
	}
	if w.Image != "" && templateImages(&rs.Spec.Template) != w.Image {
		return false
	}
	return !w.historyGiven || slices.Equal(revisionHistory(rs), w.RevisionHistory)
}

// replicaSetFigures are rs's figures by field name.
func replicaSetFigures(rs *appsv1.ReplicaSet) map[string]int64 {
	desired := int64(1)
	if rs.Spec.Replicas != nil {
		desired = int64(*rs.Spec.Replicas)
	}
	return map[string]int64{"desired": desired, "current": int64(rs.Status.Replicas), "ready": int64(rs.Status.ReadyReplicas),
		"available": int64(rs.Status.AvailableReplicas)}
}

// replicaSetSeen describes rs for a failure message.
func replicaSetSeen(rs *appsv1.ReplicaSet) string {
	f := replicaSetFigures(rs)
	s := fmt.Sprintf("%s revision %s: desired %d, current %d, ready %d, available %d, image %s",
		rs.Name, rs.Annotations[revisionAnnotation], f["desired"], f["current"], f["ready"], f["available"], templateImages(&rs.Spec.Template))
	if h := revisionHistory(rs); len(h) > 0 {
		s += ", revisionHistory [" + joinInts(h) + "]"
	}
	if rs.Status.ObservedGeneration < rs.Generation {
		s += fmt.Sprintf(" (status of generation %d, not %d yet)", rs.Status.ObservedGeneration, rs.Generation)
	}
	return s
}

// revisionHistory reads rs's revision-history annotation ([] for none;
// entries that are not numbers are left out).
func revisionHistory(rs *appsv1.ReplicaSet) []int64 {
	out := []int64{}
	for _, s := range strings.Split(rs.Annotations[revisionHistoryAnnotation], ",") {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// joinInts is "1, 2".
func joinInts(vs []int64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ", ")
}
