package registry_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestEveryResourceConvertsItsOwnKind checks every store's registration:
// a resource whose Table is a printers Handler names the Handler of its
// own kind (a wrong one would print the generic table, silently), and
// every resource's Table turns one empty object and an empty list into a
// Table.
func TestEveryResourceConvertsItsOwnKind(t *testing.T) {
	for _, g := range registry.Groups {
		for _, res := range g.Resources {
			t.Run(res.Plural, func(t *testing.T) {
				for _, obj := range []runtime.Object{res.NewFunc(), res.NewListFunc()} {
					if h, ok := res.Table.(*printers.Handler); ok && !h.Converts(obj) {
						t.Errorf("the Table of %s does not convert a %T", res.Plural, obj)
					}
					if _, err := res.TableConvertor().ConvertToTable(obj, printers.Options{}); err != nil {
						t.Errorf("%s: converting a %T: %v", res.Plural, obj, err)
					}
				}
			})
		}
	}
}

// TestEveryResourceHasItsStores: the registry keeps a store for every
// registered resource, and one for its status subresource when its
// registration declares one, on the resource's own kind.
func TestEveryResourceHasItsStores(t *testing.T) {
	r := newRegistry(t)
	for _, g := range registry.Groups {
		for _, res := range g.Resources {
			st := r.Store(res)
			if st == nil || st.Resource != res {
				t.Errorf("%s: store %v, want one for the resource", res.Plural, st)
				continue
			}
			if got := r.StatusStore(res) != nil; got != (res.Status != nil) {
				t.Errorf("%s: status store present %v, want %v", res.Plural, got, res.Status != nil)
			}
			if res.Kind.GroupVersion() != g.GroupVersion {
				t.Errorf("%s: kind %s in group %s", res.Plural, res.Kind, g.GroupVersion)
			}
		}
	}
}
