package apiextensionsserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/storage"
)

// Bounds of the wait for a deleted CRD's custom resources to be gone.
// Upstream polls every 5 seconds for a minute; kubesim looks every
// 100ms, as it has no other server whose cache could lag.
const (
	crdCleanupPoll    = 100 * time.Millisecond
	crdCleanupTimeout = time.Minute
)

// terminating is a Terminating condition of the CRD finalizer.
func terminating(status apiextensionsv1.ConditionStatus, reason, msg string) apiextensionsv1.CustomResourceDefinitionCondition {
	return apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating, Status: status, Reason: reason, Message: msg}
}

// syncFinalizer is upstream's CRD finalizer: for a CRD being deleted
// that still has the customresourcecleanup.apiextensions.k8s.io
// finalizer, it sets Terminating (InstanceDeletionInProgress), deletes
// every custom resource of an established CRD, waits for them to be
// gone, records the outcome (InstanceDeletionCompleted, or
// NeverEstablished) and removes the finalizer, which removes the CRD.
// A failure is recorded in the condition and retried.
func (c *crdController) syncFinalizer(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	if crd.DeletionTimestamp == nil || !apihelpers.CRDHasFinalizer(crd, apiextensionsv1.CustomResourceCleanupFinalizer) {
		return nil
	}
	if err := c.updateStatus(ctx, crd.Name, func(cur *apiextensionsv1.CustomResourceDefinition) {
		apihelpers.SetCRDCondition(cur, terminating(apiextensionsv1.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress"))
	}); err != nil {
		return err
	}
	cond := terminating(apiextensionsv1.ConditionFalse, "NeverEstablished", "resource was never established")
	if apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		var err error
		if cond, err = c.deleteInstances(ctx, crd); err != nil {
			_ = c.updateStatus(ctx, crd.Name, func(cur *apiextensionsv1.CustomResourceDefinition) { apihelpers.SetCRDCondition(cur, cond) })
			return err
		}
	}
	return c.updateStatus(ctx, crd.Name, func(cur *apiextensionsv1.CustomResourceDefinition) {
		apihelpers.SetCRDCondition(cur, cond)
		apihelpers.CRDRemoveFinalizer(cur, apiextensionsv1.CustomResourceCleanupFinalizer)
	})
}

// deleteInstances deletes every custom resource of crd from storage (a
// deletecollection per namespace, as upstream) and waits until none is
// left. It returns the Terminating condition to record.
func (c *crdController) deleteInstances(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (apiextensionsv1.CustomResourceDefinitionCondition, error) {
	failed := func(format string, err error) (apiextensionsv1.CustomResourceDefinitionCondition, error) {
		return terminating(apiextensionsv1.ConditionTrue, "InstanceDeletionFailed", fmt.Sprintf(format, err)), err
	}
	version, err := apihelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return failed("could not list instances: %v", err)
	}
	cfg := c.s.StoreConfig()
	cfg.WatchCache = storage.WindowConfig{} // its watch cache never runs
	stores, err := registry.NewCustomResourceStores(crd, version, cfg)
	if err != nil {
		return failed("could not list instances: %v", fmt.Errorf("unable to find a custom resource client for %s.%s: %v", crd.Status.AcceptedNames.Plural, crd.Spec.Group, err))
	}
	namespaces, err := instanceNamespaces(ctx, stores.Main)
	if err != nil {
		return failed("could not list instances: %v", err)
	}
	var errs []error
	for _, ns := range namespaces {
		if _, err := stores.Main.DeleteCollection(ctx, ns, nil, &metav1.DeleteOptions{}, nil); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return failed("could not issue all deletes: %v", utilerrors.NewAggregate(errs))
	}
	if err := waitForNoInstances(ctx, stores.Main); err != nil {
		return terminating(apiextensionsv1.ConditionTrue, "InstanceDeletionCheck", fmt.Sprintf("could not confirm zero CustomResources remaining: %v", err)), err
	}
	return terminating(apiextensionsv1.ConditionFalse, "InstanceDeletionCompleted", "removed all instances"), nil
}

// instanceNamespaces lists the namespaces holding custom resources of
// store ("" for cluster-scoped ones).
func instanceNamespaces(ctx context.Context, store *registry.Store) ([]string, error) {
	list, err := store.List(ctx, "", nil)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if m, err := meta.Accessor(it); err == nil && !seen[m.GetNamespace()] {
			seen[m.GetNamespace()] = true
			out = append(out, m.GetNamespace())
		}
	}
	sort.Strings(out)
	return out, nil
}

// waitForNoInstances polls store until it is empty, for up to
// crdCleanupTimeout.
func waitForNoInstances(ctx context.Context, store *registry.Store) error {
	ctx, cancel := context.WithTimeout(ctx, crdCleanupTimeout)
	defer cancel()
	for {
		list, err := store.List(ctx, "", nil)
		if err != nil {
			return err
		}
		if meta.LenList(list) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("timed out waiting for the condition")
		case <-time.After(crdCleanupPoll):
		}
	}
}
