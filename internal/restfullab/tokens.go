package restfullab

import (
	"fmt"
	"regexp"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
)

// tokens splits a path into its segments as go-restful's tokenizePath
// does: "/" has none; otherwise the path is split at "/" after the
// slashes at its ends are trimmed (both ends while
// restful.TrimRightSlashEnabled, its default; only the left one else).
// An empty segment ("//") stays, as an empty token.
func tokens(path string) []string {
	if path == "/" {
		return nil
	}
	if restful.TrimRightSlashEnabled {
		return strings.Split(strings.Trim(path, "/"), "/")
	}
	return strings.Split(strings.TrimLeft(path, "/"), "/")
}

// customVerb matches a custom verb at the end of a path or token
// (":verb"), as go-restful's custom_verb.go.
var customVerb = regexp.MustCompile(":([A-Za-z]+)$")

// removeCustomVerb drops the custom verb at the end of s.
func removeCustomVerb(s string) string { return customVerb.ReplaceAllString(s, "") }

// matchesCustomVerb says whether requestToken ends in the custom verb of
// routeToken.
func matchesCustomVerb(routeToken, requestToken string) bool {
	m := customVerb.FindStringSubmatch(routeToken)
	if len(m) < 2 {
		return false
	}
	return strings.HasSuffix(requestToken, ":"+m[1])
}

// template is a path template compiled as go-restful's RouterJSR311
// matches it (path_expression.go): every literal segment quoted, a plain
// {var} as ([^/]+?), {var:re} as (re), {var:*} as (.*), and (/.*)? at the
// end, which takes whatever is left of the path.
type template struct {
	// Regexp is the expression's source, as go-restful builds it.
	Regexp string
	// Literals is the number of literal characters (those of the
	// segments that are not variables); Vars the number of variables.
	Literals, Vars int
	matcher        *regexp.Regexp
}

// compileTemplate compiles path as a JSR311 template.
func compileTemplate(path string) (*template, error) {
	t := &template{}
	var b strings.Builder
	b.WriteString("^")
	for _, tok := range tokens(path) {
		if tok == "" {
			continue
		}
		b.WriteString("/")
		if !strings.HasPrefix(tok, "{") {
			t.Literals += len(tok)
			b.WriteString(regexp.QuoteMeta(tok))
			continue
		}
		t.Vars++
		colon := strings.Index(tok, ":")
		switch {
		case colon == -1:
			b.WriteString("([^/]+?)")
		case strings.TrimSpace(tok[colon+1:len(tok)-1]) == "*":
			b.WriteString("(.*)")
		default:
			fmt.Fprintf(&b, "(%s)", strings.TrimSpace(tok[colon+1:len(tok)-1]))
		}
	}
	t.Regexp = strings.TrimRight(b.String(), "/") + "(/.*)?$"
	var err error
	if t.matcher, err = regexp.Compile(t.Regexp); err != nil {
		return nil, fmt.Errorf("restfullab: template %q: %w", path, err)
	}
	return t, nil
}

// relativePath is the path of route inside ws, as the route was declared
// (the part after the WebService's root path), from which RouterJSR311's
// expression of the route is built.
func relativePath(ws *restful.WebService, route restful.Route) string {
	root := strings.TrimRight(ws.RootPath(), "/")
	return "/" + strings.TrimPrefix(route.Path, root+"/")
}
