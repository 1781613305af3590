package scenarios

import "testing"

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
