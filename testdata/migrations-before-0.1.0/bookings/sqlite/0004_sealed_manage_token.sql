-- A booking's manage token sealed with the service's secret key (AES-GCM),
-- so every later mail (a change, a reminder) can carry the manage link;
-- empty without a key, and wiped when the customer's details are erased.
ALTER TABLE bookings_bookings ADD COLUMN manage_token_sealed TEXT NOT NULL DEFAULT '';
