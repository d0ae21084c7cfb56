package codec_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/codec"
)

func key(b byte) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, 32)) }

func mustKeys(t *testing.T, list, current string) *codec.Keys {
	t.Helper()
	k, err := codec.ParseKeys(list, current)
	require.NoError(t, err)
	return k
}

func TestSealedPayloadsHideTheirDataAndOpenAgain(t *testing.T) {
	keys := mustKeys(t, "k1:"+key(1), "k1")
	dc := keys.DataConverter()
	p, err := dc.ToPayload(map[string]string{"customerId": "walk-in:+4915112345678", "name": "Ada Lovelace"})
	require.NoError(t, err)
	assert.Equal(t, codec.Encoding, string(p.Metadata["encoding"]))
	assert.Equal(t, "k1", string(p.Metadata["encryption-key-id"]))
	assert.NotContains(t, string(p.Data), "4915112345678")
	assert.NotContains(t, string(p.Data), "Ada")

	var back map[string]string
	require.NoError(t, dc.FromPayload(p, &back))
	assert.Equal(t, "Ada Lovelace", back["name"])

	// Sealing twice gives different ciphertexts: a fresh nonce each time.
	again, err := dc.ToPayload(map[string]string{"customerId": "walk-in:+4915112345678", "name": "Ada Lovelace"})
	require.NoError(t, err)
	assert.NotEqual(t, p.Data, again.Data)
}

func TestRotationKeepsOldPayloadsOpen(t *testing.T) {
	old := mustKeys(t, "2026-06:"+key(1), "2026-06")
	sealed, err := old.DataConverter().ToPayload("alice")
	require.NoError(t, err)

	rotated := mustKeys(t, "2026-12:"+key(2)+",2026-06:"+key(1), "2026-12")
	var s string
	require.NoError(t, rotated.DataConverter().FromPayload(sealed, &s))
	assert.Equal(t, "alice", s)
	fresh, err := rotated.DataConverter().ToPayload("bob")
	require.NoError(t, err)
	assert.Equal(t, "2026-12", string(fresh.Metadata["encryption-key-id"]))

	// A process that lost the old key says which key it lacks.
	newOnly := mustKeys(t, "2026-12:"+key(2), "2026-12")
	err = newOnly.DataConverter().FromPayload(sealed, &s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"2026-06"`)
}

func TestPayloadsFromBeforeEncryptionPassUnchanged(t *testing.T) {
	plain, err := converter.GetDefaultDataConverter().ToPayload("alice")
	require.NoError(t, err)
	for _, keys := range []*codec.Keys{mustKeys(t, "k1:"+key(1), "k1"), mustKeys(t, "k1:"+key(1), "")} {
		var s string
		require.NoError(t, keys.DataConverter().FromPayload(plain, &s))
		assert.Equal(t, "alice", s)
	}
	// Opening only (no current key): the first step of switching encryption on seals nothing.
	p, err := mustKeys(t, "k1:"+key(1), "").DataConverter().ToPayload("alice")
	require.NoError(t, err)
	assert.Equal(t, plain, p)
}

func TestATamperedPayloadDoesNotOpen(t *testing.T) {
	keys := mustKeys(t, "a:"+key(1)+",b:"+key(2), "a")
	p, err := keys.DataConverter().ToPayload("alice")
	require.NoError(t, err)
	// Naming the other key: the key id is authenticated, and b's key opens nothing of a's.
	p.Metadata["encryption-key-id"] = []byte("b")
	var s string
	assert.Error(t, keys.DataConverter().FromPayload(p, &s))
	p.Metadata["encryption-key-id"] = []byte("a")
	p.Data[len(p.Data)-1] ^= 1
	assert.Error(t, keys.DataConverter().FromPayload(p, &s))
}

func TestFailureMessagesAreSealedWhileSealing(t *testing.T) {
	keys := mustKeys(t, "k1:"+key(1), "k1")
	f := keys.FailureConverter().ErrorToFailure(temporal.NewApplicationError("customer walk-in:+4915112345678 has 3 holds", "TooManyHolds"))
	assert.NotContains(t, f.String(), "4915112345678")
	back := keys.FailureConverter().FailureToError(f)
	var app *temporal.ApplicationError
	require.True(t, errors.As(back, &app))
	assert.Contains(t, app.Error(), "walk-in:+4915112345678")
	assert.Equal(t, "TooManyHolds", app.Type())

	// Not sealing: messages stay as they were, readable in the Temporal UI.
	open := mustKeys(t, "k1:"+key(1), "").FailureConverter().ErrorToFailure(errors.New("plain"))
	assert.Equal(t, "plain", open.GetMessage())
}

func TestParseKeysRefusesWhatCannotWork(t *testing.T) {
	none, err := codec.ParseKeys("", "")
	require.NoError(t, err)
	assert.Nil(t, none)
	assert.False(t, none.Sealing())
	for name, c := range map[string]struct{ list, current, says string }{
		"short key":          {"k1:" + base64.StdEncoding.EncodeToString([]byte("short")), "k1", "32 random bytes"},
		"not base64":         {"k1:!!!", "k1", "32 random bytes"},
		"no id":              {key(1), "", "id:base64-key"},
		"bad id":             {"k 1:" + key(1), "", "id:base64-key"},
		"twice":              {"k1:" + key(1) + ",k1:" + key(2), "k1", "listed twice"},
		"current not listed": {"k1:" + key(1), "k2", "not among"},
		"current, no keys":   {"", "k1", "lists no keys"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := codec.ParseKeys(c.list, c.current)
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), c.says), err.Error())
		})
	}
}

func TestDescribeSaysWhatHappensToPayloads(t *testing.T) {
	var none *codec.Keys
	assert.Contains(t, none.Describe(), "as they are")
	assert.Contains(t, mustKeys(t, "b:"+key(2)+",a:"+key(1), "").Describe(), "opened with keys a, b, none sealed")
	assert.Equal(t, "sealed with key b, opened with keys a, b", mustKeys(t, "b:"+key(2)+",a:"+key(1), "b").Describe())
}
