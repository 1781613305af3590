package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/internal/useragent"
	"github.com/kubesim/kubesim/kubelet"
)

// component is a running scheduler, controller manager or kubelet:
// cancel stops it, done closes when its Run has returned.
type component struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

func (c *component) stop() error {
	c.cancel()
	<-c.done
	if errors.Is(c.err, context.Canceled) {
		return nil
	}
	return c.err
}

// runComponent runs run in a goroutine owned by the cluster.
func (c *Cluster) runComponent(run func(ctx context.Context) error) *component {
	ctx, cancel := context.WithCancel(c.runCtx)
	comp := &component{cancel: cancel, done: make(chan struct{})}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(comp.done)
		comp.err = run(ctx)
	}()
	return comp
}

// restConfigFor returns a client configuration authenticated as id by
// client certificate (the certificate is created on first use), with
// the User-Agent and media types of the component id is.
func (c *Cluster) restConfigFor(id pki.Identity) (*rest.Config, error) {
	kc, err := c.Authority.Kubeconfig(c.URL, id, pki.ClientCertificate)
	if err != nil {
		return nil, err
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*kc, nil).ClientConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	cfg.UserAgent = componentAgent(id)
	setComponentContentTypes(cfg, id)
	return cfg, nil
}

// componentAgent is the User-Agent of the component id is: upstream's
// binaries' (kube-scheduler, kube-controller-manager, kubelet), so that
// the field manager and the audit log name them as a cluster does; other
// users get client-go's default.
func componentAgent(id pki.Identity) string {
	switch user := id.User; {
	case user == pki.SchedulerUser:
		return useragent.Of(useragent.Scheduler)
	case user == pki.ControllerManagerUser:
		return useragent.Of(useragent.ControllerManager)
	case strings.HasPrefix(user, pki.NodeUserPrefix):
		return useragent.Of(useragent.Kubelet)
	}
	return ""
}

