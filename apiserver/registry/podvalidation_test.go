package registry_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// Messages from k8s.io/apimachinery that several cases quote.
const (
	dnsLabelMsg  = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
	portRangeMsg = "must be between 1 and 65535, inclusive"
)

// validPod is a defaulted pod with one container, as the API server holds
// it just before validation.
func validPod() *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
	registry.DefaultPod(p)
	return p
}

func richPod() *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{
				{Name: "init", Image: "busybox"},
				{Name: "proxy", Image: "envoy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}},
			},
			Containers: []corev1.Container{
				{
					Name: "web", Image: "nginx:1.27",
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80, HostPort: 8080}, {Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolUDP}},
					Env:   []corev1.EnvVar{{Name: "MODE", Value: "x"}, {Name: "my.var-1", Value: "relaxed names are fine"}},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("64Mi"), "example.com/gpu": resource.MustParse("1")},
						Limits:   corev1.ResourceList{"cpu": resource.MustParse("500m"), "example.com/gpu": resource.MustParse("1"), "hugepages-2Mi": resource.MustParse("4Mi")},
					},
				},
				{Name: "sidecar", Image: "busybox", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyOnFailure)},
			},
			NodeSelector:          map[string]string{"kubernetes.io/os": "linux", "disk": "ssd"},
			Tolerations:           []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule}, {Operator: corev1.TolerationOpExists}, {Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}},
			ActiveDeadlineSeconds: ptr.To[int64](600),
			Hostname:              "web-0",
			PriorityClassName:     "system-cluster-critical",
			PreemptionPolicy:      ptr.To(corev1.PreemptNever),
			SchedulingGates:       []corev1.PodSchedulingGate{{Name: "example.com/wait"}},
		},
	}
	registry.DefaultPod(p)
	return p
}

// errorStrings renders errors as kubectl shows them inside the aggregate:
// "<field>: <type>: <value>: <detail>".
func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func checkErrors(t *testing.T, got field.ErrorList, want []string) {
	t.Helper()
	g := errorStrings(got)
	if len(g) != len(want) {
		t.Fatalf("got %d errors, want %d:\ngot:\n  %s\nwant:\n  %s", len(g), len(want), strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("error %d:\ngot  %s\nwant %s", i, g[i], want[i])
		}
	}
}

