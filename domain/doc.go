// Package domain holds bookflow's pure types and rules, shared by every layer: calendar dates,
// stays and venue spans; hold and order requests and their limits; bookings, their states and
// the transitions between them; booking ids; money, prices and cancellation policies; payment
// events; sale rules and EvaluateSale, which judges a sale by them; the principal and its roles;
// the invariant checker's findings; and the errors every layer maps to.
//
// It does no I/O and imports nothing of pgx, Echo or Temporal, so its rules are tested without
// a server, and the API, the workflows and the database code decide by the same ones.
package domain
