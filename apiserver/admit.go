package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/internal/flow"
)

// admissionPlugins are the admission plugins the server runs, in
// kube-apiserver's order (AllOrderedPlugins in its
// pkg/kubeapiserver/options/plugins.go: NamespaceLifecycle, LimitRanger,
// ServiceAccount, NodeRestriction, Priority, DefaultTolerationSeconds,
// DefaultStorageClass, StorageObjectInUseProtection, ..., ResourceQuota
// last), each in the phases upstream's plugin implements: Admit
// (mutating), Validate (validating) or both.
var admissionPlugins = []string{
	admission.NamespaceLifecycleName,
	admission.LimitRangerName,
	admission.ServiceAccountName,
	admission.NodeRestrictionName,
	admission.PriorityName,
	admission.DefaultTolerationSecondsName,
	admission.DefaultStorageClassName,
	admission.StorageObjectInUseProtectionName,
	admission.ResourceQuotaName,
}

// validateAdmissionPlugins checks that each name is an admission plugin,
// as kube-apiserver checks --disable-admission-plugins.
func validateAdmissionPlugins(names []string) error {
	for _, n := range names {
		if !slices.Contains(admissionPlugins, n) {
			return fmt.Errorf("apiserver: disable admission plugins: %q is not one of %s", n, strings.Join(admissionPlugins, ", "))
		}
	}
	return nil
}

// newAdmissionChain builds the admission plugins in kube-apiserver's
// order, leaving out the disabled ones. LimitRanger and ResourceQuota
// read through policy (without it, nil, they are left out).
func newAdmissionChain(namespaces admission.NamespaceLister, accounts admission.ServiceAccountGetter, classes admission.StorageClassLister, priorities admission.PriorityClassLister, policy *admissionInformers, disabled ...string) (*admission.Chain, error) {
	c := &admission.Chain{}
	for _, name := range admissionPlugins {
		if slices.Contains(disabled, name) {
			continue
		}
		switch name {
		case admission.NamespaceLifecycleName:
			c.Mutating = append(c.Mutating, admission.NewNamespaceLifecycle(namespaces))
		case admission.ServiceAccountName:
			p := admission.NewServiceAccount(accounts)
			c.Mutating, c.Validating = append(c.Mutating, p), append(c.Validating, p)
		case admission.NodeRestrictionName:
			c.Mutating = append(c.Mutating, admission.NewNodeRestriction())
		case admission.PriorityName:
			p := admission.NewPriority(priorities)
			c.Mutating, c.Validating = append(c.Mutating, p), append(c.Validating, p)
		case admission.DefaultTolerationSecondsName:
			c.Mutating = append(c.Mutating, admission.NewDefaultTolerationSeconds())
		case admission.DefaultStorageClassName:
			c.Mutating = append(c.Mutating, admission.NewDefaultStorageClass(classes))
		case admission.StorageObjectInUseProtectionName:
			c.Mutating = append(c.Mutating, admission.StorageObjectInUseProtection{})
		case admission.LimitRangerName, admission.ResourceQuotaName:
			if err := policy.add(c, name); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// admissionAttributes describes a write for the admission plugins.
func (h *handlers) admissionAttributes(r *http.Request, op admission.Operation, subresource, namespace, name string, dryRun bool) *admission.Attributes {
	a, _ := request.AttributesFrom(r.Context())
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
// (the registry calls it with the object about to be written). On a
// delete, which has no object before, it runs the mutating plugins first
// on the stored object, as upstream's AdmissionToValidateObjectDeleteFunc.
func (s *Server) validator(attrs *admission.Attributes) registry.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		a := *attrs
		if a.Operation == admission.Delete {
			a.OldObject = obj.DeepCopyObject()
			if err := s.admit(ctx, &a); err != nil {
				return err
			}
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

// updateValidator is the validating admission of an update (PUT or
// PATCH) of the endpoint or its subresource, wrapped, unless it is a dry
// run, in the subresource's admitUpdate hook if it has one.
func (h *handlers) updateValidator(attrs *admission.Attributes, dryRun bool) registry.ValidateObjectUpdateFunc {
	validate := h.s.updateValidator(attrs)
	if h.sub != nil && h.sub.admitUpdate != nil && !dryRun {
		validate = h.sub.admitUpdate(h.s, validate)
	}
	return validate
}

// traceOutcomes adds a step to the request's trace per admission plugin
// run, saying what it did.
func traceOutcomes(ctx context.Context, outcomes []admission.Outcome) {
	t := request.TraceFrom(ctx)
	if !t.Recording() {
		return
	}
	for _, o := range outcomes {
		detail := fmt.Sprintf("%s admission plugin %s: %s", o.Phase, o.Plugin, o.Action)
		switch {
		case len(o.Fields) > 0:
			detail += " " + strings.Join(o.Fields, ", ")
		case o.Message != "":
			detail += ": " + o.Message
		}
		kv := []string{"plugin", o.Plugin, "phase", o.Phase, "fields", strings.Join(o.Fields, ", ")}
		if o.Message != "" {
			kv = append(kv, "message", o.Message)
		}
		t.Step("admission", o.Action, detail, kv...)
	}
}

// traceDecoded records the decoded request body and the fields that
// defaulting filled in.
func traceDecoded(ctx context.Context, contentType string, body []byte, obj runtime.Object, warnings, defaulted []string) {
	t := request.TraceFrom(ctx)
	if !t.Recording() {
		return
	}
	kind := obj.GetObjectKind().GroupVersionKind()
	ct := ParseMediaType(contentType)
	if ct == "" {
		ct = mediaJSON
	}
	t.Step("decoded", "ok", fmt.Sprintf("%d bytes of %s decoded as %s", len(body), ct, kind.Kind),
		"contentType", ct, "kind", kind.String(), "bytes", fmt.Sprint(len(body)), "warnings", strings.Join(warnings, "; "))
	if len(defaulted) > 0 {
		t.Step("defaulted", "defaulted", "defaults applied: "+strings.Join(defaulted, ", "), "fields", strings.Join(defaulted, ", "))
	}
}

// traceStored records where a write went in etcd, and the object the
// request is about.
func (h *handlers) traceStored(ctx context.Context, verb string, obj runtime.Object) {
	t := request.TraceFrom(ctx)
	m, err := meta.Accessor(obj)
	if t == nil || err != nil {
		return
	}
	if t.Recording() {
		key := h.e.store.Key(m.GetNamespace(), m.GetName())
		t.Step("stored", "ok", fmt.Sprintf("etcd %s %s at revision %s", verb, key, m.GetResourceVersion()),
			"verb", verb, "key", key, "revision", m.GetResourceVersion())
	}
	gvk := h.e.gvk()
	t.SetObject(flow.ObjectRef{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID()})
	if ac := request.AuditFrom(ctx); ac != nil {
		ac.ObjectName = m.GetName()
	}
}
