package kubelet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/klog/v2"
)

// NodeLeaseNamespace holds the kubelets' leases.
const NodeLeaseNamespace = corev1.NamespaceNodeLease

// ControllerManagedAttachAnnotation is set on the Node by the kubelet: the
// attach/detach controller, not the kubelet, attaches its volumes.
const ControllerManagedAttachAnnotation = "volumes.kubernetes.io/controller-managed-attach-detach"

// KubeletVersion is status.nodeInfo.kubeletVersion: the Kubernetes
// version of the k8s.io/api module kubesim is built with (v0.37.2 is
// Kubernetes v1.37.2). It is read from the build info once: every
// status check of every node asks for it.
var KubeletVersion = sync.OnceValue(kubeletVersion)

func kubeletVersion() string {
	v := "v1.37.2"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/api" && strings.HasPrefix(d.Version, "v0.") {
				v = "v1." + strings.TrimPrefix(d.Version, "v0.")
			}
		}
	}
	return v
}

// machineUUID makes a stable UUID-shaped ID from the node name.
func machineUUID(node, what string) string {
	sum := sha256.Sum256([]byte("kubesim " + what + " " + node))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// nodeLabels are the labels the kubelet registers with: its own, then the
// spec's.
func (k *Kubelet) nodeLabels() map[string]string {
	l := map[string]string{
		corev1.LabelHostname:           k.cfg.Node.Name,
		corev1.LabelOSStable:           OperatingSystem,
		corev1.LabelArchStable:         Architecture,
		"beta.kubernetes.io/os":        OperatingSystem,
		"beta.kubernetes.io/arch":      Architecture,
		corev1.LabelInstanceTypeStable: InstanceType,
	}
	maps.Copy(l, k.cfg.Node.Labels)
	return l
}

// initialNode is the Node the kubelet registers, and the node events its
// new conditions call for.
func (k *Kubelet) initialNode(now time.Time) (*corev1.Node, []string) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        k.cfg.Node.Name,
			Labels:      k.nodeLabels(),
			Annotations: map[string]string{ControllerManagedAttachAnnotation: "true"},
		},
		Spec: corev1.NodeSpec{
			PodCIDR:  k.cfg.PodCIDR,
			PodCIDRs: []string{k.cfg.PodCIDR},
			Taints:   append([]corev1.Taint(nil), k.cfg.Node.Taints...),
		},
	}
	events := k.setNodeStatus(n, now)
	return n, events
}

