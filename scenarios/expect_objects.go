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

// objectsKeys are the fields of objects.
var objectsKeys = []string{"kind", "namespace", "name", "selector", "count", "terminating", "finalizer", "owner", "blockOwnerDeletion"}

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
func parseObjects(l *loader, key string, n *yaml.Node) (Expectation, error) {
	f, _, err := l.fields(n, key, objectsKeys)
	if err != nil {
		return nil, err
	}
	e := &ObjectsExpectation{}
	if err := l.objectsTarget(n, f, key, e); err != nil {
		return nil, err
	}
	if cf, ok := f["count"]; ok {
		c, err := l.integer(cf.val, key+".count")
		if err != nil {
			return nil, err
		}
		if c < 0 {
			return nil, l.errAt(cf.val, "%s.count: %d is negative", key, c)
		}
		e.Count = &c
	}
	if e.Terminating, err = l.optionalBool(f, key, "terminating"); err != nil {
		return nil, err
	}
	if e.BlockOwnerDeletion, err = l.optionalBool(f, key, "blockOwnerDeletion"); err != nil {
		return nil, err
	}
	if err := l.optionalStr(f, key, "finalizer", &e.Finalizer); err != nil {
		return nil, err
	}
	if err := l.optionalStr(f, key, "owner", &e.Owner); err != nil {
		return nil, err
	}
	if e.Owner != "" && e.Owner != ownerNone {
		if _, ok := l.kindOf(e.Owner); !ok {
			return nil, l.errAt(f["owner"].val, "%s.owner: unknown kind %q (a kind, or none)", key, e.Owner)
		}
	}
	if e.BlockOwnerDeletion != nil && (e.Owner == "" || e.Owner == ownerNone) {
		return nil, l.errAt(f["blockOwnerDeletion"].key, "%s.blockOwnerDeletion: needs an owner kind", key)
	}
	return e, nil
}

// objectsTarget reads kind, namespace, name and selector.
func (l *loader) objectsTarget(n *yaml.Node, f map[string]field, key string, e *ObjectsExpectation) error {
	kf, ok := f["kind"]
	if !ok {
		return l.errAt(n, "%s: missing field \"kind\"", key)
	}
	var err error
	if e.ObjectKind, err = l.str(kf.val, key+".kind"); err != nil {
		return err
	}
	info, ok := l.kindOf(e.ObjectKind)
	if !ok {
		return l.errAt(kf.val, "%s.kind: unknown kind %q (known: %s)", key, e.ObjectKind, strings.Join(kindNames, ", "))
	}
	if nf, ok := f["namespace"]; ok {
		if !info.namespaced {
			return l.errAt(nf.key, "%s.namespace: %s is not namespaced", key, e.ObjectKind)
		}
		if e.Namespace, err = l.objectName(nf.val, key+".namespace"); err != nil {
			return err
		}
	} else if info.namespaced {
		e.Namespace = DefaultNamespace
	}
	if nf, ok := f["name"]; ok {
		if e.Name, err = l.objectName(nf.val, key+".name"); err != nil {
			return err
		}
	}
	if sf, ok := f["selector"]; ok {
		if e.Selector, err = l.str(sf.val, key+".selector"); err != nil {
			return err
		}
		if _, err := labels.Parse(e.Selector); err != nil {
			return l.errAt(sf.val, "%s.selector: %v", key, err)
		}
	}
	return nil
}

// optionalBool reads the boolean field name of fields, if present.
func (l *loader) optionalBool(fields map[string]field, what, name string) (*bool, error) {
	f, ok := fields[name]
	if !ok {
		return nil, nil
	}
	b, err := l.boolean(f.val, what+"."+name)
	if err != nil {
		return nil, err
	}
	return &b, nil
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
