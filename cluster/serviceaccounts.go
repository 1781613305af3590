package cluster

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesim/kubesim/internal/pki"
)

// defaultServiceAccountPoll is how often Start looks for the default
// ServiceAccount.
const defaultServiceAccountPoll = 20 * time.Millisecond

// waitDefaultServiceAccount waits, at most c.readyWait, for the
// controller manager's service-account-controller to make the
// ServiceAccount "default" in the namespace "default". Until it exists
// the ServiceAccount admission plugin rejects the pods created there, in
// kubesim as in a cluster just started (upstream's plugin waits about
// two seconds for it, then answers 403): Start returns after it, so that
// the first pod of a lesson is not rejected.
func (c *Cluster) waitDefaultServiceAccount(ctx context.Context) error {
	client, err := c.clientFor(pki.Admin())
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.readyWait)
	defer cancel()
	var last error
	err = wait.PollUntilContextCancel(ctx, defaultServiceAccountPoll, true, func(ctx context.Context) (bool, error) {
		_, last = client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return last == nil, nil
	})
	if err == nil {
		c.startup.add(StartupRun, "serviceaccount", "ok", "service-account-controller made default/default: pods may be created")
		return nil
	}
	if last == nil || apierrors.IsNotFound(last) {
		last = fmt.Errorf("not made within %s", c.readyWait)
	}
	c.startup.add(StartupRun, "serviceaccount", "failed", last.Error())
	return fmt.Errorf("cluster: the default ServiceAccount default/default: %w", last)
}
