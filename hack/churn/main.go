// Command churn creates and deletes pods from many clients at once against
// a running cluster (kubesim serve, or any other), then checks that the
// scheduler still binds: every pod left at the end gets a node, and a pod
// created after the churn is bound. Pods deleted right after their create
// are often deleted between their scheduling and their binding, whose
// POST .../binding then fails with 404: the path that wedged kubesim's
// scheduler once (issue 26).
//
//	go run ./hack/churn --kubeconfig DATA/kubeconfig --clients 200 --for 60s
//
// It prints one line of figures and exits 1 if a check fails. Pods whose
// create was cut short as the churn ended may exist without the clients
// knowing: they are among the pods left, which must be bound too. It is
// a tool to run by hand, not part of go test.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

type options struct {
	kubeconfig, namespace string
	clients               int
	duration, settle      time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster (an admin's)")
	flag.StringVar(&o.namespace, "namespace", "default", "namespace to churn in")
	flag.IntVar(&o.clients, "clients", 200, "clients creating and deleting pods at once")
	flag.DurationVar(&o.duration, "for", time.Minute, "how long the churn lasts")
	flag.DurationVar(&o.settle, "settle", 2*time.Minute, "how long the pods left may take to be bound after the churn")
	flag.Parse()
	// client-go's own complaints (a create cut short when the churn ends)
	// are not the figures.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "churn:", err)
		os.Exit(1)
	}
}

// counts are what the clients did.
type counts struct{ created, deleted, errors atomic.Int64 }

func run(ctx context.Context, o options) error {
	rc, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	rc.QPS, rc.Burst = -1, 0 // the clients' number bounds the load
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	var c counts
	churnCtx, stop := context.WithTimeout(ctx, o.duration)
	defer stop()
	var wg sync.WaitGroup
	for i := range o.clients {
		wg.Go(func() { churn(churnCtx, cs.CoreV1().Pods(o.namespace), i, &c) })
	}
	wg.Wait()
	left, err := waitAllBound(ctx, cs, o.namespace, o.settle)
	fmt.Printf("clients %d for %s: %d created, %d deleted, %d errors; %d pods left", o.clients, o.duration,
		c.created.Load(), c.deleted.Load(), c.errors.Load(), left)
	if err != nil {
		fmt.Println()
		return err
	}
	took, err := bindOne(ctx, cs, o.namespace, o.settle)
	fmt.Printf(", all bound; a new pod bound in %s\n", took.Round(time.Millisecond))
	return err
}

// churn creates pods and deletes each at once, until ctx ends; every
// fourth pod is kept a little longer, so that the scheduler has pods
// bound as well as pods gone.
func churn(ctx context.Context, pods podsAPI, client int, c *counts) {
	for n := 0; ctx.Err() == nil; n++ {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("churn-%d-%d", client, n)},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			if ctx.Err() == nil {
				c.errors.Add(1)
			}
			continue
		}
		c.created.Add(1)
		if n%4 == 3 {
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
		// Deleted with a context of its own, so that a create is not left
		// behind because the churn ended between the two.
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := pods.Delete(dctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
		cancel()
		switch {
		case err == nil || apierrors.IsNotFound(err):
			c.deleted.Add(1)
		default:
			c.errors.Add(1)
		}
	}
}

// podsAPI is the part of the pods client churn uses.
type podsAPI interface {
	Create(context.Context, *corev1.Pod, metav1.CreateOptions) (*corev1.Pod, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}

// waitAllBound waits until every pod of namespace that is not being
// deleted has a node, and returns how many pods are left.
func waitAllBound(ctx context.Context, cs kubernetes.Interface, namespace string, timeout time.Duration) (int, error) {
	var left, unbound int
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		left, unbound = len(list.Items), 0
		for _, p := range list.Items {
			if p.DeletionTimestamp == nil && p.Spec.NodeName == "" {
				unbound++
			}
		}
		return unbound == 0, nil
	})
	if err != nil {
		return left, fmt.Errorf("%d of the %d pods left are still not bound after %s: the scheduler wedged?", unbound, left, timeout)
	}
	return left, nil
}

// bindOne creates one pod and waits until it is bound.
func bindOne(ctx context.Context, cs kubernetes.Interface, namespace string, timeout time.Duration) (time.Duration, error) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "after-churn-"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
	start := time.Now()
	created, err := cs.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		return 0, err
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := cs.CoreV1().Pods(namespace).Get(ctx, created.Name, metav1.GetOptions{})
		return err == nil && got.Spec.NodeName != "", nil
	})
	if err != nil {
		return time.Since(start), errors.New("a pod created after the churn was not bound: the scheduler wedged")
	}
	return time.Since(start), nil
}
