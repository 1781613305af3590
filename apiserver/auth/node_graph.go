package auth

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
)

// PodsOnNode lists the pods of namespace bound to node (spec.nodeName),
// for the Node authorizer's graph.
type PodsOnNode func(ctx context.Context, namespace, node string) ([]corev1.Pod, error)

// NewNodeAuthorizerWithGraph is NewNodeAuthorizer that also grants a
// kubelet, as upstream's graph does, the Secrets, ConfigMaps and
// PersistentVolumeClaims that a pod bound to its node uses (found with
// pods): get, list and watch of one named Secret or ConfigMap (a list or
// watch names it with the fieldSelector metadata.name=<name>), get of
// one claim. The graph links a pod to what its spec names whether the
// object exists or not, so that a kubelet reading one that does not
// exist gets 404 NotFound. Without a relationship the answer is
// NoOpinion with upstream's reason, and RBAC decides (it grants a
// kubelet nothing there).
func NewNodeAuthorizerWithGraph(pods PodsOnNode) Authorizer {
	return &nodeAuthorizer{rules: nodeRules(), pods: pods}
}

// graphUses says, for the kinds the graph serves, whether a pod uses the
// object named name.
var graphUses = map[schema.GroupResource]func(p *corev1.Pod, name string) bool{
	{Resource: "secrets"}:                podUsesSecret,
	{Resource: "configmaps"}:             podUsesConfigMap,
	{Resource: "persistentvolumeclaims"}: podUsesClaim,
}

// graphAccess is upstream's authorizeReadNamespacedObject (secrets,
// configmaps) and authorizeGet (claims), with the pods of the node as
// the graph.
func (z *nodeAuthorizer) graphAccess(ctx context.Context, node string, gr schema.GroupResource, a Attributes) (bool, string) {
	uses := graphUses[gr]
	switch {
	case gr.Resource == "persistentvolumeclaims" && a.Verb != VerbGet:
		return false, "can only get individual resources of this type"
	case a.Verb != VerbGet && a.Verb != VerbList && a.Verb != VerbWatch:
		return false, "can only read resources of this type"
	case a.Subresource != "":
		return false, "cannot read subresource"
	case a.Name == "" && a.Verb != VerbGet:
		name, ok := fieldValue(a.FieldSelector, "metadata.name")
		if !ok {
			return false, "can only read namespaced object of this type"
		}
		a.Name = name
	}
	noRelation := fmt.Sprintf("no relationship found between node '%s' and this object", node)
	if a.Name == "" || a.Namespace == "" {
		return false, noRelation
	}
	pods, err := z.pods(ctx, a.Namespace, node)
	if err != nil {
		return false, noRelation
	}
	for i := range pods {
		if uses(&pods[i], a.Name) {
			return true, ""
		}
	}
	return false, noRelation
}

// fieldValue is the value field must equal in selector, if it says so.
func fieldValue(selector, field string) (string, bool) {
	if selector == "" {
		return "", false
	}
	sel, err := fields.ParseSelector(selector)
	if err != nil {
		return "", false
	}
	for _, r := range sel.Requirements() {
		if r.Field == field && (r.Operator == selection.Equals || r.Operator == selection.DoubleEquals) {
			return r.Value, true
		}
	}
	return "", false
}

func podUsesSecret(p *corev1.Pod, name string) bool {
	for _, s := range p.Spec.ImagePullSecrets {
		if s.Name == name {
			return true
		}
	}
	for _, v := range p.Spec.Volumes {
		switch {
		case v.Secret != nil && v.Secret.SecretName == name:
			return true
		case v.Projected != nil && projectedUses(v.Projected, name, true):
			return true
		}
	}
	return containersUse(p, func(env corev1.EnvVar) bool {
		return env.ValueFrom != nil && env.ValueFrom.SecretKeyRef != nil && env.ValueFrom.SecretKeyRef.Name == name
	}, func(from corev1.EnvFromSource) bool { return from.SecretRef != nil && from.SecretRef.Name == name })
}

func podUsesConfigMap(p *corev1.Pod, name string) bool {
	for _, v := range p.Spec.Volumes {
		switch {
		case v.ConfigMap != nil && v.ConfigMap.Name == name:
			return true
		case v.Projected != nil && projectedUses(v.Projected, name, false):
			return true
		}
	}
	return containersUse(p, func(env corev1.EnvVar) bool {
		return env.ValueFrom != nil && env.ValueFrom.ConfigMapKeyRef != nil && env.ValueFrom.ConfigMapKeyRef.Name == name
	}, func(from corev1.EnvFromSource) bool {
		return from.ConfigMapRef != nil && from.ConfigMapRef.Name == name
	})
}

func podUsesClaim(p *corev1.Pod, name string) bool {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == name {
			return true
		}
		if v.Ephemeral != nil && p.Name+"-"+v.Name == name {
			return true
		}
	}
	return false
}

func projectedUses(v *corev1.ProjectedVolumeSource, name string, secret bool) bool {
	for _, s := range v.Sources {
		if secret && s.Secret != nil && s.Secret.Name == name {
			return true
		}
		if !secret && s.ConfigMap != nil && s.ConfigMap.Name == name {
			return true
		}
	}
	return false
}

// containersUse reports whether a container, init container or
// ephemeral container of p has an env or envFrom entry that uses it.
func containersUse(p *corev1.Pod, env func(corev1.EnvVar) bool, from func(corev1.EnvFromSource) bool) bool {
	check := func(envs []corev1.EnvVar, froms []corev1.EnvFromSource) bool {
		for _, e := range envs {
			if env(e) {
				return true
			}
		}
		for _, f := range froms {
			if from(f) {
				return true
			}
		}
		return false
	}
	for _, c := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		if check(c.Env, c.EnvFrom) {
			return true
		}
	}
	for _, c := range p.Spec.EphemeralContainers {
		if check(c.Env, c.EnvFrom) {
			return true
		}
	}
	return false
}
