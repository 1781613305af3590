package flow

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// stepDetail is s's detail (a step of r) in l's language. In English it
// is s.Detail as the component wrote it. In Chinese, kubesim's own words
// are written again from the step's Fields, protocol tokens (methods,
// paths, users, groups, binding and role names, plugin names, field
// paths, keys, codes) kept as they are, but only when s.Detail is
// exactly what its English form says: any other detail stays as it was
// written, and so do kube-apiserver's own messages (a 403's message, a
// decoding error).
func (l Layout) stepDetail(r *RequestTrace, s Step) string {
	if l.Lang != "zh" || s.Detail == "" {
		return s.Detail
	}
	f, ok := stepDetails[s.Name]
	if !ok {
		return s.Detail
	}
	if en, zh := f(r, s); en == s.Detail && zh != "" {
		return zh
	}
	return s.Detail
}

// A detailFunc writes a step's detail from its Fields in English (to be
// compared with the detail the component wrote) and in Chinese.
type detailFunc func(r *RequestTrace, s Step) (en, zh string)

// stepDetails are the steps whose details have a Chinese form, by
// Step.Name.
var stepDetails = map[string]detailFunc{
	"received":      receivedDetail,
	"goroutine":     goroutineDetail,
	"authenticated": authenticatedDetail,
	"authorized":    authorizedDetail,
	"decoded":       decodedDetail,
	"defaulted":     defaultedDetail,
	"admission":     admissionDetail,
	"read":          readDetail,
	"stored":        storedDetail,
	"responded":     respondedDetail,
	"held":          heldDetail,
	// The servers of the delegation chain.
	"aggregator":     hopDetail,
	"kube-apiserver": hopDetail,
	"apiextensions":  hopDetail,
	"not-found":      hopDetail,
}

func receivedDetail(r *RequestTrace, s Step) (string, string) {
	if r == nil {
		return "", ""
	}
	proto, remote := s.Fields["proto"], s.Fields["remote"]
	return fmt.Sprintf("%s %s over %s from %s", r.Method, r.URI, proto, remote),
		fmt.Sprintf("%s %s，经 %s，来自 %s", r.Method, r.URI, proto, remote)
}

func goroutineDetail(_ *RequestTrace, s Step) (string, string) {
	gid := s.Fields["goroutine"]
	const h2 = "net/http's HTTP/2 server runs each stream (one request) on a goroutine of its own, beside the connection's reader; this request runs on goroutine "
	if s.Detail == h2+gid {
		return s.Detail, "net/http 的 HTTP/2 服务端让每个 stream（一个请求）在自己的 goroutine 上运行，与读取该连接的 goroutine 并行；这个请求运行在 goroutine " + gid + " 上"
	}
	return "net/http serves each HTTP/1.1 connection on a goroutine of its own, which runs its requests one after another; this request runs on goroutine " + gid,
		"net/http 为每个 HTTP/1.1 连接开一个 goroutine，由它依次处理该连接上的请求；这个请求运行在 goroutine " + gid + " 上"
}

func authenticatedDetail(_ *RequestTrace, s Step) (string, string) {
	if s.Outcome != "ok" {
		why := s.Fields["error"]
		return "not authenticated: " + why, "未通过认证：" + why
	}
	user, method := s.Fields["user"], s.Fields["method"]
	groups := []string{}
	if g := s.Fields["groups"]; g != "" {
		groups = strings.Split(g, ",")
	}
	return fmt.Sprintf("user %q, groups %v, by %s", user, groups, method),
		fmt.Sprintf("用户 %q，组 %v，认证方式 %s", user, groups, method)
}

// rbacAllowed is the reason kube-apiserver's RBAC authorizer gives when
// it allows a request: the binding, its role and the subject it binds.
var rbacAllowed = regexp.MustCompile(`^RBAC: allowed by (ClusterRoleBinding|RoleBinding) ("[^"]*") of (ClusterRole|Role) ("[^"]*") to (\w+ "[^"]*")$`)

func authorizedDetail(_ *RequestTrace, s Step) (string, string) {
	if s.Outcome != "allowed" {
		return "", ""
	}
	if reason := s.Fields["reason"]; reason != "" {
		m := rbacAllowed.FindStringSubmatch(reason)
		if m == nil {
			return "", ""
		}
		return reason, fmt.Sprintf("RBAC：允许，依据是 %s %s，它把 %s %s 绑定给 %s", m[1], m[2], m[3], m[4], m[5])
	}
	authorizer, rule := s.Fields["authorizer"], s.Fields["rule"]
	if rule == "" {
		return authorizer + " authorizer: allowed", authorizer + " 鉴权器：允许"
	}
	return authorizer + " authorizer: allowed by the rule " + rule, authorizer + " 鉴权器：允许，依据规则 " + rule
}

func decodedDetail(_ *RequestTrace, s Step) (string, string) {
	if s.Outcome != "ok" {
		return "", ""
	}
	n, ct := s.Fields["bytes"], s.Fields["contentType"]
	gvk, ok := s.Fields["kind"]
	if !ok {
		return fmt.Sprintf("%s bytes of %s", n, ct), fmt.Sprintf("%s 字节的 %s", n, ct)
	}
	_, kind, _ := strings.Cut(gvk, "Kind=")
	return fmt.Sprintf("%s bytes of %s decoded as %s", n, ct, kind), fmt.Sprintf("%s 字节的 %s，解码为 %s", n, ct, kind)
}

