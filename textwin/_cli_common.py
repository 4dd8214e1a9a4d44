"""Exit codes, the user-fixable error and the help layout, now in :mod:`textwin.cli.common`;
re-exported here for the reproduction's command line (:mod:`textwin.reproduce`)."""
from .cli.common import (  # noqa: F401
    EXIT_BAD_MODEL,
    EXIT_CODES,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NO_DATA,
    EXIT_OK,
    EXIT_USAGE,
    CLIError,
    HelpFormatter,
    damaged_corpus,
    fail,
    first_line,
    missing_data,
    n_jobs_error,
)
