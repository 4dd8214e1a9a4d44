# The dual Gauss-Seidel solver's nogil core (docs/mathematics.md §3): the problem's
# records, the order of the visits, what a solve leaves behind, and solve().
from libc.stdint cimport uint64_t

from ._losses cimport Loss
from ._regularizers cimport Regularizer
from ._stop cimport StopRule

cdef enum StepRule:
    STEP_AUTO = 0
    STEP_NEWTON = 1
    STEP_GRADIENT = 2


cdef struct Example:
    # Everything a visit reads of example i, in one 64-byte cache line: the
    # examples are visited in random order, and eight arrays of n values (600 KB
    # at n = 9,603, beyond L2) cost eight cache misses per visit where this
    # costs one (docs/performance.md, "The per-example record").
    double alpha                # dual variable, in/out (copied back at the end)
    double y                    # label +1/-1 (folded on the fly: z_i = y_i x_i)
    double t                    # target margin t_i
    double s                    # loss weight s_i
    double gap_seen             # gap term at the last visit
    double xone                 # the value all entries of row i share, NaN if they differ
    double row_stat             # check_csr's statistic: ||x_i||^2 for the square
                                # regularizer (its curvature), max_j |x_ij| for the
                                # entropy ones (the exponent cap)
    int start                   # the row's entries: data[start:start + nnz]
    int nnz


cdef struct Problem:
    const double* data          # CSR values and column indices
    const int* indices
    Example* ex                 # the examples, 64-byte aligned
    Py_ssize_t n
    double lam
    double S                    # lam * n
    bint bias                   # Algorithm 2: the augmented constant feature
    double sigma
    double rho
    double vb                   # v_{d+1}
    StepRule step
    double eta                  # step fraction
    double eta_g                # fixed gradient step
    double floor                # curvature floor
    double growth               # curvature growth across a capped step (majorizer)
    bint shrinking              # liblinear's shrinking heuristic
    Py_ssize_t active           # order[:active] are the active examples
    double pg_max_old
    double pg_min_old
    double gap_sum              # sum of the gap_seen, kept up to date (the cheap estimate)
    long long n_visits          # work counters: examples visited (margin formed),
    long long n_steps           # steps that moved alpha,
    long long nnz_visits        # and the nonzeros of those rows
    long long nnz_steps
    long long n_syncs           # rebuilds of v from alpha (_sync)
    double ksum                 # sum_i K_i(alpha_i), kept up to date, re-summed at checks


cdef struct Order:
    int* order                  # the visiting order; order[:active] the active examples
    bint shuffle                # a fresh permutation per epoch, else data order
    int block                   # B > 1: blocks of B consecutive rows (cache-friendly)
    int* blocks                 # scratch of the block shuffle: n / B blocks, n marks
    char* mark
    uint64_t state              # the generator's state (seeded: deterministic)


cdef struct Record:
    # what a solve leaves behind, in the caller's arrays
    double* gaps                # relative gap at each exact check
    long long* at               # and its epoch (0: the warm start's, at entry)
    Py_ssize_t n_gaps
    double* estimates           # the cheap estimate of each epoch (NaN where not formed)
    double* trace               # D at entry and after each step (tests), or NULL
    Py_ssize_t n_trace
    double* terms               # per-example gap terms of the final check, or NULL
    int n_epochs
    double gap_abs              # P + D, P and D at exit (exact)
    double primal
    double dual


cdef void solve(Problem* P, Loss loss, Regularizer reg, StopRule stop, Order* order,
                Record* rec, bint warm) noexcept nogil
