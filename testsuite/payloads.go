package testsuite

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/codec"
	"github.com/bookflow/bookflow/worker"
)

// recordingPayloadKeys seal the payloads of systems with SealPayloads, and so of the sealed
// recordings in workflows/testdata/histories (*-sealed.json), which the replay test opens with
// the same key. A test key, public here: never deploy it.
const recordingPayloadKeys = "recordings-2026-12:Ym9va2Zsb3ctcmVjb3JkaW5ncy10ZXN0LWtleS0zMmI="

// RecordingPayloadKeys are the keys of recordingPayloadKeys, sealing.
func RecordingPayloadKeys() *codec.Keys { return recordingKeys("recordings-2026-12") }

func recordingKeys(current string) *codec.Keys {
	k, err := codec.ParseKeys(recordingPayloadKeys, current)
	if err != nil {
		panic(err)
	}
	return k
}

func payloadKeys(o SystemOptions) *codec.Keys {
	switch {
	case o.SealPayloads:
		return RecordingPayloadKeys()
	case o.OpenPayloads:
		return recordingKeys("") // PAYLOAD_ENCRYPTION_KEYS without PAYLOAD_ENCRYPTION_KEY_ID
	}
	return nil
}

// RawHistory is a workflow's history on the shared dev server as the Temporal CLI shows it to an
// operator without the codec (temporal workflow show --output json): what Temporal stores.
func RawHistory(t testing.TB, workflowID string) string {
	t.Helper()
	return temporalCLI(t, "workflow", "show", "--workflow-id", workflowID, "--output", "json")
}

// RawDescription is temporal workflow describe's JSON: the search attributes and memo as stored.
func RawDescription(t testing.TB, workflowID string) string {
	t.Helper()
	return temporalCLI(t, "workflow", "describe", "--workflow-id", workflowID, "--output", "json")
}

func temporalCLI(t testing.TB, args ...string) string {
	t.Helper()
	path, err := TemporalCLI()
	require.NoError(t, err)
	require.NotNil(t, devServer, "the shared dev server is not running")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, append(args, "--address", devServer.FrontendHostPort(),
		"--namespace", "default")...).Output()
	require.NoError(t, err, "temporal %v", args)
	return string(out)
}

// SealWorker restarts the system's worker on a client that seals payloads, as switching
// PAYLOAD_ENCRYPTION_KEY_ID on for the worker processes first would (once every process opens
// them: OpenPayloads): bookings already running go on with their earlier payloads as they were.
func (s *System) SealWorker(t testing.TB) {
	t.Helper()
	s.StopWorker()
	c := withOptions(t, s.Temporal, SystemOptions{SealPayloads: true})
	s.worker = worker.New(c, s.DB.Store, s.provider, s.TaskQueue)
	require.NoError(t, s.worker.Start())
}
