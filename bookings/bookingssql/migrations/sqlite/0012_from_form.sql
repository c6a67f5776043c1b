-- A booking made from a routing form's answer keeps the submission it
-- came from (the form, the submission's id and number, its address in
-- the owner's inbox) as one JSON value; NULL for any other booking.
ALTER TABLE bookings_bookings ADD COLUMN from_form TEXT;
