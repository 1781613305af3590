package registry_test

import (
	"reflect"
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
	r := newRegistry(t)
	v := reflect.ValueOf(r).Elem()
	for i := range v.NumField() {
		st, ok := v.Field(i).Interface().(*registry.Store)
		if !ok || st == nil {
			continue
		}
		res := st.Resource
		t.Run(v.Type().Field(i).Name, func(t *testing.T) {
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
