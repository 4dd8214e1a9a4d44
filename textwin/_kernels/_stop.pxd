# The stopping rule of the dual Gauss-Seidel solver (docs/mathematics.md §2): a cheap
# estimate of the duality gap each epoch, the exact gap when the estimate says so.

cdef enum StopAction:
    CONTINUE = 0        # go on with the next epoch
    CHECK_EXACT = 1     # compute the exact gap now, then call learn()
    STOP = 2            # converged: the exact gap is within tol
    UNSHRINK = 3        # not converged: bring back the examples shrinking set aside


cdef class StopRule:
    cdef readonly double tol
    cdef readonly int gap_every        # form the estimate every this many epochs
    cdef readonly int exact_every      # and check exactly at least this often
    cdef readonly int max_epochs       # and after the last epoch
    cdef readonly double lag           # the learnt ratio estimate / exact gap
    cdef readonly long long last_exact # the epoch of the last exact check (0: at entry)
    cdef bint triggered                # this epoch's check came from the estimate

    cdef bint wants_estimate(self, int epoch) noexcept nogil
    cdef StopAction after_epoch(self, int epoch, double estimate) noexcept nogil
    cdef StopAction learn(self, int epoch, double estimate, double exact,
                          bint shrunk) noexcept nogil