func defaultedDetail(_ *RequestTrace, s Step) (string, string) {
	return "defaults applied: " + s.Fields["fields"], "填充的默认值：" + s.Fields["fields"]
}

// admissionPhases are an admission Outcome's phases in both languages.
var admissionPhases = map[string]Text{
	"mutating":   {En: "mutating", Zh: "变更型"},
	"validating": {En: "validating", Zh: "验证型"},
}

func admissionDetail(_ *RequestTrace, s Step) (string, string) {
	phase, plugin, fields, msg := s.Fields["phase"], s.Fields["plugin"], s.Fields["fields"], s.Fields["message"]
	en := fmt.Sprintf("%s admission plugin %s: %s", phase, plugin, s.Outcome)
	zh := fmt.Sprintf("%s准入插件 %s：%s", admissionPhases[phase].In("zh"), plugin, outcomes[s.Outcome].In("zh"))
	switch {
	case fields != "":
		en, zh = en+" "+fields, zh+" "+fields
	case msg != "":
		en, zh = en+": "+msg, zh+"："+msg
	}
	if _, ok := admissionPhases[phase]; !ok {
		return "", ""
	}
	return en, zh
}

func readDetail(_ *RequestTrace, s Step) (string, string) {
	rev := s.Fields["revision"]
	if prefix, ok := s.Fields["prefix"]; ok {
		n := s.Fields["count"]
		return fmt.Sprintf("etcd range under %s: %s objects at revision %s", prefix, n, rev),
			fmt.Sprintf("etcd range %s 之下：%s 个对象，revision %s", prefix, n, rev)
	}
	key := s.Fields["key"]
	return fmt.Sprintf("etcd get %s: revision %s", key, rev), fmt.Sprintf("etcd get %s：revision %s", key, rev)
}

// storedVerbs are the words in parentheses after a stored step's verb
// ("update (graceful deletion)") that are not protocol tokens.
var storedVerbs = strings.NewReplacer(" (graceful deletion)", "（体面删除）", " (", "（", ")", "）")

func storedDetail(_ *RequestTrace, s Step) (string, string) {
	verb, key, rev := s.Fields["verb"], s.Fields["key"], s.Fields["revision"]
	if verb == "" {
		return "", ""
	}
	return fmt.Sprintf("etcd %s %s at revision %s", verb, key, rev),
		fmt.Sprintf("etcd %s %s，revision %s", storedVerbs.Replace(verb), key, rev)
}

func respondedDetail(_ *RequestTrace, s Step) (string, string) {
	code, n := s.Fields["code"], s.Fields["bytes"]
	c, _ := strconv.Atoi(code)
	text := http.StatusText(c)
	return fmt.Sprintf("status %s %s, %s bytes", code, text, n), fmt.Sprintf("状态 %s %s，%s 字节", code, text, n)
}

func heldDetail(_ *RequestTrace, s Step) (string, string) {
	pt, held := s.Fields["point"], s.Fields["held"]
	if s.Outcome != "ok" {
		return "", ""
	}
	return fmt.Sprintf("held by the step gate at %s for %s (the request timeout does not count it)", pt, held),
		fmt.Sprintf("在 %s 处被步进闸门暂停了 %s（不计入请求超时）", pt, held)
}

// hopTexts are what a server of the delegation chain did with a
// request, in both languages: a pattern of the English text and a
// format of the Chinese one taking the pattern's submatches.
var hopTexts = []struct {
	en *regexp.Regexp
	zh string
}{
	{regexp.MustCompile(`^APIService (\S+) is Local: delegated to kube-apiserver$`), "APIService %s 是 Local 的：委托给 kube-apiserver"},
	{regexp.MustCompile(`^no APIService claims (\S+): delegated to kube-apiserver$`), "没有 APIService 认领 %s：委托给 kube-apiserver"},
	{regexp.MustCompile(`^WebService (\S+) claims (\S+)$`), "WebService %s 认领了 %s"},
	{regexp.MustCompile(`^its non-go-restful mux serves (\S+)$`), "由它的非 go-restful mux 处理 %s"},
	{regexp.MustCompile(`^no route for (\S+), delegated$`), "没有 %s 的路由，委托给下一个服务器"},
	{regexp.MustCompile(`^no server of the chain serves (\S+)$`), "委托链上没有服务器处理 %s"},
	{regexp.MustCompile(`^served by CRD (\S+)$`), "由 CRD %s 处理"},
}

func hopDetail(_ *RequestTrace, s Step) (string, string) {
	server := s.Fields["server"]
	text, ok := strings.CutPrefix(s.Detail, server+": ")
	if !ok {
		return "", ""
	}
	for _, h := range hopTexts {
		if m := h.en.FindStringSubmatch(text); m != nil {
			args := make([]any, len(m)-1)
			for i, a := range m[1:] {
				args[i] = a
			}
			return s.Detail, server + "：" + fmt.Sprintf(h.zh, args...)
		}
	}
	return "", ""
}
