package apiserver

import restful "github.com/emicklei/go-restful/v3"

// RestfulContainer returns kube-apiserver's go-restful Container: the one
// that serves the built-in groups and their discovery (with CurlyRouter),
// behind the director that claims their paths. It is for looking at, as
// the go-restful dispatch lab does (its RegisteredWebServices): callers
// must not add or remove WebServices. It is set by New and never changes.
func (s *Server) RestfulContainer() *restful.Container { return s.container }
