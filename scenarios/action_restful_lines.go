package scenarios

import (
	"fmt"
	"strings"
	"unicode"

	restful "github.com/emicklei/go-restful/v3"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/restfullab"
)

// The go-restful lab's transcript fits the TUI's 80 columns (the plain
// printer indents it by two): lists are cut at these lengths, with a line
// that says how many were left out.
const (
	labLineWidth  = 76
	labMaxRoutes  = 6
	labRootsLines = 3
)

// labWidth is the number of columns s takes on a terminal: two for a Han
// character or full-width punctuation, one for anything else.
func labWidth(s string) int {
	w := 0
	for _, r := range s {
		w++
		if unicode.Is(unicode.Han, r) || (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFF65) {
			w++
		}
	}
	return w
}

// labLines writes the lab's evidence to a step's transcript, each line in
// English and Chinese.
type labLines struct{ res *StepResult }

// add appends one line, its English and Chinese forms made from the same
// arguments.
func (l labLines) add(en, zh string, args ...any) {
	t := flow.Text{En: fmt.Sprintf(en, args...), Zh: fmt.Sprintf(zh, args...)}
	l.res.HTTP = append(l.res.HTTP, t.En)
	l.res.Transcript = append(l.res.Transcript, t)
}

// addText appends one line given in both languages.
func (l labLines) addText(t flow.Text) {
	l.res.HTTP = append(l.res.HTTP, t.En)
	l.res.Transcript = append(l.res.Transcript, t)
}

// container writes the Container's WebServices (their root paths,
// wrapped, cut after labRootsLines lines) and what the director of
// kube-apiserver does with path before any router sees it.
// labMoreWidth is the room " … and N more" (or its Chinese, two columns
// a character) takes at the end of the last line of root paths.
const labMoreWidth = 16

func (l labLines) container(webServices []*restful.WebService, path string) {
	l.add("kube-apiserver's Container has %d WebServices (root paths):", "kube-apiserver 的 Container 有 %d 个 WebService（根路径）：", len(webServices))
	var line []string
	lines, width, shown := 0, 2, 0
	for i, ws := range webServices {
		root := ws.RootPath()
		limit := labLineWidth
		if lines == labRootsLines-1 && i < len(webServices)-1 {
			limit -= labMoreWidth // the last line may have to say how many more
		}
		if width+len(root)+1 > limit {
			if lines++; lines == labRootsLines {
				break
			}
			l.add("  %s", "  %s", strings.Join(line, " "))
			line, width = nil, 2
		}
		line, width, shown = append(line, root), width+len(root)+1, shown+1
	}
	if rest := len(webServices) - shown; rest > 0 {
		l.add("  %s … and %d more", "  %s …… 另有 %d 个", strings.Join(line, " "), rest)
	} else if len(line) > 0 {
		l.add("  %s", "  %s", strings.Join(line, " "))
	}
	if root, ok := restfullab.Claim(webServices, path); ok {
		l.add("director: WebService %s claims the path,", "director：WebService %s 认领这个路径，", root)
		l.add("  so the request goes to Container.Dispatch", "  于是请求交给 Container.Dispatch")
	} else {
		l.add("director: no WebService claims the path: kube-apiserver delegates it", "director：没有 WebService 认领这个路径，kube-apiserver 把请求交给下一个服务器")
		l.add("  (the lab asks the router all the same)", "  （实验仍然把它交给路由器看看）")
	}
}

// dispatch writes what one router did: the WebServices that matched,
// with their scores, the routes that matched, in the router's order, and
// go-restful's choice.
func (l labLines) dispatch(d *restfullab.Dispatch) {
	r := d.Request
	l.add("-- %s.SelectRoute:", "-- %s.SelectRoute：", d.Router)
	l.add("   %s %s", "   %s %s", r.Method, r.Path)
	if d.Router == restfullab.RouterJSR311 {
		l.add("   (a Container with Router(restful.RouterJSR311{}), same WebServices)", "   （假设 Container 用 Router(restful.RouterJSR311{})，WebService 不变）")
	}
	if r.ContentType != "" || r.Accept != "" {
		l.add("   Content-Type: %q, Accept: %q", "   Content-Type：%q，Accept：%q", r.ContentType, r.Accept)
	}
	l.webServices(d)
	if d.WebService != "" {
		l.routes(d)
	}
	l.result(d)
}

// webServices writes the WebServices whose root path matched.
func (l labLines) webServices(d *restfullab.Dispatch) {
	if d.Router == restfullab.CurlyRouter {
		l.add("WebServices matching (score: a literal segment n from the end, 10×n):", "匹配的 WebService（得分：倒数第 n 个字面段记 10×n 分）：")
	} else {
		l.add("WebServices matching (submatches, literal characters, variables):", "匹配的 WebService（子匹配数、字面字符数、变量数）：")
	}
	others := 0
	for _, ws := range d.WebServices {
		if !ws.Matches {
			others++
			continue
		}
		mark, markZh := "", ""
		if ws.RootPath == d.WebService {
			mark, markZh = "  ← chosen", "  ← 选中"
		}
		if d.Router == restfullab.CurlyRouter {
			l.addText(flow.Text{En: fmt.Sprintf("  %s  score %d%s", ws.RootPath, ws.Score, mark), Zh: fmt.Sprintf("  %s  得分 %d%s", ws.RootPath, ws.Score, markZh)})
			continue
		}
		keys := fmt.Sprintf("  %s  [%d,%d,%d]", ws.RootPath, ws.Groups, ws.Literals, ws.Vars)
		l.addText(flow.Text{En: keys + mark, Zh: keys + markZh})
		l.add("    %s", "    %s", ws.Regexp)
		if ws.RootPath == d.WebService {
			l.add("    leaves %q for the routes", "    留给 Route 匹配的部分：%q", ws.FinalMatch)
		}
	}
	l.add("  (%d others do not match)", "  （其余 %d 个不匹配）", others)
}

