package testsuite_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

func TestConsoleDevSignInOpensTheSites(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day := domain.DateOf(time.Now(), time.UTC)
	s.DB.SetInventory(t, "grand-budapest", "double", day, day.AddDays(3), 2)
	b := testsuite.NewBrowser(t, "desk")
	b.DevSignIn(s, "desk-1", "front_desk", "hotel:grand-budapest")
	b.Screenshot("home")
	require.Contains(t, b.Location(), "/console/")
	assert.Contains(t, b.Text("main"), "grand-budapest")
	assert.Contains(t, b.Text("header"), "desk-1")
}
