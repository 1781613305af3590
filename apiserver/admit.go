package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/flow"
)

// newAdmissionChain builds the admission plugins in kube-apiserver's order.
func newAdmissionChain(namespaces admission.NamespaceLister) *admission.Chain {
	return &admission.Chain{
		Mutating: []admission.MutatingPlugin{
			admission.NewPriority(),
			admission.NewDefaultTolerationSeconds(),
		},
		Validating: []admission.ValidatingPlugin{
			admission.NewNamespaceLifecycle(namespaces),
			admission.NewNodeRestriction(),
		},
	}
}

// admissionAttributes describes a write for the admission plugins.
func (h *handlers) admissionAttributes(r *http.Request, op admission.Operation, subresource, namespace, name string, dryRun bool) *admission.Attributes {
	a, _ := requestAttributes(r.Context())
	var user admission.UserInfo
	if a.User != nil {
		user = admission.UserInfo{Name: a.User.Name, Groups: a.User.Groups}
	}
	gvk := h.e.gvk()
	if !h.e.res.Namespaced {
		namespace = ""
	}
	return &admission.Attributes{
		Operation:   op,
		Kind:        gvk,
		Resource:    gvk.GroupVersion().WithResource(h.e.res.Plural),
		Subresource: subresource,
		Namespace:   namespace,
		Name:        name,
		User:        user,
		DryRun:      dryRun,
	}
}

// admit runs the mutating plugins on attrs.Object and traces them.
func (s *Server) admit(ctx context.Context, attrs *admission.Attributes) error {
	outcomes, err := s.admission.Admit(ctx, attrs)
	traceOutcomes(ctx, outcomes)
	return err
}

// validator returns the validating admission to run just before storage
// (the registry calls it with the object about to be written).
func (s *Server) validator(attrs *admission.Attributes) registry.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		a := *attrs
		if a.Operation == admission.Delete {
			a.OldObject = obj
		} else {
			a.Object = obj
		}
		outcomes, err := s.admission.Validate(ctx, &a)
		traceOutcomes(ctx, outcomes)
		return err
	}
}

// updateValidator is validator for updates (object and stored object).
func (s *Server) updateValidator(attrs *admission.Attributes) registry.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		a := *attrs
		a.Object, a.OldObject = obj, old
		outcomes, err := s.admission.Validate(ctx, &a)
		traceOutcomes(ctx, outcomes)
		return err
	}
}

func traceOutcomes(ctx context.Context, outcomes []admission.Outcome) {
	t := traceFrom(ctx)
	for _, o := range outcomes {
		detail := fmt.Sprintf("%s admission plugin %s: %s", o.Phase, o.Plugin, o.Action)
		switch {
		case len(o.Fields) > 0:
			detail += " " + strings.Join(o.Fields, ", ")
		case o.Message != "":
			detail += ": " + o.Message
		}
		t.step("admission", o.Action, detail, "plugin", o.Plugin, "phase", o.Phase, "fields", strings.Join(o.Fields, ", "))
	}
}

// traceDecoded records the decoded request body and the fields that
// defaulting filled in.
func traceDecoded(ctx context.Context, contentType string, body []byte, before, after runtime.Object, warnings []string) {
	t := traceFrom(ctx)
	if t == nil {
		return
	}
	kind := after.GetObjectKind().GroupVersionKind()
	ct := parseMediaType(contentType)
	if ct == "" {
		ct = mediaJSON
	}
	t.step("decoded", "ok", fmt.Sprintf("%d bytes of %s decoded as %s", len(body), ct, kind.Kind),
		"contentType", ct, "kind", kind.String(), "bytes", fmt.Sprint(len(body)), "warnings", strings.Join(warnings, "; "))
	if before == nil {
		return
	}
	if fields := changedFields(before, after); len(fields) > 0 {
		t.step("defaulted", "defaulted", "defaults applied: "+strings.Join(fields, ", "), "fields", strings.Join(fields, ", "))
	}
}

// traceStored records where a write went in etcd.
func (h *handlers) traceStored(ctx context.Context, verb string, obj runtime.Object, stage flow.Stage) {
	t := traceFrom(ctx)
	m, err := meta.Accessor(obj)
	if t == nil || err != nil {
		return
	}
	key := h.e.store.Key(m.GetNamespace(), m.GetName())
	t.step("stored", "ok", fmt.Sprintf("etcd %s %s at revision %s", verb, key, m.GetResourceVersion()),
		"key", key, "revision", m.GetResourceVersion())
	gvk := h.e.gvk()
	t.setObject(flow.ObjectRef{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID()}, stage)
	if ac := auditFrom(ctx); ac != nil {
		ac.objectName = m.GetName()
	}
}

// changedFields lists the leaf fields of after that differ from before,
// as "path=value" in path order.
func changedFields(before, after runtime.Object) []string {
	var b, a any
	if !toGeneric(before, &b) || !toGeneric(after, &a) {
		return nil
	}
	var out []string
	diffLeaves("", b, a, &out)
	sort.Strings(out)
	return out
}

func toGeneric(obj runtime.Object, v *any) bool {
	data, err := json.Marshal(obj)
	return err == nil && json.Unmarshal(data, v) == nil
}

func diffLeaves(path string, before, after any, out *[]string) {
	switch a := after.(type) {
	case map[string]any:
		b, _ := before.(map[string]any)
		if len(a) == 0 && b == nil {
			*out = append(*out, path+"={}")
			return
		}
		for k, v := range a {
			p := k
			if path != "" {
				p = path + "." + k
			}
			diffLeaves(p, b[k], v, out)
		}
	case []any:
		b, _ := before.([]any)
		for i, v := range a {
			var bv any
			if i < len(b) {
				bv = b[i]
			}
			diffLeaves(fmt.Sprintf("%s[%d]", path, i), bv, v, out)
		}
	default:
		if before == nil || fmt.Sprint(before) != fmt.Sprint(after) {
			data, _ := json.Marshal(after)
			*out = append(*out, path+"="+string(data))
		}
	}
}