// setNodeStatus fills in the Node's status as the kubelet's status
// setters do, at now, and returns the node events to record (a condition
// that is new or changed).
func (k *Kubelet) setNodeStatus(n *corev1.Node, now time.Time) []string {
	s := &n.Status
	s.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: k.cfg.NodeIP},
		{Type: corev1.NodeHostName, Address: k.cfg.Node.Name},
	}
	s.Capacity = k.cfg.Node.Capacity()
	s.Allocatable = k.cfg.Node.Allocatable()
	s.DaemonEndpoints = corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: k.endpointPort()}}
	s.NodeInfo = corev1.NodeSystemInfo{
		MachineID:               strings.ReplaceAll(machineUUID(k.cfg.Node.Name, "machine"), "-", ""),
		SystemUUID:              machineUUID(k.cfg.Node.Name, "system"),
		BootID:                  machineUUID(k.cfg.Node.Name, "boot"),
		KernelVersion:           KernelVersion,
		OSImage:                 OSImage,
		ContainerRuntimeVersion: ContainerRuntimeVersion,
		KubeletVersion:          KubeletVersion(),
		OperatingSystem:         OperatingSystem,
		Architecture:            Architecture,
	}
	s.Images = k.rt.imageList()
	heartbeat := metav1.NewTime(now).Rfc3339Copy()
	var events []string
	for _, want := range []struct {
		t               corev1.NodeConditionType
		status          corev1.ConditionStatus
		reason, message string
		event           string
	}{
		{corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", "NodeHasSufficientMemory"},
		{corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", "NodeHasNoDiskPressure"},
		{corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available", "NodeHasSufficientPID"},
		{corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", "NodeReady"},
	} {
		var c *corev1.NodeCondition
		for i := range s.Conditions {
			if s.Conditions[i].Type == want.t {
				c = &s.Conditions[i]
			}
		}
		isNew := c == nil
		if isNew {
			s.Conditions = append(s.Conditions, corev1.NodeCondition{Type: want.t, Status: corev1.ConditionUnknown})
			c = &s.Conditions[len(s.Conditions)-1]
		}
		c.LastHeartbeatTime = heartbeat
		if c.Status != want.status {
			c.Status = want.status
			c.LastTransitionTime = heartbeat
			// The Ready setter records an event only for a change, the
			// pressure setters also for a new condition.
			if want.t != corev1.NodeReady || !isNew {
				events = append(events, want.event)
			}
		}
		c.Reason, c.Message = want.reason, want.message
	}
	return events
}

// nodeRef is the Node as events refer to it.
func (k *Kubelet) nodeRef() *corev1.ObjectReference {
	ref := &corev1.ObjectReference{Kind: "Node", Name: k.cfg.Node.Name}
	if uid, ok := k.nodeUID.Load().(types.UID); ok {
		ref.UID = uid
	}
	return ref
}

func (k *Kubelet) nodeEvents(events []string) {
	for _, e := range events {
		k.recorder.Event(k.nodeRef(), corev1.EventTypeNormal, e, msgNodeStatus(k.cfg.Node.Name, e))
	}
}

// registerNode creates the kubelet's Node, or, when it exists (409
// AlreadyExists: a kubelet restart), brings its labels and pod CIDR up to
// date; then reports its status. It retries as the kubelet does (100ms
// doubling to 7s) until it succeeds or ctx is done. A hollow kubelet
// makes each attempt in one of its host's registration slots.
func (k *Kubelet) registerNode(ctx context.Context) error {
	step := 100 * time.Millisecond
	for {
		var err error
		if h := k.cfg.Hollow; h != nil {
			err = h.register(ctx, func() error { return k.tryRegister(ctx) })
		} else {
			err = k.tryRegister(ctx)
		}
		if err == nil {
			return nil
		}
		klog.FromContext(ctx).Error(err, "Unable to register node with API server", "node", k.cfg.Node.Name)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-k.clock.After(step):
		}
		step = min(2*step, 7*time.Second)
	}
}

func (k *Kubelet) tryRegister(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	nodes := k.cfg.Client.CoreV1().Nodes()
	n, events := k.initialNode(k.clock.Now())
	created, err := nodes.Create(ctx, n, metav1.CreateOptions{})
	if err == nil {
		logger.Info("Successfully registered node", "node", n.Name)
		k.nodeUID.Store(created.UID)
		k.lastStatusReport = k.clock.Now()
		k.recorder.Event(k.nodeRef(), corev1.EventTypeNormal, ReasonStarting, msgStartingKubelet)
		k.recorder.Event(k.nodeRef(), corev1.EventTypeNormal, "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods")
		k.nodeEvents(events)
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	existing, err := nodes.Get(ctx, n.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	logger.Info("Node was previously registered", "node", n.Name)
	k.nodeUID.Store(existing.UID)
	k.recorder.Event(k.nodeRef(), corev1.EventTypeNormal, ReasonStarting, msgStartingKubelet)
	updated := existing.DeepCopy()
	if updated.Labels == nil {
		updated.Labels = map[string]string{}
	}
	maps.Copy(updated.Labels, n.Labels)
	if updated.Annotations == nil {
		updated.Annotations = map[string]string{}
	}
	maps.Copy(updated.Annotations, n.Annotations)
	if updated.Spec.PodCIDR == "" {
		updated.Spec.PodCIDR, updated.Spec.PodCIDRs = n.Spec.PodCIDR, n.Spec.PodCIDRs
	}
	if !apiequality.Semantic.DeepEqual(updated.ObjectMeta, existing.ObjectMeta) || !apiequality.Semantic.DeepEqual(updated.Spec, existing.Spec) {
		if existing, err = nodes.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return k.patchNodeStatus(ctx, existing)
}

// updateNodeStatus is one check of the Node's status, as upstream's
// tryUpdateNodeStatus: it reads the Node (as upstream does, from the API
// server's cache: resourceVersion 0), computes the status, and patches it
// only when it changed (heartbeat times aside) or StatusReportFrequency
// has passed since the last report. A hollow kubelet reads the Node from
// its host's informer instead (a GET only while the informer has none).
func (k *Kubelet) updateNodeStatus(ctx context.Context) error {
	if h := k.cfg.Hollow; h != nil {
		if n, ok := h.node(k.cfg.Node.Name); ok {
			return k.patchNodeStatus(ctx, n)
		}
	}
	n, err := k.cfg.Client.CoreV1().Nodes().Get(ctx, k.cfg.Node.Name, metav1.GetOptions{ResourceVersion: "0"})
	if err != nil {
		return err
	}
	return k.patchNodeStatus(ctx, n)
}

// patchNodeStatus patches nodes/<name>/status from old to the status the
// kubelet computes now, with a strategic merge patch of the difference
// (as the kubelet's PatchNodeStatus), unless the status is unchanged but
// for its heartbeats and the last report is more recent than
// StatusReportFrequency. Only the node status loop and registration (before
// the loop starts) call it.
func (k *Kubelet) patchNodeStatus(ctx context.Context, old *corev1.Node) error {
	// Only the status is set: the rest is old's, shared, not modified.
	updated := &corev1.Node{TypeMeta: old.TypeMeta, ObjectMeta: old.ObjectMeta, Spec: old.Spec, Status: *old.Status.DeepCopy()}
	now := k.clock.Now()
	events := k.setNodeStatus(updated, now)
	if now.Before(k.lastStatusReport.Add(k.cfg.StatusReportFrequency)) && !nodeStatusChanged(&old.Status, &updated.Status) {
		return nil
	}
	patch, err := nodeStatusPatch(old, updated)
	if err != nil {
		return err
	}
	if string(patch) != "{}" {
		if _, err := k.cfg.Client.CoreV1().Nodes().Patch(ctx, old.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("kubelet: patch status of node %s: %w", old.Name, err)
		}
	}
	k.lastStatusReport = now
	k.nodeEvents(events)
	return nil
}

// nodeStatusChanged reports whether the node's status changed in more
// than its conditions' heartbeat times, as upstream's
// nodeStatusHasChanged.
func nodeStatusChanged(old, cur *corev1.NodeStatus) bool {
	if len(old.Conditions) != len(cur.Conditions) {
		return true
	}
	// By type, in any order (upstream's nodeConditionsHaveChanged sorts).
	a, b := slices.Clone(old.Conditions), slices.Clone(cur.Conditions)
	for _, cs := range [][]corev1.NodeCondition{a, b} {
		slices.SortStableFunc(cs, func(x, y corev1.NodeCondition) int { return strings.Compare(string(x.Type), string(y.Type)) })
		for i := range cs {
			cs[i].LastHeartbeatTime = metav1.Time{}
		}
	}
	if !apiequality.Semantic.DeepEqual(a, b) {
		return true
	}
	// The rest compared on shallow copies without the conditions: nothing
	// is modified, so nothing needs a deep copy.
	x, y := *old, *cur
	x.Conditions, y.Conditions = nil, nil
	return !apiequality.Semantic.DeepEqual(x, y)
}

func nodeStatusPatch(old, updated *corev1.Node) ([]byte, error) {
	oldData, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	diff := updated.DeepCopy()
	diff.Spec = old.Spec
	newData, err := json.Marshal(diff)
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(oldData, newData, corev1.Node{})
}

// renewLease creates or renews the node's Lease in kube-node-lease:
// holder the node, duration LeaseDuration, renewed now, owned by the Node.
func (k *Kubelet) renewLease(ctx context.Context) error {
	leases := k.cfg.Client.CoordinationV1().Leases(NodeLeaseNamespace)
	now := metav1.NewMicroTime(k.clock.Now())
	holder := k.cfg.Node.Name
	secs := int32(k.cfg.LeaseDuration / time.Second)
	if secs < 1 {
		secs = 1
	}
	var owners []metav1.OwnerReference
	if uid, ok := k.nodeUID.Load().(types.UID); ok && uid != "" {
		owners = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: k.cfg.Node.Name, UID: uid}}
	}
	lease := k.lease
	if lease == nil {
		got, err := leases.Get(ctx, k.cfg.Node.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l := &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: k.cfg.Node.Name, Namespace: NodeLeaseNamespace, OwnerReferences: owners},
				Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &now},
			}
			created, err := leases.Create(ctx, l, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("kubelet: create lease: %w", err)
			}
			k.lease = created
			return nil
		case err != nil:
			return fmt.Errorf("kubelet: get lease: %w", err)
		}
		lease = got
	}
	l := lease.DeepCopy()
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.RenewTime = &holder, &secs, &now
	if len(l.OwnerReferences) == 0 {
		l.OwnerReferences = owners
	}
	updated, err := leases.Update(ctx, l, metav1.UpdateOptions{})
	if err != nil {
		k.leaseFailures++
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) || k.leaseFailures >= maxLeaseUpdateFailures {
			k.lease, k.leaseFailures = nil, 0 // read it again next time
		}
		return fmt.Errorf("kubelet: renew lease: %w", err)
	}
	k.lease, k.leaseFailures = updated, 0
	return nil
}

// maxLeaseUpdateFailures is how many failed renewals in a row (other
// than 409 Conflict and 404) the kubelet retries with the Lease it has
// before it reads the Lease again, as upstream's lease controller
// (maxUpdateRetries) tries its latest Lease five times before it falls
// back to a GET: a 429 from an overloaded API server is not answered
// with one more request. Upstream tries the five at once within one
// renewal (each after client-go's own retries of a 429); here each
// failure waits leaseLoop's retry delay.
const maxLeaseUpdateFailures = 5
