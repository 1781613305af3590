package kubeapiserver

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	upschedulingv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// HookSystemPriorityClasses creates the system PriorityClasses,
// system-node-critical and system-cluster-critical
// (pkg/registry/scheduling/rest's PostStartHookName).
const HookSystemPriorityClasses = "scheduling/bootstrap-system-priority-classes"

// systemPriorityClassesTimeout: upstream's hook tries every second for
// 30 seconds, then fails (and the server with it).
const systemPriorityClassesTimeout = 30 * time.Second

// systemPriorityClassesHook creates the system priority classes that are
// missing, as upstream's hook does with upstream's own list of them
// (values 2000001000 and 2000000000), retrying every second until
// systemPriorityClassesTimeout. A class that exists is left as it is.
func (s *Server) systemPriorityClassesHook(ctx apiserver.PostStartHookContext) error {
	deadline := time.Now().Add(systemPriorityClassesTimeout)
	for {
		err := s.ensureSystemPriorityClasses(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("unable to add default system priority classes: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(bootstrapRolesRetry):
		}
	}
}

// ensureSystemPriorityClasses creates each system class that is missing,
// defaulted as a create through the API would be.
func (s *Server) ensureSystemPriorityClasses(ctx context.Context) error {
	store := s.reg.Store(registry.PriorityClasses)
	for _, pc := range upschedulingv1.SystemPriorityClasses() {
		registry.PriorityClasses.Default(pc, false)
		if _, err := store.Create(ctx, "", pc, nil, registry.Options{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("priorityclass %s: %w", pc.Name, err)
		}
	}
	return nil
}
