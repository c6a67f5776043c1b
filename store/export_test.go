package store

// StmtPrepared reports whether c holds query prepared.
func StmtPrepared(c *StmtCache, query string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[query] != nil
}
