package db

// ServeUnsettledARIChanges makes the ARI feed serve every change it sees, not only those below
// the oldest transaction in flight, until the returned function is called: the late-commit
// test's control. Not for parallel tests.
func ServeUnsettledARIChanges() (restore func()) {
	old := ariSettled
	ariSettled = `pg_snapshot_xmax(pg_current_snapshot())::text`
	return func() { ariSettled = old }
}
