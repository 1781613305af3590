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

// replicaSetsDoc is replicaSets as written, replicaSetDoc one of its
// sets.
type (
	replicaSetsDoc struct {
		deploymentDoc `yaml:",inline"`
		Sets          []replicaSetDoc `yaml:"sets" load:"required" expected:"a list of at least one ReplicaSet"`
	}
	replicaSetDoc struct {
		Revision        positive    `yaml:"revision" load:"required"`
		Desired         *count      `yaml:"desired"`
		Current         *count      `yaml:"current"`
		Ready           *count      `yaml:"ready"`
		Available       *count      `yaml:"available"`
		Image           *str        `yaml:"image"`
		RevisionHistory *[]positive `yaml:"revisionHistory" expected:"a list of revisions"`
	}
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
	parts := wantedFigures(w.figures())
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

func (w *ReplicaSetWant) figures() []figure {
	return []figure{{"desired", w.Desired}, {"current", w.Current}, {"ready", w.Ready}, {"available", w.Available}}
}

// parseReplicaSets reads {deployment, namespace, sets}: sets is a list
// of at least one {revision, desired, current, ready, available, image,
// revisionHistory}, revisions distinct.
func parseReplicaSets(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[replicaSetsDoc](n)
	if err != nil {
		return nil, err
	}
	sets := valueOf(n, "sets")
	if len(d.Sets) == 0 {
		return nil, errAt(sets, "expected a list of at least one ReplicaSet, got %s", describe(sets))
	}
	e := &ReplicaSetsExpectation{Deployment: d.ref()}
	for i, s := range d.Sets {
		w := s.want()
		for _, o := range e.Sets {
			if o.Revision == w.Revision {
				return nil, errAt(sets.Content[i], "revision %d given twice", w.Revision)
			}
		}
		e.Sets = append(e.Sets, w)
	}
	return e, nil
}

// want returns the ReplicaSet d describes.
func (d replicaSetDoc) want() ReplicaSetWant {
	w := ReplicaSetWant{Revision: int64(d.Revision), Desired: int64Of(d.Desired), Current: int64Of(d.Current), Ready: int64Of(d.Ready),
		Available: int64Of(d.Available), Image: d.Image.or(""), historyGiven: d.RevisionHistory != nil}
	if d.RevisionHistory != nil {
		w.RevisionHistory = []int64{}
		for _, r := range *d.RevisionHistory {
			w.RevisionHistory = append(w.RevisionHistory, int64(r))
		}
	}
	return w
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
	if !figuresHold(w.figures(), replicaSetFigures(rs)) {
		return false
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
