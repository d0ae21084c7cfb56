package api_test

import (
	"bufio"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/api"
)

// TestSlowClientsAreCutOff: a client that never finishes its headers is disconnected after the
// header timeout instead of holding a connection for ever.
func TestSlowClientsAreCutOff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	timeouts := api.DefaultTimeouts(api.DefaultWorkflowTimeout)
	assert.Positive(t, timeouts.Read)
	assert.Greater(t, timeouts.Write, api.DefaultWorkflowTimeout, "an answer that waits for a workflow still gets written")
	assert.Positive(t, timeouts.Idle)
	timeouts.ReadHeader = 200 * time.Millisecond
	srv := api.NewHTTPServer("", http.NotFoundHandler(), timeouts)
	go srv.Serve(ln) //nolint:errcheck // closed below
	defer srv.Close()

	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n")) // and never the blank line
	require.NoError(t, err)
	began := time.Now()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = bufio.NewReader(conn).ReadString('\n')
	assert.Error(t, err, "the server closed the connection")
	assert.Less(t, time.Since(began), 3*time.Second, "after the header timeout, not the test's deadline")
}
