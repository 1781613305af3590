package scenarios

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync/atomic"
)

// wireMeter counts what one client's transport moved: the connections it
// dialed, and the bytes read and written on them, as HTTP/1.1 (status and
// request lines, headers, chunk framing and bodies, after TLS decryption)
// and as TLS (every byte of the TCP connection: handshakes and record
// framing included). Its counters are safe for the transport's
// goroutines.
type wireMeter struct {
	connections     atomic.Int64
	httpIn, httpOut atomic.Int64
	tlsIn, tlsOut   atomic.Int64
}

// countingConn counts the bytes read from and written to its Conn.
type countingConn struct {
	net.Conn
	in, out *atomic.Int64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.in.Add(int64(n))
	return n, err
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.out.Add(int64(n))
	return n, err
}

// meteredHTTP1Transport returns a transport to the API server that
// speaks HTTP/1.1 only (ALPN offers http/1.1), with the client's TLS
// configuration, keeping idle connections for reuse, and counting into
// m.
func (hc *httpClient) meteredHTTP1Transport(m *wireMeter) *http.Transport {
	protos := new(http.Protocols)
	protos.SetHTTP1(true)
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		raw, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := hc.tls.Clone()
		tc.NextProtos = []string{"http/1.1"}
		if tc.ServerName == "" {
			tc.ServerName = hc.base.Hostname()
		}
		conn := tls.Client(countingConn{Conn: raw, in: &m.tlsIn, out: &m.tlsOut}, tc)
		if err := conn.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		m.connections.Add(1)
		return countingConn{Conn: conn, in: &m.httpIn, out: &m.httpOut}, nil
	}
	return &http.Transport{Protocols: protos, DialTLSContext: dial, MaxConnsPerHost: 1, DisableCompression: true}
}
