// Package restfullab is kubesim's go-restful dispatch lab: it shows what a
// go-restful Container's dispatch does with one request, and the seed
// article's example of two Containers on two ports.
//
// Curly and JSR311 take the WebServices of a Container (the real
// kube-apiserver's, from Container.RegisteredWebServices) and a Request.
// The route chosen is always go-restful's own: they call the exported
// SelectRoute of restful.CurlyRouter and restful.RouterJSR311, as
// Container.dispatch does. Beside it they recompute, with the rules of
// go-restful v3.14.0 (curly.go, jsr311.go, curly_route.go), what the
// router looked at on its way there: the score of every WebService, the
// routes whose path matched with their scores, in the router's order, and
// why each route passed over by the method, Content-Type and Accept
// checks was passed over. Dispatch.Agrees says whether the recomputation
// reached the route go-restful chose; the package's tests hold it to that.
//
// Hello runs the seed's two Containers: restful.DefaultContainer (a
// WebService added with restful.Add, so served through
// http.DefaultServeMux) and a restful.NewContainer(), each with GET
// /hello, each behind its own http.Server on a loopback port, and calls
// both over HTTP.
//
// The package imports go-restful and the standard library only.
package restfullab
