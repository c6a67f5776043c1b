package reporting

// hitQueue is the collected hits waiting to be written, oldest first, in
// blocks of at most queueBlock: a view taken appends to the last block
// alone, and a flush takes its batch off the front, copying only the
// batch. (One slice would be copied whole each time it grew, and again by
// every flush that left the rest for later: with a full buffer behind a
// slow writer, a tenth of the collector's time.)
type hitQueue struct {
	blocks [][]Hit
	n      int
}

// queueBlock is the size of a block of a hitQueue.
const queueBlock = 1024

// len is how many hits wait.
func (q *hitQueue) len() int { return q.n }

// push adds h at the end.
func (q *hitQueue) push(h Hit) {
	if k := len(q.blocks); k == 0 || len(q.blocks[k-1]) == cap(q.blocks[k-1]) {
		q.blocks = append(q.blocks, make([]Hit, 0, queueBlock))
	}
	last := &q.blocks[len(q.blocks)-1]
	*last = append(*last, h)
	q.n++
}

// take removes up to n hits from the front and returns them, in order.
func (q *hitQueue) take(n int) []Hit {
	n = min(n, q.n)
	if n <= 0 {
		return nil
	}
	out := make([]Hit, 0, n)
	for len(out) < n {
		b := q.blocks[0]
		k := min(n-len(out), len(b))
		out = append(out, b[:k]...)
		if k == len(b) {
			q.blocks[0] = nil
			q.blocks = q.blocks[1:]
		} else {
			clear(b[:k]) // let the taken hits' strings go
			q.blocks[0] = b[k:]
		}
	}
	q.n -= n
	if q.n == 0 {
		q.blocks = nil
	}
	return out
}

// pushFront puts hits back at the front, ahead of the others, in their
// order: a failed write's, for the next flush.
func (q *hitQueue) pushFront(hits []Hit) {
	if len(hits) == 0 {
		return
	}
	q.blocks = append([][]Hit{hits}, q.blocks...)
	q.n += len(hits)
}
