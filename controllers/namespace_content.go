package controllers

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/discovery"
)

// finalizerEstimateSeconds is the estimate given to content held by
// finalizers, time for the garbage collector (or another finalizer's
// owner) to finish, as upstream's.
const finalizerEstimateSeconds = int64(15)

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// contentLeft is what one resource (or all of them) still has in the
// namespace after a round of deletes.
type contentLeft struct {
	// estimate is how many seconds it may still take (0: no estimate,
	// which does not mean nothing is left).
	estimate int64
	// remaining counts objects per resource; finalizers counts the
	// objects each finalizer holds.
	remaining  map[schema.GroupVersionResource]int
	finalizers map[string]int
}

// add folds one resource's outcome into the totals.
func (c *contentLeft) add(gvr schema.GroupVersionResource, r contentLeft) {
	c.estimate = max(c.estimate, r.estimate)
	if n := r.remaining[gvr]; n > 0 {
		c.remaining[gvr] = n
		for f, k := range r.finalizers {
			c.finalizers[f] += k
		}
	}
}

// deleteAllContent deletes every namespaced resource that supports
// delete from the namespace, pods first (the rest only once no pod is
// left), records the outcome in the namespace's conditions, and returns
// how many seconds the remaining content may take. Discovery failures
// are not fatal: what was discovered is deleted, and the conditions say
// what failed.
func (dl *namespaceDeleter) deleteAllContent(ctx context.Context, ns *corev1.Namespace, d *namespaceDeletion) (int64, error) {
	var errs []error
	var conds namespaceConditions
	lists, err := dl.discover()
	if err != nil {
		errs = append(errs, err)
		conds.discoveryFailed(err)
	}
	deletable := discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"delete"}}, lists)
	resources, err := discovery.GroupVersionResources(deletable)
	if err != nil {
		errs = append(errs, err)
		conds.groupVersionFailed(err)
	}
	verbs := resourceVerbs(deletable)
	left := contentLeft{remaining: map[schema.GroupVersionResource]int{}, finalizers: map[string]int{}}
	if _, ok := resources[podsResource]; ok {
		r, err := dl.deleteResource(ctx, podsResource, verbs[podsResource], ns, d)
		if err != nil {
			errs = append(errs, fmt.Errorf("failed to delete pods for namespace: %s, err: %w", ns.Name, err))
			conds.deleteFailed(err)
		}
		left.add(podsResource, r)
		if left.remaining[podsResource] > 0 {
			d.decision = fmt.Sprintf("%d pods still terminating (estimate %d s): the other content waits", left.remaining[podsResource], left.estimate)
			dl.writeConditions(ctx, ns, &conds, d)
			return left.estimate, utilerrors.NewAggregate(errs)
		}
	}
	for _, gvr := range sortedResources(resources) {
		if gvr == podsResource {
			continue
		}
		r, err := dl.deleteResource(ctx, gvr, verbs[gvr], ns, d)
		if err != nil {
			errs = append(errs, err)
			conds.deleteFailed(err)
		}
		left.add(gvr, r)
	}
	conds.contentTotals(left)
	d.decision = left.describe()
	dl.writeConditions(ctx, ns, &conds, d)
	return left.estimate, utilerrors.NewAggregate(errs)
}

// describe says what is left, for the controller's Action.
func (c contentLeft) describe() string {
	if len(c.remaining) == 0 {
		return "no content left"
	}
	return fmt.Sprintf("content left: %s (estimate %d s)", remainingResourcesMessage(c.remaining), c.estimate)
}

// writeConditions updates the namespace's status if its conditions
// changed; a failure is left for the next sync, as upstream does.
func (dl *namespaceDeleter) writeConditions(ctx context.Context, ns *corev1.Namespace, conds *namespaceConditions, d *namespaceDeletion) {
	if !conds.apply(&ns.Status) {
		return
	}
	_, err := dl.namespaces.UpdateStatus(ctx, ns, metav1.UpdateOptions{})
	d.wrote("PUT namespaces/%s/status (conditions) → %s", ns.Name, writeOutcome(err))
}

