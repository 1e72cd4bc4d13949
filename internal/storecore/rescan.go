package storecore

// RescanBatch is how many rows one rescan transaction rewrites at most.
const RescanBatch = 500

// WalkBatches runs step over a table in primary-key order, one batch (one transaction, in the
// store) at a time, from after 0: step scans the rows after the given key, rewrites what
// changed, and returns how many rows it read and the last key. It stops after a short batch;
// progress, when set, is told after each batch.
func WalkBatches(step func(after int64) (n int, last int64, err error), progress func()) error {
	var after int64
	for {
		n, last, err := step(after)
		if err != nil {
			return err
		}
		after = last
		if progress != nil {
			progress()
		}
		if n < RescanBatch {
			return nil
		}
	}
}
