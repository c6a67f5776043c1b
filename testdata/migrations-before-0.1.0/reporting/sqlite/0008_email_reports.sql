-- Email reports: an address that gets the analytics of each past week or
-- month; last_sent names the last period claimed ('2026-W47', '2026-11'),
-- so each is sent once whichever instance looks.
CREATE TABLE reporting_email_reports (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	email TEXT NOT NULL,
	period TEXT NOT NULL,
	last_sent TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	UNIQUE (email, period)
);
