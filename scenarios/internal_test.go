package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestUnfoldCJK(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"上报状态， 最后写入", "上报状态，最后写入"},
		{"调度器 选定节点", "调度器选定节点"},
		{"Pod 写入 etcd", "Pod 写入 etcd"},
		{"（fieldSelector spec.nodeName=）", "（fieldSelector spec.nodeName=）"},
		{"the pod is Running", "the pod is Running"},
		{"节点 node-1 上", "节点 node-1 上"},
	} {
		if got := unfoldCJK(tc.in); got != tc.want {
			t.Errorf("unfoldCJK(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSchedulingTableLoneNode(t *testing.T) {
	var lines []string
	line := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	writeSchedulingTable(line, &flow.SchedulingDecision{Attempt: 1, Chosen: "node-1", Nodes: []flow.NodeVerdict{
		{Node: "node-1", Feasible: true},
		{Node: "node-2", FailedPlugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}},
	}})
	got := strings.Join(lines, "\n")
	for _, want := range []string{"2 nodes", "node-1       fits; the only node that does, so scoring is skipped", "node-2       filtered out by NodeResourcesFit: Insufficient cpu", "chosen: node-1"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}
