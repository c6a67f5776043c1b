-- Goals: a page pattern, or an event with an optional property value.
-- Their counts are rollup rows of dim 'goal' keyed by the goal's id, and
-- uniques of scope 'g:<id>'. A batch of hits locks this table against
-- goals made or removed while it is written (Postgres), so each hit is
-- counted under the goals as they were when it was written.
CREATE TABLE reporting_goals (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	page TEXT NOT NULL,
	event TEXT NOT NULL,
	property TEXT NOT NULL,
	value TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL
);