func (c *Cluster) clientFor(id pki.Identity) (kubernetes.Interface, error) {
	cfg, err := c.restConfigFor(id)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// IdentityOf returns the identity behind a user name the cluster knows:
// admin, student, system:kube-scheduler, system:kube-controller-manager
// or system:node:<node>.
func IdentityOf(user string) (pki.Identity, error) {
	switch {
	case user == pki.AdminUser:
		return pki.Admin(), nil
	case user == pki.StudentUser:
		return pki.Student(), nil
	case user == pki.SchedulerUser:
		return pki.Scheduler(), nil
	case user == pki.ControllerManagerUser:
		return pki.ControllerManager(), nil
	case strings.HasPrefix(user, pki.NodeUserPrefix) && len(user) > len(pki.NodeUserPrefix):
		return pki.Node(strings.TrimPrefix(user, pki.NodeUserPrefix)), nil
	}
	return pki.Identity{}, fmt.Errorf("cluster: unknown user %q (known: %s, %s, %s, %s, %s<node>)",
		user, pki.AdminUser, pki.StudentUser, pki.SchedulerUser, pki.ControllerManagerUser, pki.NodeUserPrefix)
}

// RESTConfigAs returns a client configuration acting as user (see
// IdentityOf), authenticated by a client certificate signed by the
// cluster's CA, without rate limits worth noticing.
func (c *Cluster) RESTConfigAs(user string) (*rest.Config, error) {
	id, err := IdentityOf(user)
	if err != nil {
		return nil, err
	}
	return c.restConfigFor(id)
}

// AdminClient returns a client-go clientset acting as admin.
func (c *Cluster) AdminClient() (kubernetes.Interface, error) { return c.clientFor(pki.Admin()) }

// StartScheduler starts the scheduler instance DefaultSchedulerInstance
// (StartSchedulerInstance): it takes the Lease kube-system/kube-scheduler
// at once when nobody holds it. It is an error if it already runs.
func (c *Cluster) StartScheduler() error { return c.StartSchedulerInstance(DefaultSchedulerInstance) }

// StopScheduler stops the scheduler instance DefaultSchedulerInstance
// gracefully (StopSchedulerInstance); pods created meanwhile stay Pending
// unless another instance runs.
func (c *Cluster) StopScheduler() error { return c.StopSchedulerInstance(DefaultSchedulerInstance) }

// StartKubelet starts a kubelet for spec, as system:node:<name>; it
// registers its Node. It is an error if one already runs for that name.
// While RealKubelets kubelets run, a new one is hollow (hollownodes.go).
func (c *Cluster) StartKubelet(spec kubelet.NodeSpec) error {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	if _, ok := c.kubelets[spec.Name]; ok {
		return fmt.Errorf("cluster: a kubelet already runs for node %s", spec.Name)
	}
	client, host, err := c.kubeletClient(spec.Name)
	if err != nil {
		return err
	}
	cfg := kubelet.NewConfig(spec, client)
	cfg.Hollow = host
	cfg.Recorder = c.Recorder
	cfg.Gate = c.Gate
	cfg.Speed = c.speed
	cfg.Images = c.images
	if spec.Name == c.controlPlaneNode {
		cfg.StaticPods = c.controlPlanePods(cfg.NodeIP)
	}
	nodeHeartbeats(cfg, c.speed, c.heartbeats.lease)
	if host != nil {
		cfg.Serving = c.hollowKubeletServing(spec.Name, cfg.NodeIP)
	} else if cfg.Serving, err = c.kubeletServing(spec.Name, cfg.NodeIP); err != nil {
		return err
	}
	k, err := kubelet.New(cfg)
	if err != nil {
		return err
	}
	c.kubelets[spec.Name] = c.runComponent(k.Run)
	c.specs[spec.Name] = spec
	return nil
}

// kubeletClient returns the client of node's kubelet: its own, with its
// client certificate, while fewer than RealKubelets kubelets run; else a
// hollow kubelet's and the host it belongs to. Called with c.compMu held.
func (c *Cluster) kubeletClient(node string) (kubernetes.Interface, *kubelet.HollowHost, error) {
	if len(c.kubelets) < realKubeletLimit {
		client, err := c.clientFor(pki.Node(node))
		return client, nil, err
	}
	h, err := c.hollow()
	if err != nil {
		return nil, nil, err
	}
	client, err := h.clientFor(node)
	return client, h.host, err
}

// StopKubelet stops the kubelet of a node; its Node object stays (and
// goes NotReady in a real cluster once its lease expires).
func (c *Cluster) StopKubelet(name string) error {
	c.compMu.Lock()
	k, ok := c.kubelets[name]
	delete(c.kubelets, name)
	c.compMu.Unlock()
	if !ok {
		return fmt.Errorf("cluster: no kubelet runs for node %s", name)
	}
	return k.stop()
}

// RemoveNode stops a node's kubelet and deletes its Node object.
func (c *Cluster) RemoveNode(ctx context.Context, name string) error {
	if err := c.StopKubelet(name); err != nil {
		return err
	}
	c.compMu.Lock()
	delete(c.specs, name)
	c.compMu.Unlock()
	admin, err := c.AdminClient()
	if err != nil {
		return err
	}
	if err := admin.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// Kubelets lists the nodes whose kubelet runs, by name.
func (c *Cluster) Kubelets() []string {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	names := make([]string, 0, len(c.kubelets))
	for n := range c.kubelets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// stopComponents stops the controller managers, the schedulers (each
// gracefully) and every kubelet.
func (c *Cluster) stopComponents() {
	c.compMu.Lock()
	elected := c.takeAllInstancesLocked()
	comps := make([]*component, 0, len(c.kubelets))
	for _, k := range c.kubelets {
		comps = append(comps, k)
	}
	c.kubelets = map[string]*component{}
	c.compMu.Unlock()
	var wg sync.WaitGroup
	for _, inst := range elected {
		wg.Go(func() { _ = inst.stop(true) })
	}
	for _, comp := range comps {
		wg.Go(func() { _ = comp.stop() })
	}
	wg.Wait()
}

// watchNodes attaches a kubelet to every Node created through the API
// that has none (kubectl create -f node.yaml adds a working node), with
// the capacity in its status.capacity, or the default node's.
func (c *Cluster) watchNodes(ctx context.Context) error {
	admin, err := c.AdminClient()
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(admin, 0)
	inf := factory.Core().V1().Nodes().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			node, ok := obj.(*corev1.Node)
			if !ok {
				return
			}
			c.compMu.Lock()
			_, known := c.specs[node.Name]
			c.compMu.Unlock()
			if known || node.DeletionTimestamp != nil {
				return
			}
			_ = c.StartKubelet(specFromNode(node))
		},
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	<-ctx.Done()
	factory.Shutdown()
	return nil
}

// specFromNode describes the simulated machine behind a Node created
// through the API.
func specFromNode(n *corev1.Node) kubelet.NodeSpec {
	spec := kubelet.DefaultNodeSpec(n.Name)
	if q, ok := n.Status.Capacity[corev1.ResourceCPU]; ok {
		spec.CPU = q
	}
	if q, ok := n.Status.Capacity[corev1.ResourceMemory]; ok {
		spec.Memory = q
	}
	if q, ok := n.Status.Capacity[corev1.ResourcePods]; ok {
		spec.Pods = q.Value()
	}
	spec.Labels = n.Labels
	spec.Taints = n.Spec.Taints
	return spec
}
