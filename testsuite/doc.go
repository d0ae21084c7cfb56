// Package testsuite is bookflow's shared test harness: a fresh PostgreSQL database per test, a
// real Temporal dev server, Redis, and an in-process worker and API wired to them (System), with
// the fakes the end-to-end tests need (a scripted payment provider, stripe-mock, an identity
// provider's JWKS, a worker in a process of its own to kill) and checks they share (the OpenAPI
// document against each answer, recorded histories against the workflow code).
//
// The end-to-end tests themselves are in package testsuite_test; the fault-injection suite is
// in chaos, the simulated supplier in suppliersim.
package testsuite
