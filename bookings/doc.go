// Package bookings takes appointments: services, the providers who offer
// them and their hours, the slots those leave free, and bookings made
// without ever booking a provider twice.
package bookings
