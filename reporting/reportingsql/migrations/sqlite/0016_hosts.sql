-- Each site's hosts: the addresses whose pages the collector counts for
-- the site (its tenant's), besides the server's own. A host is one
-- site's at most.
CREATE TABLE reporting_hosts (
    host TEXT PRIMARY KEY,
    site TEXT NOT NULL
);
CREATE INDEX reporting_hosts_site ON reporting_hosts (site);
