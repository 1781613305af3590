package embedetcd

import (
	"fmt"
	"io"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/api/resource"
)

// WriteMemberTable writes members as kubesim etcd members prints them:
// the columns of etcdctl's member list and endpoint status that fit 80
// columns, then one line per member that did not answer, and a line
// when no member that answered leads.
func WriteMemberTable(out io.Writer, members []MemberStatus) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tLEADER\tRAFT TERM\tRAFT INDEX\tDB SIZE\tCLIENT URL")
	var down []string
	for _, m := range members {
		id := fmt.Sprintf("%x", m.ID)
		if m.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\t?\t?\t?\t?\t%s\n", m.Name, id, m.Endpoint)
			down = append(down, fmt.Sprintf("%s did not answer: %v", m.Name, m.Err))
			continue
		}
		leader := ""
		if m.IsLeader {
			leader = "*"
		}
		size := resource.NewQuantity(m.DBSize, resource.BinarySI)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", m.Name, id, leader, m.RaftTerm, m.RaftIndex, size, m.Endpoint)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range down {
		fmt.Fprintln(out, d)
	}
	if _, ok := LeaderOf(members); !ok {
		fmt.Fprintln(out, "no member that answered is the raft leader: the cluster has no quorum, or is electing one")
	}
	return nil
}
