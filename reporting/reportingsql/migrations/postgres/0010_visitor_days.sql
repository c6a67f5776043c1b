-- A visitor's day is one row of reporting_seen (scope 't:'), which keeps
-- in seen every value they were counted for that day, each followed by
-- chr(30) ('t:' for the day itself, after a page view; 'p:/pricing' for
-- a page, and so on), where a row was kept a visitor and value. The rows
-- of other scopes are folded into their visitor's day: a visitor with
-- events only gets a day without 't:' (no session, hits 0).
ALTER TABLE reporting_seen ADD COLUMN seen TEXT NOT NULL DEFAULT '';
UPDATE reporting_seen SET seen = 't:' || chr(30) || COALESCE((SELECT string_agg(m.scope || chr(30), '') FROM reporting_seen AS m
	WHERE m.day = reporting_seen.day AND m.visitor = reporting_seen.visitor AND m.scope <> 't:'), '')
WHERE scope = 't:';
INSERT INTO reporting_seen (day, visitor, scope, last_seen, seen)
SELECT day, visitor, 't:', MAX(last_seen), string_agg(scope || chr(30), '') FROM reporting_seen AS m
WHERE scope <> 't:' AND NOT EXISTS (SELECT 1 FROM reporting_seen AS s WHERE s.day = m.day AND s.visitor = m.visitor AND s.scope = 't:')
GROUP BY day, visitor;
DELETE FROM reporting_seen WHERE scope <> 't:';
