-- A calendar connection keeps the names of the calendars its account
-- listed when they were last chosen (a JSON object, the calendar's path
-- or ID to its name), so pages name them without asking the server and
-- never show a path.
ALTER TABLE bookings_calendar_connections ADD COLUMN calendar_names TEXT NOT NULL DEFAULT '{}';
