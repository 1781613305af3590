// Package headless holds the one way kubesim starts Debian's Chromium
// headless for its browser tests and hack/ tools: the flags that let it
// run as root on a machine with no network but loopback.
package headless