// routes writes the routes of the chosen WebService whose path matched,
// in the router's order, with their keys and what detectRoute did with
// each, cut after labMaxRoutes.
func (l labLines) routes(d *restfullab.Dispatch) {
	l.add("routes of %s matching: %d of %d", "%s 中匹配的 Route：%d 个（共 %d 个）", d.WebService, len(d.Candidates), d.Routes)
	if len(d.Candidates) > 0 && d.Router == restfullab.CurlyRouter {
		l.add("  [static segments, variables], in CurlyRouter's order:", "  [静态段数, 变量数]，按 CurlyRouter 的顺序：")
	} else if len(d.Candidates) > 0 {
		l.add("  [literal characters, submatches, variables], in RouterJSR311's order:", "  [字面字符数, 子匹配数, 变量数]，按 RouterJSR311 的顺序：")
	}
	for i, c := range d.Candidates {
		if i == labMaxRoutes {
			l.add("  … and %d more", "  …… 另有 %d 个", len(d.Candidates)-i)
			break
		}
		keys := fmt.Sprintf("[%d,%d]", c.Static, c.Params)
		if d.Router == restfullab.RouterJSR311 {
			keys = fmt.Sprintf("[%d,%d,%d]", c.Literals, c.Groups, c.Vars)
		}
		en, zh := outcomeWords(c.Outcome)
		line := "  " + keys + " " + c.Method + " " + c.Path
		if max(labWidth(line+en), labWidth(line+zh)) > labLineWidth {
			// Cut the WebService's root path, which the heading names.
			line = "  " + keys + " " + c.Method + " …" + strings.TrimPrefix(c.Path, strings.TrimRight(d.WebService, "/"))
		}
		l.addText(flow.Text{En: line + en, Zh: line + zh})
	}
}

// outcomeWords says what detectRoute did with a route, after it.
func outcomeWords(outcome string) (en, zh string) {
	switch outcome {
	case restfullab.OutcomeChosen:
		return "  ← chosen", "  ← 选中"
	case restfullab.OutcomeMethod:
		return "  (method)", "  （方法不符）"
	case restfullab.OutcomeContentType:
		return "  (Content-Type)", "  （Content-Type 不符）"
	case restfullab.OutcomeAccept:
		return "  (Accept)", "  （Accept 不符）"
	case restfullab.OutcomeCondition:
		return "  (If condition)", "  （If 条件不成立）"
	case restfullab.OutcomeLater:
		return "  (after the chosen)", "  （排在选中者之后）"
	}
	return "", ""
}

// result writes go-restful's choice: the route, its operation and path
// parameters, or the error Container.dispatch answers with.
func (l labLines) result(d *restfullab.Dispatch) {
	if d.Route == nil {
		msg := ""
		if d.Err != nil {
			msg = fmt.Sprintf("%d %q", d.Err.Code, d.Err.Message)
			if d.Err.Allow != "" {
				msg += ", Allow: " + d.Err.Allow
			}
		}
		l.add("→ no route: %s", "→ 没有 Route：%s", msg)
		return
	}
	l.add("→ %s", "→ %s", d.Route)
	l.add("  operation: %s", "  operation：%s", d.Route.Operation)
	if len(d.Params) == 0 {
		l.add("  no path parameters", "  没有路径参数")
		return
	}
	l.add("  path parameters: %s", "  路径参数：%s", formatParams(d.Params))
}

// compare writes whether the two routers chose alike.
func (l labLines) compare(curly, jsr *restfullab.Dispatch) {
	a, b := choiceText(curly), choiceText(jsr)
	if a == b {
		l.add("== both routers choose the same:", "== 两个路由器结果相同：")
		l.addText(flow.Text{En: "   " + a.En, Zh: "   " + a.Zh})
		return
	}
	l.add("== the routers differ:", "== 两个路由器的结果不同：")
	l.addText(flow.Text{En: "   CurlyRouter: " + a.En, Zh: "   CurlyRouter：" + a.Zh})
	l.addText(flow.Text{En: "   RouterJSR311: " + b.En, Zh: "   RouterJSR311：" + b.Zh})
}

// choiceText is go-restful's choice in d in both languages: the route,
// or the error code.
func choiceText(d *restfullab.Dispatch) flow.Text {
	if d.Route != nil {
		return flow.Text{En: d.Route.String(), Zh: d.Route.String()}
	}
	code := 0
	if d.Err != nil {
		code = d.Err.Code
	}
	return flow.Text{En: fmt.Sprintf("no route (%d)", code), Zh: fmt.Sprintf("没有 Route（%d）", code)}
}
