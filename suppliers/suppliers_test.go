package suppliers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSignaturesVerifyOnlyWithTheSecretWithinTheTolerance(t *testing.T) {
	body := []byte(`{"hotelId":"h1"}`)
	now := time.Unix(1_900_000_000, 0)
	header := Sign(body, "a-push-secret-of-some-length", now)

	assert.NoError(t, Verify(body, header, "a-push-secret-of-some-length", now.Add(time.Minute), DefaultTolerance))
	for name, err := range map[string]error{
		"another secret": Verify(body, header, "another-secret-of-some-length", now, DefaultTolerance),
		"another body":   Verify([]byte(`{"hotelId":"h2"}`), header, "a-push-secret-of-some-length", now, DefaultTolerance),
		"too old":        Verify(body, header, "a-push-secret-of-some-length", now.Add(6*time.Minute), DefaultTolerance),
		"from the future": Verify(body, header, "a-push-secret-of-some-length", now.Add(-6*time.Minute),
			DefaultTolerance),
		"no header":    Verify(body, "", "a-push-secret-of-some-length", now, DefaultTolerance),
		"no timestamp": Verify(body, "v1=00", "a-push-secret-of-some-length", now, DefaultTolerance),
		"no secret":    Verify(body, header, "", now, DefaultTolerance),
	} {
		assert.ErrorIs(t, err, ErrBadSignature, name)
	}
}
