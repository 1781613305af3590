// Package h2drain ends an HTTP server's HTTP/2 connections at shutdown
// as soon as every response on them is out, rather than after net/http's
// fixed one-second wait for the client to hang up (Drainer). It imports
// no kubesim component.
package h2drain
