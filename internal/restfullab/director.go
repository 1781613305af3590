package restfullab

import (
	"strings"

	restful "github.com/emicklei/go-restful/v3"
)

// Claim says which WebService of webServices claims path in
// genericapiserver's director (k8s.io/apiserver's handler.go), which
// decides whether a request goes to the Container's dispatch at all: the
// first WebService whose root path is the path or a prefix of it ending
// at a "/", except /apis, which claims only /apis and /apis/ (it would
// claim every group). A path no WebService claims goes to the server's
// non-go-restful handlers and, in kube-apiserver, on to its delegate.
func Claim(webServices []*restful.WebService, path string) (root string, ok bool) {
	for _, ws := range webServices {
		root := ws.RootPath()
		if root == "/apis" {
			if path == "/apis" || path == "/apis/" {
				return root, true
			}
			continue
		}
		if strings.HasPrefix(path, root) && (len(path) == len(root) || path[len(root)] == '/') {
			return root, true
		}
	}
	return "", false
}
