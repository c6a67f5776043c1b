// Package rawclient sends HTTP/1.1 requests over a bare TCP connection,
// for tests that need a client behaving in one exact way.
package rawclient

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"time"
)

// SendWhole writes a POST to path with a body of n bytes the way most
// clients do, the whole body before reading anything, over a connection
// with a small send buffer (as over a real network, the body is still on
// its way when the server answers), and returns the answer's status. err
// is the failure to write or read: a server that closes the connection
// with the body unread resets it.
func SendWhole(addr, path string, header http.Header, n int) (status int, err error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if err := conn.(*net.TCPConn).SetWriteBuffer(16 << 10); err != nil {
		return 0, err
	}
	if err := conn.SetDeadline(time.Now().Add(20 * time.Second)); err != nil {
		return 0, err
	}
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", path, addr, n)
	if err := header.Write(&head); err != nil {
		return 0, err
	}
	head.WriteString("\r\n")
	if _, err := conn.Write(head.Bytes()); err != nil {
		return 0, err
	}
	if _, err := conn.Write(bytes.Repeat([]byte("a"), n)); err != nil {
		return 0, fmt.Errorf("writing the body: %w", err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, fmt.Errorf("reading the answer: %w", err)
	}
	res.Body.Close()
	return res.StatusCode, nil
}
