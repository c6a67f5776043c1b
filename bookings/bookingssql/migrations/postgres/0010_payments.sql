-- Paid bookings: a booking of a service that takes payment is made
-- awaiting it and holds its time like a requested or confirmed one; what
-- it owes and how the payment stands (the provider's page and payment,
-- when it was paid and refunded) are kept with it.
ALTER TABLE bookings_bookings ADD COLUMN payment JSONB;
DROP INDEX bookings_bookings_active_seat;
CREATE UNIQUE INDEX bookings_bookings_active_seat ON bookings_bookings (provider_id, start_time, seat)
	WHERE status IN ('requested', 'confirmed', 'awaiting_payment');
