package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAddressKeyGroupsAnIPv6NetworkOnly(t *testing.T) {
	assert.Equal(t, "203.0.113.7", addressKey("203.0.113.7"))
	assert.Equal(t, "2001:db8:1:2::/64", addressKey("2001:db8:1:2:aaaa::1"))
	assert.Equal(t, addressKey("2001:db8:1:2::1"), addressKey("2001:db8:1:2:ffff::9"), "one subscriber's /64 is one address")
	assert.NotEqual(t, addressKey("2001:db8:1:2::1"), addressKey("2001:db8:1:3::1"))
	assert.Equal(t, "::ffff:203.0.113.7", addressKey("::ffff:203.0.113.7"))
	assert.Equal(t, "not-an-ip", addressKey("not-an-ip"))
}
