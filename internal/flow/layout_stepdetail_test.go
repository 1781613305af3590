package flow

import "testing"

func TestStepDetailZh(t *testing.T) {
	r := &RequestTrace{Method: "POST", URI: "/api/v1/namespaces/default/pods", Proto: "HTTP/2.0"}
	step := func(name, outcome, detail string, kv ...string) Step {
		s := Step{Name: name, Outcome: outcome, Detail: detail, Fields: map[string]string{}}
		for i := 0; i+1 < len(kv); i += 2 {
			s.Fields[kv[i]] = kv[i+1]
		}
		return s
	}
	tests := []struct {
		name string
		s    Step
		want string
	}{
		{"authenticated", step("authenticated", "ok", `user "admin", groups [system:masters system:authenticated], by x509`,
			"user", "admin", "groups", "system:masters,system:authenticated", "method", "x509"),
			`用户 "admin"，组 [system:masters system:authenticated]，认证方式 x509`},
		{"not authenticated", step("authenticated", "failed", "not authenticated: no credentials", "error", "no credentials"),
			"未通过认证：no credentials"},
		{"RBAC allowed", step("authorized", "allowed", `RBAC: allowed by RoleBinding "dev/team-a" of ClusterRole "edit" to ServiceAccount "builder/team-a"`,
			"authorizer", "RBAC", "reason", `RBAC: allowed by RoleBinding "dev/team-a" of ClusterRole "edit" to ServiceAccount "builder/team-a"`),
			`RBAC：允许，依据是 RoleBinding "dev/team-a"，它把 ClusterRole "edit" 绑定给 ServiceAccount "builder/team-a"`},
		{"Node allowed", step("authorized", "allowed", `Node authorizer: allowed by the rule verbs=[patch update] apiGroups=[""] resources=[pods/status]`,
			"authorizer", "Node", "rule", `verbs=[patch update] apiGroups=[""] resources=[pods/status]`),
			`Node 鉴权器：允许，依据规则 verbs=[patch update] apiGroups=[""] resources=[pods/status]`},
		{"received", step("received", "ok", "POST /api/v1/namespaces/default/pods over HTTP/2.0 from 127.0.0.1:5000", "proto", "HTTP/2.0", "remote", "127.0.0.1:5000"),
			"POST /api/v1/namespaces/default/pods，经 HTTP/2.0，来自 127.0.0.1:5000"},
		{"admission rejected", step("admission", "rejected", `mutating admission plugin NamespaceLifecycle: rejected: namespaces "nope" not found`,
			"plugin", "NamespaceLifecycle", "phase", "mutating", "fields", "", "message", `namespaces "nope" not found`),
			`变更型准入插件 NamespaceLifecycle：驳回：namespaces "nope" not found`},
		{"stored", step("stored", "ok", "etcd update (graceful deletion) /registry/pods/default/p at revision 9",
			"verb", "update (graceful deletion)", "key", "/registry/pods/default/p", "revision", "9"),
			"etcd update（体面删除） /registry/pods/default/p，revision 9"},
		{"read range", step("read", "ok", "etcd range under /registry/pods/: 3 objects at revision 12", "prefix", "/registry/pods/", "count", "3", "revision", "12"),
			"etcd range /registry/pods/ 之下：3 个对象，revision 12"},
		{"responded", step("responded", "ok", "status 201 Created, 2713 bytes", "code", "201", "bytes", "2713"), "状态 201 Created，2713 字节"},
		{"hop", step("kube-apiserver", "served", "kube-apiserver: WebService /api/v1 claims /api/v1/namespaces/default/pods", "server", "kube-apiserver", "hop", "served"),
			"kube-apiserver：WebService /api/v1 认领了 /api/v1/namespaces/default/pods"},
		// A detail its fields do not say all of stays as it was written.
		{"other wording", step("authorized", "allowed", "create too, as upstream asks of a GET that upgrades: RBAC authorizer: allowed",
			"authorizer", "RBAC"), "create too, as upstream asks of a GET that upgrades: RBAC authorizer: allowed"},
		{"upstream's message", step("authorized", "denied", `pods is forbidden: User "student" cannot create resource "pods"`, "reason", ""),
			`pods is forbidden: User "student" cannot create resource "pods"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Layout{Lang: "zh"}).stepDetail(r, tt.s); got != tt.want {
				t.Errorf("zh detail = %q\nwant          %q", got, tt.want)
			}
			if got := (Layout{Lang: "en"}).stepDetail(r, tt.s); got != tt.s.Detail {
				t.Errorf("en detail = %q, want the detail as written", got)
			}
		})
	}
}
