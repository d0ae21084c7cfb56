// Package codec keeps personal data out of Temporal: every payload bookflow hands Temporal to
// store (workflow inputs, activity arguments and results, updates, signals, queries, failures'
// messages) is sealed with AES-256-GCM under a key whose id travels in the payload, so keys
// rotate without breaking the histories sealed under older ones. Temporal's persistence and UI
// see ciphertext; bookflow's processes and the codec endpoint (staff only) see the data.
package codec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

const (
	// Encoding marks a sealed payload; metadataKeyID names the key that sealed it.
	Encoding      = "binary/encrypted"
	metadataKeyID = "encryption-key-id"
	keyBytes      = 32 // AES-256
)

var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Keys are the keys payloads are opened with, and the one new payloads are sealed with.
type Keys struct {
	current string // empty: payloads are opened, never sealed (the first step of switching on)
	aeads   map[string]cipher.AEAD
}

// ParseKeys reads PAYLOAD_ENCRYPTION_KEYS, a comma-separated list of id:key (the key 32 bytes,
// base64), and PAYLOAD_ENCRYPTION_KEY_ID, the key new payloads are sealed with; an empty id
// opens payloads without sealing any. No keys at all is nil: payloads pass as they are.
func ParseKeys(list, currentID string) (*Keys, error) {
	k := &Keys{current: strings.TrimSpace(currentID), aeads: map[string]cipher.AEAD{}}
	for _, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		id, encoded, ok := strings.Cut(entry, ":")
		if !ok || !keyIDPattern.MatchString(id) {
			return nil, fmt.Errorf("PAYLOAD_ENCRYPTION_KEYS: each entry is id:base64-key, the id of letters, digits, '.', '_' or '-' (at most 64)")
		}
		if _, dup := k.aeads[id]; dup {
			return nil, fmt.Errorf("PAYLOAD_ENCRYPTION_KEYS: key id %q is listed twice", id)
		}
		raw, err := decodeKey(encoded)
		if err != nil || len(raw) != keyBytes {
			return nil, fmt.Errorf("PAYLOAD_ENCRYPTION_KEYS: key %q must be %d random bytes in base64 (openssl rand -base64 32)", id, keyBytes)
		}
		block, err := aes.NewCipher(raw)
		if err != nil {
			return nil, err
		}
		if k.aeads[id], err = cipher.NewGCM(block); err != nil {
			return nil, err
		}
	}
	if len(k.aeads) == 0 {
		if k.current != "" {
			return nil, fmt.Errorf("PAYLOAD_ENCRYPTION_KEY_ID is %q but PAYLOAD_ENCRYPTION_KEYS lists no keys", k.current)
		}
		return nil, nil
	}
	if _, ok := k.aeads[k.current]; k.current != "" && !ok {
		return nil, fmt.Errorf("PAYLOAD_ENCRYPTION_KEY_ID %q is not among PAYLOAD_ENCRYPTION_KEYS", k.current)
	}
	return k, nil
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err := enc.DecodeString(s); err == nil {
			return raw, nil
		}
	}
	return nil, fmt.Errorf("not base64")
}

// Sealing reports whether new payloads are sealed (PAYLOAD_ENCRYPTION_KEY_ID is set).
func (k *Keys) Sealing() bool { return k != nil && k.current != "" }

// Codec returns the payload codec of the keys.
func (k *Keys) Codec() converter.PayloadCodec { return payloadCodec{k} }

type payloadCodec struct{ keys *Keys }

// Encode seals every payload under the current key; without one, payloads pass unchanged.
func (c payloadCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	if !c.keys.Sealing() {
		return payloads, nil
	}
	aead := c.keys.aeads[c.keys.current]
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[converter.MetadataEncoding]) == Encoding {
			out[i] = p // sealed already
			continue
		}
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, err
		}
		nonce := make([]byte, aead.NonceSize())
		if _, err := rand.Read(nonce); err != nil {
			return nil, err
		}
		// The key id is authenticated too: a payload cannot be made to name another key.
		sealed := aead.Seal(nonce, nonce, plain, []byte(c.keys.current))
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{converter.MetadataEncoding: []byte(Encoding), metadataKeyID: []byte(c.keys.current)},
			Data:     sealed,
		}
	}
	return out, nil
}

// Decode opens sealed payloads with the key they name; payloads that were never sealed (every
// history from before encryption was switched on) pass unchanged.
func (c payloadCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != Encoding {
			out[i] = p
			continue
		}
		id := string(p.GetMetadata()[metadataKeyID])
		aead, ok := c.keys.aeads[id]
		if !ok {
			return nil, fmt.Errorf("a payload is sealed with key %q, which PAYLOAD_ENCRYPTION_KEYS does not list", id)
		}
		if len(p.Data) < aead.NonceSize() {
			return nil, fmt.Errorf("a payload sealed with key %q is too short", id)
		}
		nonce, sealed := p.Data[:aead.NonceSize()], p.Data[aead.NonceSize():]
		plain, err := aead.Open(nil, nonce, sealed, []byte(id))
		if err != nil {
			return nil, fmt.Errorf("a payload sealed with key %q does not open: %w", id, err)
		}
		var opened commonpb.Payload
		if err := proto.Unmarshal(plain, &opened); err != nil {
			return nil, err
		}
		out[i] = &opened
	}
	return out, nil
}

// DataConverter is Temporal's default converter with the keys' codec on top (the default alone
// when k is nil).
func (k *Keys) DataConverter() converter.DataConverter {
	if k == nil {
		return converter.GetDefaultDataConverter()
	}
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), k.Codec())
}

// FailureConverter also seals failures' messages and stack traces while sealing (they may name
// a customer): they travel in an encoded payload, and Temporal shows "Encoded failure" instead.
// Failures encoded so are opened whatever the setting.
func (k *Keys) FailureConverter() converter.FailureConverter {
	return temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
		DataConverter: k.DataConverter(), EncodeCommonAttributes: k.Sealing(),
	})
}

// Describe says, for the start-up log, what happens to payloads.
func (k *Keys) Describe() string {
	if k == nil {
		return "stored as they are (no PAYLOAD_ENCRYPTION_KEYS)"
	}
	ids := make([]string, 0, len(k.aeads))
	for id := range k.aeads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if !k.Sealing() {
		return "opened with keys " + strings.Join(ids, ", ") + ", none sealed (no PAYLOAD_ENCRYPTION_KEY_ID)"
	}
	return "sealed with key " + k.current + ", opened with keys " + strings.Join(ids, ", ")
}