func TestValidatePod(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"minimal pod is valid", func(p *corev1.Pod) {}, nil},
		{"rich pod is valid", func(p *corev1.Pod) { *p = *richPod() }, nil},
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil },
			[]string{"spec.containers: Required value"}},
		{"container name required", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "" },
			[]string{"spec.containers[0].name: Required value"}},
		{"container name not a DNS label", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "Web_1" },
			[]string{`spec.containers[0].name: Invalid value: "Web_1": ` + dnsLabelMsg}},
		{"duplicate container names", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0])
		}, []string{`spec.containers[1].name: Duplicate value: "web"`}},
		{"init container named like a container", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{p.Spec.Containers[0]}
		}, []string{`spec.initContainers[0].name: Duplicate value: "web"`}},
		{"image required", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "" },
			[]string{"spec.containers[0].image: Required value"}},
		{"image with spaces", func(p *corev1.Pod) { p.Spec.Containers[0].Image = " nginx" },
			[]string{`spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace`}},
		{"imagePullPolicy", func(p *corev1.Pod) { p.Spec.Containers[0].ImagePullPolicy = "Sometimes" },
			[]string{`spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`}},
		{"terminationMessagePolicy", func(p *corev1.Pod) { p.Spec.Containers[0].TerminationMessagePolicy = "Log" },
			[]string{`spec.containers[0].terminationMessagePolicy: Unsupported value: "Log": supported values: "File", "FallbackToLogsOnError"`}},
		{"pod restartPolicy", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" },
			[]string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"container restartPolicy", func(p *corev1.Pod) {
			p.Spec.Containers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicy("Sometimes"))
		}, []string{`spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`}},
		{"restart rules need a restartPolicy", func(p *corev1.Pod) {
			p.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{Action: "Stop"}}
		}, []string{
			"spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used",
			`spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Stop": supported values: "Restart", "RestartAllContainers"`,
			"spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified",
		}},
		{"probe on a plain init container", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox", ImagePullPolicy: corev1.PullIfNotPresent,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile, LivenessProbe: &corev1.Probe{}}}
		}, []string{"spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"}},
		{"negative quantity", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{"memory": resource.MustParse("-1Mi")}
		}, []string{`spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0`}},
		{"requests above limits", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{"cpu": resource.MustParse("2")},
				Limits:   corev1.ResourceList{"cpu": resource.MustParse("1")},
			}
		}, []string{`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"unknown resource name", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"cpus": resource.MustParse("1")}
		}, []string{
			`spec.containers[0].resources.limits[cpus]: Invalid value: "cpus": must be a standard resource type or fully qualified`,
			`spec.containers[0].resources.limits[cpus]: Invalid value: "cpus": must be a standard resource for containers`,
		}},
		{"quota resource in a container", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"pods": resource.MustParse("1")}
		}, []string{`spec.containers[0].resources.limits[pods]: Invalid value: "pods": must be a standard resource for containers`}},
		{"extended resource: whole numbers, requests equal limits", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{"example.com/gpu": resource.MustParse("500m")},
				Limits:   corev1.ResourceList{"example.com/gpu": resource.MustParse("1")},
			}
		}, []string{
			`spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer`,
			`spec.containers[0].resources.requests: Invalid value: "500m": must be equal to example.com/gpu limit of 1`,
		}},
		{"extended resource needs a limit", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
		}, []string{"spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"}},
		{"hugepages need cpu or memory", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"hugepages-2Mi": resource.MustParse("3Mi")}
		}, []string{
			`spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
			"spec.containers[0].resources: Forbidden: HugePages require cpu or memory",
		}},
		{"ports", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{
				{Name: "http_port", ContainerPort: 70000, HostPort: 70000, Protocol: "ICMP"},
				{Protocol: corev1.ProtocolTCP},
			}
		}, []string{
			`spec.containers[0].ports[0].name: Invalid value: "http_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
			"spec.containers[0].ports[0].containerPort: Invalid value: 70000: " + portRangeMsg,
			"spec.containers[0].ports[0].hostPort: Invalid value: 70000: " + portRangeMsg,
			`spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
			"spec.containers[0].ports[1].containerPort: Required value",
		}},
		{"duplicate port names and host ports", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{
				{Name: "http", ContainerPort: 80, HostPort: 80, Protocol: corev1.ProtocolTCP},
				{Name: "http", ContainerPort: 81, HostPort: 80, Protocol: corev1.ProtocolTCP},
			}
		}, []string{
			`spec.containers[0].ports[1].name: Duplicate value: "http"`,
			`spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//80"`,
		}},
		{"env names", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Value: "x"}, {Name: "A=B"}}
		}, []string{
			"spec.containers[0].env[0].name: Required value",
			`spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
		}},
		{"terminationGracePeriodSeconds negative", func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](-5) },
			[]string{"spec.terminationGracePeriodSeconds: Invalid value: -5: must be greater than or equal to 0"}},
		{"activeDeadlineSeconds zero", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](0) },
			[]string{"spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"}},
		{"dnsPolicy", func(p *corev1.Pod) { p.Spec.DNSPolicy = "Google" },
			[]string{`spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`}},
		{"dnsPolicy None without dnsConfig", func(p *corev1.Pod) { p.Spec.DNSPolicy = corev1.DNSNone },
			[]string{"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"}},
		{"nodeSelector key", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk type": "ssd"} },
			[]string{`spec.nodeSelector: Invalid value: "disk type": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
		{"nodeSelector value", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd!"} },
			[]string{`spec.nodeSelector: Invalid value: "ssd!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{"toleration operator and effect", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: "Like", Effect: "NoWay"}}
		}, []string{
			`spec.tolerations[0].operator: Unsupported value: "Like": supported values: "Equal", "Exists"`,
			`spec.tolerations[0].effect: Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		}},
		{"tolerationSeconds only with NoExecute", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: ptr.To[int64](5)}}
		}, []string{`spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set`}},
		{"toleration without key must be Exists", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpEqual}}
		}, []string{`spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when ` + "`key`" + ` is empty, which means "match all values and all keys"`}},
		{"Exists with a value", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Value: "b"}}
		}, []string{`spec.tolerations[0].operator: Invalid value: "b": value must be empty when ` + "`operator`" + ` is 'Exists'`}},
		{"Lt is off by default", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpLt, Value: "3"}}
		}, []string{`spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"`}},
		{"ephemeral containers on create", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}}
		}, []string{"spec.ephemeralContainers: Forbidden: cannot be set on create"}},
		{"nodeName with scheduling gates", func(p *corev1.Pod) {
			p.Spec.NodeName = "node-a"
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}}
		}, []string{"spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"}},
		{"not defaulted", func(p *corev1.Pod) {
			*p = corev1.Pod{ObjectMeta: p.ObjectMeta, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
		}, []string{
			"spec.terminationGracePeriodSeconds: Required value",
			"spec.containers[0].terminationMessagePolicy: Required value",
			"spec.containers[0].imagePullPolicy: Required value",
			"spec.restartPolicy: Required value",
			"spec.dnsPolicy: Required value",
		}},
		{"errors come in kube-apiserver's order", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "web", ImagePullPolicy: corev1.PullAlways, TerminationMessagePolicy: corev1.TerminationMessageReadFile})
			p.Spec.RestartPolicy = "Sometimes"
		}, []string{
			"spec.containers[1].image: Required value",
			`spec.containers[1].name: Duplicate value: "web"`,
			`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validPod()
			tt.mutate(p)
			before := p.DeepCopy()
			got := registry.ValidatePod(p)
			checkErrors(t, got, tt.want)
			if !apiequality.Semantic.DeepEqual(p, before) {
				t.Error("ValidatePod changed the pod")
			}
		})
	}
}

func TestValidatePodErrorTypes(t *testing.T) {
	p := validPod()
	p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0])
	p.Spec.Containers[0].Image = ""
	p.Spec.Containers[0].ImagePullPolicy = "Sometimes"
	p.Spec.ActiveDeadlineSeconds = ptr.To[int64](-1)
	p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{}}
	want := []struct {
		typ   field.ErrorType
		field string
	}{
		{field.ErrorTypeRequired, "spec.containers[0].image"},
		{field.ErrorTypeNotSupported, "spec.containers[0].imagePullPolicy"},
		{field.ErrorTypeDuplicate, "spec.containers[1].name"},
		{field.ErrorTypeInvalid, "spec.activeDeadlineSeconds"},
		{field.ErrorTypeForbidden, "spec.ephemeralContainers"},
	}
	got := registry.ValidatePod(p)
	if len(got) != len(want) {
		t.Fatalf("got %v, want %d errors", errorStrings(got), len(want))
	}
	for i, w := range want {
		if got[i].Type != w.typ || got[i].Field != w.field {
			t.Errorf("error %d = %s %s, want %s %s", i, got[i].Type, got[i].Field, w.typ, w.field)
		}
	}
}

const updatableList = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

func TestValidatePodUpdate(t *testing.T) {
	tests := []struct {
		name   string
		old    func(p *corev1.Pod)
		mutate func(p *corev1.Pod)
		want   []string
		// diffHas, when set, must appear in the diff after the list of
		// updatable fields of the single Forbidden error.
		diffHas []string
	}{
		{"no change", nil, func(p *corev1.Pod) {}, nil, nil},
		{"image", nil, func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx:1.28" }, nil, nil},
		{"init container image", func(p *corev1.Pod) { *p = *richPod() }, func(p *corev1.Pod) { p.Spec.InitContainers[0].Image = "busybox:2" }, nil, nil},
		{"image removed", nil, func(p *corev1.Pod) { p.Spec.Containers[0].Image = "" }, []string{
			"spec.containers[0].image: Required value",
			"spec.containers[0].image: Required value",
		}, nil},
		{"container added", nil, func(p *corev1.Pod) {
			c := p.Spec.Containers[0]
			c.Name = "two"
			p.Spec.Containers = append(p.Spec.Containers, c)
		}, []string{"spec.containers: Forbidden: pod updates may not add or remove containers"}, nil},
		{"activeDeadlineSeconds set", nil, func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) }, nil, nil},
		{"activeDeadlineSeconds lowered", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](10) }, nil, nil},
		{"activeDeadlineSeconds raised", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](60) },
			[]string{"spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value"}, nil},
		{"activeDeadlineSeconds removed", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](30) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = nil },
			[]string{"spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"}, nil},
		{"toleration added", nil, func(p *corev1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "a", Operator: corev1.TolerationOpExists})
		}, nil, nil},
		{"tolerationSeconds changed", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}}
		}, func(p *corev1.Pod) { p.Spec.Tolerations[0].TolerationSeconds = ptr.To[int64](10) }, nil, nil},
		{"toleration changed", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists}}
		}, func(p *corev1.Pod) { p.Spec.Tolerations[0].Key = "b" },
			[]string{"spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"}, nil},
		{"negative grace period raised to 1", func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](-1) },
			func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1) }, nil, nil},
		{"scheduling gate removed", func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}} },
			func(p *corev1.Pod) { p.Spec.SchedulingGates = nil }, nil, nil},
		{"scheduling gate added", nil, func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}} },
			[]string{"spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'wait'"}, nil},
		{"gated pod gains a nodeSelector entry", func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}}
			p.Spec.NodeSelector = map[string]string{"disk": "ssd"}
		}, func(p *corev1.Pod) {
			p.Spec.SchedulingGates = nil
			p.Spec.NodeSelector["zone"] = "a"
		}, nil, nil},
		{"gated pod changes a nodeSelector entry", func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}}
			p.Spec.NodeSelector = map[string]string{"disk": "ssd"}
		}, func(p *corev1.Pod) { p.Spec.NodeSelector["disk"] = "hdd" },
			[]string{`spec.nodeSelector: Invalid value: {"disk":"hdd"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)`}, nil},
		{"ungated pod may not gain one", nil, func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} },
			[]string{"spec: Forbidden: " + updatableList}, []string{`+ "nodeSelector": {`}},
		{"restartPolicy changed", nil, func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever },
			[]string{"spec: Forbidden: " + updatableList}, []string{`- "restartPolicy": "Always",`, `+ "restartPolicy": "Never",`}},
		{"container port added", nil, func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}}
		}, []string{"spec: Forbidden: " + updatableList}, []string{`"containerPort": 80`}},
		{"invalid new value is reported too", nil, func(p *corev1.Pod) { p.Spec.DNSPolicy = "Google" }, []string{
			`spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`,
			"spec: Forbidden: " + updatableList,
		}, []string{`+ "dnsPolicy": "Google",`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validPod()
			if tt.old != nil {
				tt.old(old)
			}
			p := old.DeepCopy()
			tt.mutate(p)
			oldBefore, pBefore := old.DeepCopy(), p.DeepCopy()
			got := registry.ValidatePodUpdate(p, old)
			// The Forbidden spec error carries a diff after its first line;
			// compare the first line and look for the diff's key lines.
			for _, e := range got {
				if e.Field == "spec" && e.Type == field.ErrorTypeForbidden {
					head, diff, ok := strings.Cut(e.Detail, "\n")
					if !ok {
						t.Errorf("spec error has no diff: %q", e.Detail)
					}
					for _, want := range tt.diffHas {
						if !strings.Contains(diff, want) {
							t.Errorf("diff does not contain %q:\n%s", want, diff)
						}
					}
					e.Detail = head
				}
			}
			checkErrors(t, got, tt.want)
			if !apiequality.Semantic.DeepEqual(old, oldBefore) || !apiequality.Semantic.DeepEqual(p, pBefore) {
				t.Error("ValidatePodUpdate changed a pod")
			}
		})
	}
}

func TestValidatePodUpdateKeepsComparisonOperators(t *testing.T) {
	old := validPod()
	old.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpGt, Value: "3"}}
	p := old.DeepCopy()
	p.Spec.Containers[0].Image = "nginx:2"
	if errs := registry.ValidatePodUpdate(p, old); len(errs) != 0 {
		t.Errorf("errors = %v, want none: a stored pod may keep Gt", errorStrings(errs))
	}
}

func terminated(name string, code int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
}

func running(name string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
}

func TestValidatePodStatusUpdate(t *testing.T) {
	tests := []struct {
		name   string
		old    func(p *corev1.Pod)
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"running with conditions and IPs", nil, func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue},
				{Type: "example.com/warm", Status: corev1.ConditionFalse},
			}
			p.Status.PodIP, p.Status.PodIPs = "10.244.0.5", []corev1.PodIP{{IP: "10.244.0.5"}, {IP: "fd00::5"}}
			p.Status.HostIP, p.Status.HostIPs = "172.18.0.2", []corev1.HostIP{{IP: "172.18.0.2"}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("web")}
		}, nil},
		{"podIP without podIPs is defaulted, not rejected", nil, func(p *corev1.Pod) { p.Status.PodIP = "10.244.0.5" }, nil},
		{"phase and condition status are not checked", nil, func(p *corev1.Pod) {
			p.Status.Phase = "Sleeping"
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: "Perhaps"}}
		}, nil},
		{"condition type", nil, func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: "warm up", Status: corev1.ConditionTrue, ObservedGeneration: -1}}
		}, []string{
			"status.conditions[0].observedGeneration: Invalid value: -1: must be a non-negative integer",
			`status.conditions[0].Type: Invalid value: "warm up": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
		{"bad pod IP", nil, func(p *corev1.Pod) { p.Status.PodIP = "10.244.0.300" },
			[]string{`status.podIPs[0]: Invalid value: "10.244.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"a stored bad pod IP may stay", func(p *corev1.Pod) { p.Status.PodIP = "010.244.0.5" },
			func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }, nil},
		{"two IPv4 pod IPs", nil, func(p *corev1.Pod) {
			p.Status.PodIP, p.Status.PodIPs = "10.0.0.1", []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}
		}, []string{`status.podIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"10.0.0.2"}]: may specify no more than one IP for each IP family`}},
		{"hostIPs[0] differs from hostIP", nil, func(p *corev1.Pod) {
			p.Status.HostIP, p.Status.HostIPs = "172.18.0.2", []corev1.HostIP{{IP: "172.18.0.3"}}
		}, []string{"status.hostIPs[0].ip: Invalid value: \"172.18.0.3\": must be equal to `hostIP`"}},
		{"qosClass is immutable", nil, func(p *corev1.Pod) { p.Status.QOSClass = corev1.PodQOSGuaranteed },
			[]string{`status.qosClass: Invalid value: "Guaranteed": field is immutable`}},
		{"observedGeneration", nil, func(p *corev1.Pod) { p.Status.ObservedGeneration = -2 },
			[]string{"status.observedGeneration: Invalid value: -2: must be a non-negative integer"}},
		{"nominatedNodeName on a bound pod", func(p *corev1.Pod) { p.Spec.NodeName = "node-a" },
			func(p *corev1.Pod) { p.Status.NominatedNodeName = "node-b" },
			[]string{"status.nominatedNodeName: Forbidden: may not be set on pods that are already bound to a node"}},
		{"nodeName changed", nil, func(p *corev1.Pod) { p.Spec.NodeName = "node-a" },
			[]string{"status.nodeName: Forbidden: may not be changed directly"}},
		{"Always: terminated container may run again", func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("web", 0)}
		}, func(p *corev1.Pod) { p.Status.ContainerStatuses = []corev1.ContainerStatus{running("web")} }, nil},
		{"Never: terminated container stays terminated", func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyNever
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("web", 1)}
		}, func(p *corev1.Pod) { p.Status.ContainerStatuses = []corev1.ContainerStatus{running("web")} },
			[]string{"status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"}},
		{"OnFailure: a failed container may run again", func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("web", 1)}
		}, func(p *corev1.Pod) { p.Status.ContainerStatuses = []corev1.ContainerStatus{running("web")} }, nil},
		{"OnFailure: a succeeded container may not", func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("web", 0)}
		}, func(p *corev1.Pod) { p.Status.ContainerStatuses = []corev1.ContainerStatus{running("web")} },
			[]string{"status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"}},
		{"container restart rule overrides the pod policy", func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyNever
			p.Spec.Containers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
			p.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
				ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("web", 42)}
		}, func(p *corev1.Pod) { p.Status.ContainerStatuses = []corev1.ContainerStatus{running("web")} }, nil},
		{"a status for no container may not leave terminated", func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("ghost", 0)}
		}, func(p *corev1.Pod) { p.Status.ContainerStatuses = []corev1.ContainerStatus{running("ghost")} },
			[]string{"status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"}},
		{"sidecar init container may restart", func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyNever
			p.Spec.InitContainers = []corev1.Container{{Name: "proxy", Image: "envoy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("proxy", 0)}
		}, func(p *corev1.Pod) { p.Status.InitContainerStatuses = []corev1.ContainerStatus{running("proxy")} }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validPod()
			old.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort}
			if tt.old != nil {
				tt.old(old)
			}
			p := old.DeepCopy()
			tt.mutate(p)
			before := p.DeepCopy()
			checkErrors(t, registry.ValidatePodStatusUpdate(p, old), tt.want)
			if !apiequality.Semantic.DeepEqual(p, before) {
				t.Error("ValidatePodStatusUpdate changed the pod")
			}
		})
	}
}

// TestPodStrategyValidates checks the wiring: the pods store and the
// pods/status store run the pod rules and answer 422 Invalid.
func TestPodStrategyValidates(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()

	bad := newPod("bad")
	bad.Spec.Containers[0].Image = ""
	bad.Spec.RestartPolicy = "Sometimes"
	_, err := r.Pods.Create(ctx, "default", bad, nil, registry.Options{})
	wantStatus(t, err, 422, `Pod "bad" is invalid: [spec.containers[0].image: Required value, spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"]`)
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 2 || causes[0].Field != "spec.containers[0].image" || causes[0].Type != metav1.CauseTypeFieldValueRequired ||
		causes[1].Field != "spec.restartPolicy" || causes[1].Type != metav1.CauseTypeFieldValueNotSupported {
		t.Errorf("causes = %+v", causes)
	}

	mustCreatePod(t, r, newPod("p"))
	update := func(s *registry.Store, mutate func(*corev1.Pod)) error {
		_, _, err := s.Update(ctx, "default", "p", func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
			c := cur.(*corev1.Pod)
			mutate(c)
			return c, nil
		}, nil, nil, registry.Options{})
		return err
	}
	if err := update(r.Pods, func(c *corev1.Pod) { c.Spec.Containers[0].Image = "nginx:2" }); err != nil {
		t.Fatalf("image update: %v", err)
	}
	err = update(r.Pods, func(c *corev1.Pod) { c.Spec.RestartPolicy = corev1.RestartPolicyNever })
	wantStatus(t, err, 422, `Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `+"`spec.containers[*].image`")

	err = update(r.PodStatus, func(c *corev1.Pod) { c.Status.PodIP = "not-an-ip" })
	wantStatus(t, err, 422, `Pod "p" is invalid: status.podIPs[0]: Invalid value: "not-an-ip": must be a valid IP address`)
	if err := update(r.PodStatus, func(c *corev1.Pod) { c.Status.Phase = corev1.PodRunning; c.Status.PodIP = "10.244.0.9" }); err != nil {
		t.Fatalf("status update: %v", err)
	}
}
