package cluster

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet"
)

// The control plane's static pods, as kubeadm writes them into
// /etc/kubernetes/manifests of a control-plane node: etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler, with
// kubeadm's images, commands (shortened to their main flags), labels,
// requests, host network and priority class. kubesim's control plane
// runs in its own process; the pods stand for its components. Their
// containers are ready while the component is up: the scheduler's and
// the controller manager's while an instance runs (StopScheduler makes
// kube-scheduler-<node> not ready), etcd's and the API server's always
// (without them nothing answers).

// etcdImage is kubeadm v1.37's etcd image.
const etcdImage = "registry.k8s.io/etcd:3.7.0-0"

// controlPlanePods are the static pods of the control-plane node.
func (c *Cluster) controlPlanePods(nodeIP string) []kubelet.StaticPod {
	up := func(names func() []string) func() bool { return func() bool { return len(names()) > 0 } }
	return []kubelet.StaticPod{
		{Pod: staticPod("etcd", "etcd", etcdImage, "100m", "100Mi", []string{"etcd",
			"--advertise-client-urls=https://" + nodeIP + ":2379", "--data-dir=/var/lib/etcd",
			"--listen-client-urls=https://127.0.0.1:2379,https://" + nodeIP + ":2379", "--name=" + c.controlPlaneNode})},
		{Pod: staticPod("kube-apiserver", "kube-apiserver", image("kube-apiserver"), "250m", "", []string{"kube-apiserver",
			"--advertise-address=" + nodeIP, "--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction",
			"--etcd-servers=https://127.0.0.1:2379", "--secure-port=6443", "--service-cluster-ip-range=10.96.0.0/16"})},
		{Pod: staticPod("kube-controller-manager", "kube-controller-manager", image("kube-controller-manager"), "200m", "", []string{"kube-controller-manager",
			"--allocate-node-cidrs=true", "--bind-address=127.0.0.1", "--cluster-cidr=10.244.0.0/16",
			"--kubeconfig=/etc/kubernetes/controller-manager.conf", "--leader-elect=true", "--use-service-account-credentials=true"}),
			Healthy: up(c.ControllerManagerInstances)},
		{Pod: staticPod("kube-scheduler", "kube-scheduler", image("kube-scheduler"), "100m", "", []string{"kube-scheduler",
			"--bind-address=127.0.0.1", "--kubeconfig=/etc/kubernetes/scheduler.conf", "--leader-elect=true"}),
			Healthy: up(c.SchedulerInstances)},
	}
}

func image(component string) string {
	return "registry.k8s.io/" + component + ":v1.37.2"
}

// staticPod is one of kubeadm's manifests.
func staticPod(name, component, img, cpu, memory string, command []string) *corev1.Pod {
	requests := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	if memory != "" {
		requests[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem,
			Labels: map[string]string{"component": component, "tier": "control-plane"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: name, Image: img, ImagePullPolicy: corev1.PullIfNotPresent, Command: command,
				Resources: corev1.ResourceRequirements{Requests: requests}}},
			HostNetwork:       true,
			PriorityClassName: "system-node-critical",
			SecurityContext:   &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		},
	}
}
