package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
)

// runToken mints a bearer token for local use, signed with AUTH_JWT_SECRET (or local
// development's secret), and prints it.
func runToken(_ context.Context, cfg Config) error {
	fs := flag.NewFlagSet("token", flag.ExitOnError)
	sub := fs.String("sub", "", "the subject: a customer id, or a staff member's id (required)")
	var roles, hotels, venues, suppliers listFlag
	fs.Var(&roles, "role", "a role: customer, front_desk, finance, admin, agent or supplier (repeat for several)")
	fs.Var(&hotels, "hotel", "a hotel a front desk works for (repeat for several)")
	fs.Var(&venues, "venue", "a venue a front desk works for (repeat for several)")
	agent := fs.String("agent", "", "the agent an agent token sells as")
	channel := fs.String("channel", "", "the channel an agent token sells through")
	fs.Var(&suppliers, "supplier", "a supplier whose hotels' rules supplier staff manage (repeat for several)")
	ttl := fs.Duration("ttl", time.Hour, "how long the token is valid")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: bookflow token --sub <id> --role <role> [--role ...] [--hotel <id> ...] [--venue <id> ...] [--agent <id> --channel <id>] [--supplier <id> ...] [--ttl 1h]")
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[2:])
	p := domain.Principal{Subject: *sub, Hotels: hotels, Venues: venues, Agent: *agent, Channel: *channel, Suppliers: suppliers}
	for _, r := range roles {
		p.Roles = append(p.Roles, domain.Role(r))
	}
	if err := validatePrincipal(p); err != nil {
		fs.Usage()
		return err
	}
	if cfg.AuthJWKSURL != "" {
		return fmt.Errorf("AUTH_JWKS_URL is set: tokens come from the identity provider, not from bookflow")
	}
	if cfg.AuthJWTSecret == "" {
		fmt.Fprintln(os.Stderr, "AUTH_JWT_SECRET is not set: signing with local development's secret (what `bookflow dev` accepts)")
	}
	cfg = withDevSecrets(cfg)
	token, err := auth.Mint([]byte(cfg.AuthJWTSecret), p, *ttl, auth.MintOptions{Issuer: cfg.AuthIssuer, Audience: cfg.AuthAudience})
	if err != nil {
		return err
	}
	fmt.Println(token)
	return nil
}

func validatePrincipal(p domain.Principal) error {
	if err := domain.ValidateTokenSubject("--sub", p.Subject); err != nil {
		return err
	}
	if len(p.Roles) == 0 {
		return fmt.Errorf("at least one --role is required")
	}
	for _, r := range p.Roles {
		if !r.Known() {
			return fmt.Errorf("unknown role %q: want one of %v", r, domain.Roles)
		}
	}
	if p.Has(domain.RoleFrontDesk) && len(p.Hotels)+len(p.Venues) == 0 {
		return fmt.Errorf("a front_desk token needs at least one --hotel or --venue")
	}
	if p.Has(domain.RoleAgent) && (domain.ValidateID("--agent", p.Agent) != nil || domain.ValidateID("--channel", p.Channel) != nil) {
		return fmt.Errorf("an agent token needs --agent and --channel")
	}
	if p.Has(domain.RoleSupplier) && len(p.Suppliers) == 0 {
		return fmt.Errorf("a supplier token needs at least one --supplier")
	}
	return nil
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// devTokenTTL is how long the tokens dev prints are valid.
const devTokenTTL = 12 * time.Hour

// devTokens mints a token for each role for the demo data, as shell exports.
func devTokens(cfg Config) (string, error) {
	if cfg.AuthJWTSecret == "" {
		return "  (AUTH_JWKS_URL is set: get tokens from your identity provider)", nil
	}
	var out strings.Builder
	for _, t := range []struct {
		env string
		p   domain.Principal
	}{
		{"CUSTOMER_TOKEN", domain.Principal{Subject: "alice", Roles: []domain.Role{domain.RoleCustomer}}},
		{"OTHER_CUSTOMER_TOKEN", domain.Principal{Subject: "bob", Roles: []domain.Role{domain.RoleCustomer}}},
		{"DESK_TOKEN", domain.Principal{Subject: "desk-budapest", Roles: []domain.Role{domain.RoleFrontDesk},
			Hotels: []string{"grand-budapest"}}},
		{"FINANCE_TOKEN", domain.Principal{Subject: "ana-finance", Roles: []domain.Role{domain.RoleFinance}}},
		{"ADMIN_JWT", domain.Principal{Subject: "root-admin", Roles: []domain.Role{domain.RoleAdmin}}},
		{"AGENT_TOKEN", domain.Principal{Subject: "agent-lena", Roles: []domain.Role{domain.RoleAgent},
			Agent: "lena-travel", Channel: "wholesale"}},
		{"SUPPLIER_TOKEN", domain.Principal{Subject: "sim-staff", Roles: []domain.Role{domain.RoleSupplier},
			Suppliers: []string{"simsupply"}}},
	} {
		token, err := auth.Mint([]byte(cfg.AuthJWTSecret), t.p, devTokenTTL,
			auth.MintOptions{Issuer: cfg.AuthIssuer, Audience: cfg.AuthAudience})
		if err != nil {
			return "", err
		}
		scope := strings.Join(t.p.Hotels, ",")
		if scope != "" {
			scope = " of " + scope
		}
		fmt.Fprintf(&out, "  export %s=%s   # %s, %s%s\n", t.env, token, t.p.Subject, t.p.Roles[0], scope)
	}
	return strings.TrimRight(out.String(), "\n"), nil
}
