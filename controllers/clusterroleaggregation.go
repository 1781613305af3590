package controllers

import (
	"context"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// ClusterRoleAggregationControllerName is upstream's name for the
// controller that fills aggregated ClusterRoles.
const ClusterRoleAggregationControllerName = "clusterrole-aggregation-controller"

// ClusterRoleAggregationController fills the rules of every ClusterRole
// that has an aggregationRule with the rules of the ClusterRoles its
// selectors match, as upstream's ClusterRoleAggregationController: for
// each selector in turn, the matching roles by name (the role itself
// left out), each rule added unless an equal one is there already. Any
// ClusterRole added, changed or deleted queues every aggregated role
// (the roles are few and may feed one another: view feeds edit, which
// feeds admin). Create it with NewClusterRoleAggregationController, run
// it with Run.
//
// Upstream writes the rules by server-side apply (field manager
// clusterrole-aggregation-controller, forced); kubesim's API server has
// no server-side apply, so this controller writes them with an update
// of the role it read.
type ClusterRoleAggregationController struct {
	client kubernetes.Interface
	lister rbaclisters.ClusterRoleLister
	synced []cache.DoneChecker
	queue  workqueue.TypedRateLimitingInterface[string]
}

// NewClusterRoleAggregationController sets up the controller's informer
// on factory.
func NewClusterRoleAggregationController(factory informers.SharedInformerFactory, client kubernetes.Interface) (*ClusterRoleAggregationController, error) {
	inf := factory.Rbac().V1().ClusterRoles()
	c := &ClusterRoleAggregationController{
		client: client, lister: inf.Lister(),
		synced: []cache.DoneChecker{inf.Informer().HasSyncedChecker()},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "ClusterRoleAggregator"}),
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.enqueueAggregated() },
		UpdateFunc: func(_, _ any) { c.enqueueAggregated() },
		DeleteFunc: func(any) { c.enqueueAggregated() },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the informer, then syncs with workers goroutines until
// ctx is done.
func (c *ClusterRoleAggregationController) Run(ctx context.Context, workers int) {
	runWorkers(ctx, c.queue, c.synced, workers, c.sync)
}

// enqueueAggregated queues every ClusterRole with an aggregationRule,
// whatever role changed.
func (c *ClusterRoleAggregationController) enqueueAggregated() {
	all, err := c.lister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, r := range all {
		if r.AggregationRule != nil {
			c.queue.Add(r.Name)
		}
	}
}

// sync writes the aggregated rules of the ClusterRole name if they differ
// from its rules.
func (c *ClusterRoleAggregationController) sync(ctx context.Context, name string) error {
	role, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || role.AggregationRule == nil {
		return err
	}
	rules, err := c.aggregatedRules(role)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(rules, role.Rules) {
		return nil
	}
	role = role.DeepCopy()
	role.Rules = rules
	_, err = c.client.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{})
	return err
}

// aggregatedRules are the rules role's selectors gather.
func (c *ClusterRoleAggregationController) aggregatedRules(role *rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	rules := []rbacv1.PolicyRule{}
	for i := range role.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, err
		}
		matched, err := c.lister.List(sel)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(matched, func(a, b *rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
		for _, m := range matched {
			if m.Name == role.Name {
				continue
			}
			for _, r := range m.Rules {
				if !slices.ContainsFunc(rules, func(x rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(x, r) }) {
					rules = append(rules, r)
				}
			}
		}
	}
	return rules, nil
}

// newClusterRoleAggregationControllerDescriptor is the clusterrole-aggregation-controller's
// entry in newControllerDescriptors: five workers, its own client.
func newClusterRoleAggregationControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: ClusterRoleAggregationControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			client, err := cc.client(ClusterRoleAggregationControllerName)
			if err != nil {
				return nil, err
			}
			c, err := NewClusterRoleAggregationController(cc.factory, client)
			if err != nil {
				return nil, err
			}
			return c.Run, nil
		}}
}
