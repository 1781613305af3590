package admission

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upstream "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
)

// Some plugins are kube-apiserver's own (LimitRanger, ResourceQuota),
// run through an adapter: the request's Attributes become upstream's
// admission.Attributes (upstreamAttributes), with the objects converted
// to the internal types where the plugin reads those.

// upstreamAttributes are a's attributes as upstream's admission plugins
// read them, with obj and old as the objects (nil: none).
func upstreamAttributes(a *Attributes, obj, old runtime.Object) upstream.Attributes {
	u := &user.DefaultInfo{Name: a.User.Name, Groups: a.User.Groups}
	return upstream.NewAttributesRecord(obj, old, a.Kind, a.Namespace, a.Name, a.Resource, a.Subresource,
		upstream.Operation(a.Operation), nil, a.DryRun, u)
}

// internalObject converts a copy of a pod or a claim to its internal
// type, the objects upstream's LimitRanger reads; any other object (or
// nil) is returned as it is. The generated conversions share the maps
// and slices of their input (the types have the same memory layout), so
// the copy keeps a plugin's changes off obj.
func internalObject(obj runtime.Object) (runtime.Object, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		out := &core.Pod{}
		o = o.DeepCopy()
		return out, upcorev1.Convert_v1_Pod_To_core_Pod(o, out, nil)
	case *corev1.PersistentVolumeClaim:
		out := &core.PersistentVolumeClaim{}
		o = o.DeepCopy()
		return out, upcorev1.Convert_v1_PersistentVolumeClaim_To_core_PersistentVolumeClaim(o, out, nil)
	}
	return obj, nil
}
