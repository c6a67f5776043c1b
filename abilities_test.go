package groundwork_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/groundwork-go/groundwork"
)

func TestKnownAbility(t *testing.T) {
	t.Parallel()
	for name, known := range map[string]bool{
		"*": true, "forms:create": true, "forms:*": true, "webhookSubscription.*": true, "webhookSubscription.view": true,
		"bookings:no-show": true, "webhooks:*": false, "forms:creat": false, "forms": false, "forms*": false, "fo*": false,
		"reporting:*": true, "shop:refund": false, "": false, "*:*": false,
	} {
		require.Equal(t, known, groundwork.KnownAbility(name), name)
	}
	require.True(t, groundwork.KnownAbility("shop:refund", "shop:refund", "shop:view"), "a host's own")
	require.True(t, groundwork.KnownAbility("shop:*", "shop:refund"))
	for name, nearest := range map[string]string{
		"webhooks:*": "webhookSubscription.*", "forms:creat": "forms:create", "form:*": "forms:*", "booking:cancel": "bookings:cancel",
		"webhookSubscriptions.view": "webhookSubscription.view", "shop:refund": "",
	} {
		require.Equal(t, nearest, groundwork.NearestAbility(name), name)
	}
}
