package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// ObjectsExpectation: the objects of ObjectKind in Namespace that match
// Selector (and Name, if given) are Count many (without Count: at least
// one), and each of them is as asked: being deleted or not
// (Terminating), listing Finalizer, owned by an object of Owner's kind
// (or by none: "none"), that ownerReference blocking its owner's
// deletion or not (BlockOwnerDeletion). What kubectl get -l SELECTOR -o
// yaml would show of their metadata; a nil field is not checked.
type ObjectsExpectation struct {
	ObjectKind, Namespace, Name, Selector string
	Count                                 *int64
	Terminating                           *bool
	Finalizer, Owner                      string
	BlockOwnerDeletion                    *bool
}

var _ prober = (*ObjectsExpectation)(nil)

// objectsDoc is objects as written.
type objectsDoc struct {
	Kind               str         `yaml:"kind" load:"required"`
	Namespace          *objectName `yaml:"namespace"`
	Name               *objectName `yaml:"name"`
	Selector           *str        `yaml:"selector"`
	Count              *integer    `yaml:"count"`
	Terminating        *boolean    `yaml:"terminating"`
	Finalizer          *str        `yaml:"finalizer"`
	Owner              *str        `yaml:"owner"`
	BlockOwnerDeletion *boolean    `yaml:"blockOwnerDeletion"`
}

// ownerNone is the owner value of objects with no ownerReferences.
const ownerNone = "none"

// Kind returns "objects".
func (e *ObjectsExpectation) Kind() string { return "objects" }

// String says which objects and what of them.
func (e *ObjectsExpectation) String() string {
	var want []string
	if e.Count != nil {
		want = append(want, fmt.Sprintf("%d of them", *e.Count))
	}
	if e.Terminating != nil {
		want = append(want, map[bool]string{true: "terminating", false: "not terminating"}[*e.Terminating])
	}
	if e.Finalizer != "" {
		want = append(want, "finalizer "+e.Finalizer)
	}
	if e.Owner != "" {
		want = append(want, "owner "+e.Owner)
	}
	if e.BlockOwnerDeletion != nil {
		want = append(want, fmt.Sprintf("blockOwnerDeletion %v", *e.BlockOwnerDeletion))
	}
	return fmt.Sprintf("%s: %s", e.which(), strings.Join(want, ", "))
}

// which names the objects looked at: "Pod team/* app=web".
func (e *ObjectsExpectation) which() string {
	name := e.Name
	if name == "" {
		name = "*"
	}
	s := e.ObjectKind + " " + nsName(e.Namespace, name)
	if e.Selector != "" {
		s += " " + e.Selector
	}
	return s
}

// parseObjects reads {kind, namespace, name, selector, count,
// terminating, finalizer, owner, blockOwnerDeletion}.
func parseObjects(l *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[objectsDoc](n)
	if err != nil {
		return nil, err
	}
	e := &ObjectsExpectation{Terminating: boolOf(d.Terminating), BlockOwnerDeletion: boolOf(d.BlockOwnerDeletion), Finalizer: d.Finalizer.or(""), Owner: d.Owner.or("")}
	if err := l.objectsTarget(n, d, e); err != nil {
		return nil, err
	}
	if d.Count != nil {
		if e.Count = int64Of(d.Count); *e.Count < 0 {
			return nil, errAt(valueOf(n, "count"), "%d is negative", *e.Count)
		}
	}
	if e.Owner != "" && e.Owner != ownerNone {
		if _, ok := l.kindOf(e.Owner); !ok {
			return nil, errAt(valueOf(n, "owner"), "unknown kind %q (a kind, or none)", e.Owner)
		}
	}
	if e.BlockOwnerDeletion != nil && (e.Owner == "" || e.Owner == ownerNone) {
		return nil, errAbout(valueOf(n, "blockOwnerDeletion"), keyOf(n, "blockOwnerDeletion"), "needs an owner kind")
	}
	return e, nil
}

// objectsTarget sets in e the kind, namespace, name and selector d, read
// from n, gives.
func (l *loader) objectsTarget(n *yaml.Node, d objectsDoc, e *ObjectsExpectation) error {
	e.ObjectKind = string(d.Kind)
	var err error
	if e.Namespace, err = l.namespaceOf(n, e.ObjectKind, d.Namespace); err != nil {
		return err
	}
	if d.Name != nil {
		e.Name = string(*d.Name)
	}
	if e.Selector = d.Selector.or(""); d.Selector != nil {
		if _, err := labels.Parse(e.Selector); err != nil {
			return errAt(valueOf(n, "selector"), "%v", err)
		}
	}
	return nil
}

// boolOf returns the boolean b points to as a *bool, nil if b is nil (a
// field not given).
func boolOf(b *boolean) *bool {
	if b == nil {
		return nil
	}
	v := bool(*b)
	return &v
}

// probe lists the objects and checks each.
func (e *ObjectsExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	ri, err := p.resource(ObjectSpec{Kind: e.ObjectKind, Namespace: e.Namespace}, expectUser)
	if err != nil {
		return err.Error(), false, nil
	}
	opts := metav1.ListOptions{LabelSelector: e.Selector}
	if e.Name != "" {
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", e.Name).String()
	}
	list, err := ri.List(ctx, opts)
	if err != nil {
		return errString(err), false, nil
	}
	items := list.Items
	if e.Name != "" { // as the field selector asked, should a server not filter
		items = slices.DeleteFunc(items, func(u unstructured.Unstructured) bool { return u.GetName() != e.Name })
	}
	got := describeObjects(items)
	if e.Count != nil && int64(len(items)) != *e.Count || e.Count == nil && len(items) == 0 {
		return got, false, nil
	}
	for i := range items {
		if !e.matches(&items[i]) {
			return got, false, nil
		}
	}
	return "", true, nil
}

// matches checks one object against every field given.
func (e *ObjectsExpectation) matches(u *unstructured.Unstructured) bool {
	if e.Terminating != nil && (u.GetDeletionTimestamp() != nil) != *e.Terminating {
		return false
	}
	if e.Finalizer != "" && !slices.Contains(u.GetFinalizers(), e.Finalizer) {
		return false
	}
	refs := u.GetOwnerReferences()
	switch e.Owner {
	case "":
		return true
	case ownerNone:
		return len(refs) == 0
	}
	i := slices.IndexFunc(refs, func(r metav1.OwnerReference) bool { return r.Kind == e.Owner })
	if i < 0 {
		return false
	}
	blocking := refs[i].BlockOwnerDeletion != nil && *refs[i].BlockOwnerDeletion
	return e.BlockOwnerDeletion == nil || blocking == *e.BlockOwnerDeletion
}

// describeObjects says what was seen: "2: web-x (terminating, finalizers
// [a], owner ReplicaSet/web-1 blocking), web-y (no owner)".
func describeObjects(items []unstructured.Unstructured) string {
	if len(items) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(items))
	for _, u := range items {
		var facts []string
		if u.GetDeletionTimestamp() != nil {
			facts = append(facts, "terminating")
		}
		if f := u.GetFinalizers(); len(f) > 0 {
			facts = append(facts, "finalizers ["+strings.Join(f, " ")+"]")
		}
		for _, r := range u.GetOwnerReferences() {
			owner := "owner " + r.Kind + "/" + r.Name
			if r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
				owner += " blocking"
			}
			facts = append(facts, owner)
		}
		if len(u.GetOwnerReferences()) == 0 {
			facts = append(facts, "no owner")
		}
		parts = append(parts, u.GetName()+" ("+strings.Join(facts, ", ")+")")
	}
	return fmt.Sprintf("%d: %s", len(items), strings.Join(parts, ", "))
}
