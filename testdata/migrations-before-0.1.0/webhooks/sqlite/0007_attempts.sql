-- The failed attempts of a delivery, each with the receiver's answer (a
-- delivered one is its delivery's own row): the portal's delivery log.
CREATE TABLE webhooks_attempts (
	delivery_id INTEGER NOT NULL REFERENCES webhooks_deliveries (id) ON DELETE CASCADE,
	attempt INTEGER NOT NULL,
	response_status INTEGER,
	response_excerpt TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	PRIMARY KEY (delivery_id, attempt)
);
