package printers

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// nodeColumns are the columns of `kubectl get nodes`; the priority-1 ones
// appear with -o wide.
var nodeColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Status", Type: "string", Description: "The status of the node"},
	{Name: "Roles", Type: "string", Description: "The roles of the node"},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Version", Type: "string", Description: corev1.NodeSystemInfo{}.SwaggerDoc()["kubeletVersion"]},
	{Name: "Internal-IP", Type: "string", Priority: 1, Description: corev1.NodeStatus{}.SwaggerDoc()["addresses"]},
	{Name: "External-IP", Type: "string", Priority: 1, Description: corev1.NodeStatus{}.SwaggerDoc()["addresses"]},
	{Name: "OS-Image", Type: "string", Priority: 1, Description: corev1.NodeSystemInfo{}.SwaggerDoc()["osImage"]},
	{Name: "Kernel-Version", Type: "string", Priority: 1, Description: corev1.NodeSystemInfo{}.SwaggerDoc()["kernelVersion"]},
	{Name: "Container-Runtime", Type: "string", Priority: 1, Description: corev1.NodeSystemInfo{}.SwaggerDoc()["containerRuntimeVersion"]},
}

// Node labels that name a node's roles.
const (
	// nodeRoleLabelPrefix marks a role by key: node-role.kubernetes.io/<role>.
	nodeRoleLabelPrefix = "node-role.kubernetes.io/"
	// nodeRoleLabel marks a role by value: kubernetes.io/role=<role>.
	nodeRoleLabel = "kubernetes.io/role"
)

// node prints one node: NAME STATUS ROLES AGE VERSION, then INTERNAL-IP
// EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME.
func (p printer) node(node *corev1.Node) metav1.TableRow {
	info := node.Status.NodeInfo
	kernel := orUnknown(info.KernelVersion)
	if info.Architecture != "" {
		kernel += " (" + info.Architecture + ")"
	}
	return metav1.TableRow{
		Cells: []any{
			node.Name,
			nodeStatus(node),
			nodeRoles(node),
			p.since(node.CreationTimestamp.Time),
			info.KubeletVersion,
			nodeAddress(node, corev1.NodeInternalIP),
			nodeAddress(node, corev1.NodeExternalIP),
			orUnknown(info.OSImage),
			kernel,
			orUnknown(info.ContainerRuntimeVersion),
		},
		Object: runtime.RawExtension{Object: node},
	}
}

// nodeStatus renders the STATUS cell: "Ready" or "NotReady" from the Ready
// condition ("Unknown" without one), then ",SchedulingDisabled" for a
// cordoned node.
func nodeStatus(node *corev1.Node) string {
	status := "Unknown"
	for _, c := range node.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		// A repeated condition type: the last one counts.
		if c.Status == corev1.ConditionTrue {
			status = string(corev1.NodeReady)
		} else {
			status = "Not" + string(corev1.NodeReady)
		}
	}
	if node.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	return status
}

// nodeRoles renders the ROLES cell: the sorted, distinct roles named by the
// node's role labels, comma-separated, or "<none>".
func nodeRoles(node *corev1.Node) string {
	seen := map[string]bool{}
	var roles []string
	add := func(role string) {
		if role != "" && !seen[role] {
			seen[role] = true
			roles = append(roles, role)
		}
	}
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, nodeRoleLabelPrefix):
			add(strings.TrimPrefix(k, nodeRoleLabelPrefix))
		case k == nodeRoleLabel:
			add(v)
		}
	}
	if len(roles) == 0 {
		return "<none>"
	}
	sort.Strings(roles)
	return strings.Join(roles, ",")
}

// nodeAddress returns the node's first address of type t, or "<none>".
func nodeAddress(node *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

// orUnknown returns s, or "<unknown>" if s is empty.
func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// Nodes prints nodes.
var Nodes = tableHandler(nodeColumns, printer.node)
