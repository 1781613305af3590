package main

import (
	"regexp"
	"strings"
)

// isRawGet, isTableGet, isWatch and isDescribe tell the kubectl command
// lines whose stdout a rule rewrites: get --raw; get printing a table;
// get --watch; describe.
func isRawGet(cmd string) bool { return strings.HasPrefix(cmd, "kubectl get --raw ") }

func isTableGet(cmd string) bool {
	return strings.HasPrefix(cmd, "kubectl get ") && !isRawGet(cmd) && !isWatch(cmd) && !strings.Contains(cmd, " -o yaml")
}

func isWatch(cmd string) bool {
	return strings.HasPrefix(cmd, "kubectl get ") && strings.Contains(cmd, " --watch")
}

func isDescribe(cmd string) bool { return strings.HasPrefix(cmd, "kubectl describe ") }

// serviceRange matches the IPv4 addresses of the service range
// 10.96.0.0/12.
var serviceRange = regexp.MustCompile(`\b10\.(?:9[6-9]|10[0-9]|11[01])\.\d{1,3}\.\d{1,3}\b`)

// clusterIPs replaces the cluster IPs of the service range but
// 10.96.0.1.
func clusterIPs(s string) string {
	return serviceRange.ReplaceAllStringFunc(s, func(ip string) string {
		if ip == "10.96.0.1" {
			return ip
		}
		return "<cluster-ip>"
	})
}