// resourceVerbs maps each resource listed to its verbs.
func resourceVerbs(lists []*metav1.APIResourceList) map[schema.GroupVersionResource][]string {
	out := map[schema.GroupVersionResource][]string{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			out[gv.WithResource(r.Name)] = r.Verbs
		}
	}
	return out
}

// sortedResources orders the set for stable runs (upstream walks a map).
func sortedResources(set map[schema.GroupVersionResource]struct{}) []schema.GroupVersionResource {
	out := make([]schema.GroupVersionResource, 0, len(set))
	for gvr := range set {
		out = append(out, gvr)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionResource) int {
		switch {
		case a.String() < b.String():
			return -1
		case a.String() > b.String():
			return 1
		}
		return 0
	})
	return out
}

// deleteResource deletes the namespace's objects of one resource
// (deletecollection, or each one if the resource lacks it), then lists
// what is left: objects held by finalizers, or pods still given time to
// stop, are expected; anything else left is an error.
func (dl *namespaceDeleter) deleteResource(ctx context.Context, gvr schema.GroupVersionResource, verbs []string, ns *corev1.Namespace, d *namespaceDeletion) (contentLeft, error) {
	r := contentLeft{remaining: map[schema.GroupVersionResource]int{}, finalizers: map[string]int{}}
	if gvr == podsResource {
		est, err := dl.estimatePods(ctx, ns.Name, *ns.DeletionTimestamp)
		if err != nil {
			return r, err
		}
		r.estimate = est
	}
	if err := dl.deleteObjects(ctx, gvr, verbs, ns.Name, d); err != nil {
		return r, err
	}
	if !slices.Contains(verbs, "list") {
		return r, nil
	}
	list, err := dl.meta.Resource(gvr).Namespace(ns.Name).List(ctx, metav1.ListOptions{})
	if apierrors.IsMethodNotSupported(err) || apierrors.IsNotFound(err) {
		return r, nil
	}
	if err != nil || len(list.Items) == 0 {
		return r, err
	}
	r.remaining[gvr] = len(list.Items)
	for _, item := range list.Items {
		for _, f := range item.Finalizers {
			r.finalizers[f]++
		}
	}
	switch {
	case r.estimate != 0:
	case len(r.finalizers) > 0:
		r.estimate = finalizerEstimateSeconds
	default:
		return r, fmt.Errorf("unexpected items still remain in namespace: %s for gvr: %v", ns.Name, gvr)
	}
	return r, nil
}

// deleteObjects deletes the objects of gvr in ns with background
// propagation (so that the garbage collector adds no orphan finalizer):
// by deletecollection where served, else one by one.
func (dl *namespaceDeleter) deleteObjects(ctx context.Context, gvr schema.GroupVersionResource, verbs []string, ns string, d *namespaceDeletion) error {
	background := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &background}
	client := dl.meta.Resource(gvr).Namespace(ns)
	if slices.Contains(verbs, "deletecollection") {
		err := client.DeleteCollection(ctx, opts, metav1.ListOptions{})
		switch {
		case err == nil:
			d.collected = append(d.collected, resourceName(gvr))
			return nil
		case !apierrors.IsMethodNotSupported(err) && !apierrors.IsNotFound(err):
			d.wrote("DELETE %s in %s (deletecollection) → %s", resourceName(gvr), ns, writeOutcome(err))
			return err
		}
	}
	if !slices.Contains(verbs, "list") {
		return nil
	}
	list, err := client.List(ctx, metav1.ListOptions{})
	if apierrors.IsMethodNotSupported(err) || apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, item := range list.Items {
		err := client.Delete(ctx, item.Name, opts)
		d.wrote("DELETE %s %s/%s (propagationPolicy Background) → %s", resourceName(gvr), ns, item.Name, writeOutcome(err))
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
			return err
		}
	}
	return nil
}

// resourceName is "pods" or "deployments.apps".
func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}
