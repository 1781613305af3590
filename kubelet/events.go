package kubelet

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Event reasons, as the kubelet's (pkg/kubelet/events).
const (
	ReasonPulling           = "Pulling"
	ReasonPulled            = "Pulled"
	ReasonFailed            = "Failed"
	ReasonBackOff           = "BackOff"
	ReasonErrImageNeverPull = "ErrImageNeverPull"
	ReasonCreated           = "Created"
	ReasonStarted           = "Started"
	ReasonKilling           = "Killing"
	ReasonStarting          = "Starting"
)

// Container waiting and terminated reasons the kubelet writes into pod
// status.
const (
	ReasonContainerCreating = "ContainerCreating"
	ReasonPodInitializing   = "PodInitializing"
	ReasonErrImagePull      = "ErrImagePull"
	ReasonImagePullBackOff  = "ImagePullBackOff"
	ReasonCrashLoopBackOff  = "CrashLoopBackOff"
	ReasonCompleted         = "Completed"
	ReasonError             = "Error"
	// ReasonContainerStatusUnknown marks a container that never ran in a
	// pod that was terminated.
	ReasonContainerStatusUnknown = "ContainerStatusUnknown"
)

// Pod condition reasons and messages, as the kubelet's status generators'.
const (
	ReasonContainersNotReady       = "ContainersNotReady"
	ReasonContainersNotInitialized = "ContainersNotInitialized"
	ReasonPodCompleted             = "PodCompleted"
	ReasonPodFailed                = "PodFailed"
	ReasonPodSandboxNotReady       = "PodSandboxNotReady"
	MessageNoPodSandbox            = "no pod sandbox exists"
	MessageSandboxNotReady         = "pod sandbox is not ready"
	messageContainerNotLocated     = "The container could not be located when the pod was terminated"
)

// Event messages, worded as the v1.37 kubelet's: image manager
// (pkg/kubelet/images/image_manager.go), runtime manager
// (pkg/kubelet/kuberuntime/kuberuntime_container.go,
// kuberuntime_manager.go) and node status (kubelet_node_status.go,
// kubelet.go).

func msgPulling(image string) string { return fmt.Sprintf("Pulling image %q", image) }

// msgPulled: pull is how long the runtime took, total how long the
// kubelet waited, both truncated to the millisecond.
func msgPulled(image string, pull, total time.Duration, size int64) string {
	return fmt.Sprintf("Successfully pulled image %q in %v (%v including waiting). Image size: %v bytes.",
		image, pull.Truncate(time.Millisecond), total.Truncate(time.Millisecond), size)
}

// msgAlreadyPresent is the v1.37 text: with KubeletEnsureSecretPulledImages
// (on by default since v1.35) the kubelet says the pod may use the image.
func msgAlreadyPresent(image string) string {
	return fmt.Sprintf("Container image %q already present on machine and can be accessed by the pod", image)
}

func msgFailedToPull(image, err string) string {
	return fmt.Sprintf("Failed to pull image %q: %s", image, err)
}

func msgBackOffPulling(image string) string { return fmt.Sprintf("Back-off pulling image %q", image) }

func msgNeverPull(image string) string {
	return fmt.Sprintf("Container image %q is not present with pull policy of Never", image)
}

func msgError(reason string) string { return "Error: " + reason }

const (
	msgCreated = "Container created"
	msgStarted = "Container started"
)

func msgKilling(container string) string { return fmt.Sprintf("Stopping container %s", container) }

// podDesc is how the kubelet names a pod in messages: name_namespace(uid).
func podDesc(p *corev1.Pod) string { return fmt.Sprintf("%s_%s(%s)", p.Name, p.Namespace, p.UID) }

func msgBackOffRestarting(container string, p *corev1.Pod) string {
	return fmt.Sprintf("Back-off restarting failed container %s in pod %s", container, podDesc(p))
}

// msgCrashLoopBackOff is the waiting message of a container in
// CrashLoopBackOff.
func msgCrashLoopBackOff(d time.Duration, container string, p *corev1.Pod) string {
	return fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", d, container, podDesc(p))
}

const msgStartingKubelet = "Starting kubelet."

func msgNodeStatus(node, event string) string {
	return fmt.Sprintf("Node %s status is now: %s", node, event)
}
