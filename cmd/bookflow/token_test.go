package main

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
)

// TestDevTokensWorkAgainstDev: the tokens dev prints verify under the secret dev accepts, one
// per role, the front desk scoped to a demo hotel.
func TestDevTokensWorkAgainstDev(t *testing.T) {
	cfg := withDevSecrets(Config{})
	printed, err := devTokens(cfg)
	require.NoError(t, err)
	v, err := auth.NewVerifier(context.Background(), auth.Config{Secret: []byte(cfg.AuthJWTSecret)})
	require.NoError(t, err)
	roles := map[domain.Role]bool{}
	for _, m := range regexp.MustCompile(`export \w+=(\S+)`).FindAllStringSubmatch(printed, -1) {
		p, err := v.Verify(context.Background(), m[1])
		require.NoError(t, err)
		for _, r := range p.Roles {
			roles[r] = true
		}
		if p.Has(domain.RoleFrontDesk) {
			assert.Equal(t, []string{"grand-budapest"}, p.Hotels)
		}
	}
	assert.Len(t, roles, len(domain.Roles), "a token for every role")
}

func TestTokenCommandRefusesWhatItCannotMint(t *testing.T) {
	ok := domain.Principal{Subject: "alice", Roles: []domain.Role{domain.RoleCustomer}}
	assert.NoError(t, validatePrincipal(ok))
	for name, p := range map[string]domain.Principal{
		"no subject":             {Roles: []domain.Role{domain.RoleCustomer}},
		"no role":                {Subject: "alice"},
		"unknown role":           {Subject: "alice", Roles: []domain.Role{"root"}},
		"a desk without a hotel": {Subject: "d", Roles: []domain.Role{domain.RoleFrontDesk}},
	} {
		assert.Error(t, validatePrincipal(p), name)
	}
}
