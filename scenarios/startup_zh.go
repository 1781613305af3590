package scenarios

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
)

// startupOutcomesZh are the Chinese forms of a startup step's outcome.
var startupOutcomesZh = map[string]string{
	"ok": "成功", "failed": "失败", "started": "已启动", "finished": "已结束",
	"bound": "已绑定", "built": "已构建", "skipped": "跳过", "listening": "监听中",
}

// startupDetailZh are the Chinese forms of the details kubesim writes
// into its startup steps (package cluster and serverchain), each an
// English pattern whose groups (addresses, paths, counts, names) are kept
// as they are. A detail no pattern matches (an error's text, a hook's
// name) stays as it is.
var startupDetailZh = []struct {
	en *regexp.Regexp
	zh string
}{
	{regexp.MustCompile(`^address (\S+), port (\d+), speed (\S+), (\d+) nodes?, data dir (.*); no default left to fill$`),
		"地址 $1，端口 $2，速度 $3，$4 个节点，数据目录 $5；没有需要补的默认值"},
	{regexp.MustCompile(`^address (\S+), port (\d+), speed (\S+), (\d+) nodes?, data dir (.*); defaults filled: (.*)$`),
		"地址 $1，端口 $2，速度 $3，$4 个节点，数据目录 $5；补上的默认值：$6"},
	{regexp.MustCompile(`^every option is valid$`), "所有选项都有效"},
	{regexp.MustCompile(`^embedded member at (\S+), data in (\S+) \(kubesim's own step: kube-apiserver starts no etcd, it connects to --etcd-servers\)$`),
		"内嵌的 etcd 成员，地址 $1，数据在 $2（kubesim 自己的一步：kube-apiserver 不启动 etcd，它连接 --etcd-servers 给出的 etcd）"},
	{regexp.MustCompile(`^external cluster at (\S+) \(connected; a read answered\)$`), "外部 etcd 集群 $1（已连接；一次读取得到了回答）"},
	{regexp.MustCompile(`^(\S+) \(HTTP/2 and HTTP/1\.1\)$`), "$1（HTTP/2 和 HTTP/1.1）"},
	{regexp.MustCompile(`^(\S+), delegate (.+?): (.*)$`), "$1，委托给（delegate）$2：$3"},
	{regexp.MustCompile(`^kubesim's own step: watch caches and RBAC cache loaded before it serves \(kube-apiserver serves first, and its readyz waits for them: (.*)\)$`),
		"kubesim 自己的一步：开始服务之前先加载 watch 缓存和 RBAC 缓存（kube-apiserver 先开始服务，由它的 readyz 等待这些缓存：$1）"},
	{regexp.MustCompile(`^accepting requests; readyz fails until every post-start hook has finished$`),
		"开始接受请求；每个 post-start hook 结束之前，readyz 都失败"},
	{regexp.MustCompile(`^every post-start hook has returned$`), "每个 post-start hook 都已返回"},
	{regexp.MustCompile(`^GET /readyz answered 200: the API server is ready$`), "GET /readyz 回答 200：API Server 已就绪"},
	{regexp.MustCompile(`^service-account-controller made default/default: pods may be created$`),
		"service-account-controller 创建了 default/default：可以创建 Pod 了"},
	{regexp.MustCompile(`^(\S+) \(kubesim node list\|stop\|start\)$`), "$1（供 kubesim node list|stop|start 使用）"},
}

// serverDescriptionZh are the Chinese forms of what each server of the
// chain serves (package serverchain's descriptions), and the words of the
// chain's end and of the components started.
var serverDescriptionZh = strings.NewReplacer(
	"the not-found handler", "not-found 处理器",
	"a temporary directory", "一个临时目录",
	"go-restful WebServices ", "go-restful WebService ",
	"; custom resources, under /apis, by its CRD handler outside go-restful", "；/apis 下的自定义资源由它在 go-restful 之外的 CRD 处理器服务",
	"the core (legacy) group at /api/v1: WebService /api/v1", "核心（legacy）组在 /api/v1：WebService /api/v1",
	", installed by apiserver's InstallAPIGroups in the same loop as the other groups (upstream: InstallLegacyAPIGroup, called by controlplane's InstallAPIs for the group named \"\")",
	"，由 apiserver 的 InstallAPIGroups 和其他组在同一个循环里安装（上游：InstallLegacyAPIGroup，由 controlplane 的 InstallAPIs 为名为 \"\" 的组调用）",
	" group-versions under /apis", " 个组版本在 /apis 下",
	"; its post-start hooks registered", "；它的 post-start hook 已注册",
	"; /apis and each APIService's path; /healthz, /livez, /readyz and /metrics on its own mux; the handler chain's filters wrap it: every request enters the chain here",
	"；/apis 和每个 APIService 的路径；它自己的 mux 上有 /healthz、/livez、/readyz 和 /metrics；handler chain 的过滤器包在它外面：每个请求都从这里进入服务链",
	" routes)", " 条路由）", " route)", " 条路由）", " (", "（", "), ", "），", "); ", "）；",
	"; ", "；", ", ", "，",
)

// componentsZh are the Chinese forms of the components step's parts.
var componentsZh = map[string]string{
	"scheduler": "调度器", "controller manager": "控制器管理器",
	"a kubelet for each Node created":                    "每创建一个 Node 就为它起一个 kubelet",
	"metrics server (APIService v1beta1.metrics.k8s.io)": "metrics server（APIService v1beta1.metrics.k8s.io）",
	"none (API only)":                                    "无（只有 API）",
}

// startupDetailZhOf returns the Chinese form of the detail of a startup
// step called name.
func startupDetailZhOf(name, detail string) string {
	if name == "components" {
		parts := strings.Split(detail, "; ")
		for i, p := range parts {
			if zh, ok := componentsZh[p]; ok {
				parts[i] = zh
			} else if nodes, ok := strings.CutPrefix(p, "kubelets "); ok {
				parts[i] = "kubelet：" + nodes
			}
		}
		return strings.Join(parts, "；")
	}
	for _, p := range startupDetailZh {
		if p.en.MatchString(detail) {
			return serverDescriptionZh.Replace(p.en.ReplaceAllString(detail, p.zh))
		}
	}
	return detail
}

// startupLine is s as serve --trace prints it, in both languages: the
// phase and step names are kube-apiserver's and kubesim's tokens, kept;
// the outcome and kubesim's own words are translated.
func startupLine(s cluster.StartupStep) flow.Text {
	outcome := s.Outcome
	if zh, ok := startupOutcomesZh[outcome]; ok {
		outcome = zh
	}
	at := strings.Fields(s.String())[0]
	zh := fmt.Sprintf("%9s  %-8s %-14s %s %s", at, s.Phase, s.Name, flow.Pad(outcome, 9), startupDetailZhOf(s.Name, s.Detail))
	return flow.Text{En: s.String(), Zh: flow.Printable(zh)}
}
