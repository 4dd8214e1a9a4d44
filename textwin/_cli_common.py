"""The command line's user-fixable error and exit codes, for the reproduction
(:mod:`textwin.reproduce`), whose runs raise them: a re-export of :mod:`textwin.cli.common`,
the one import of the command line from a layer below it."""
from .cli.common import (  # noqa: F401
    EXIT_BAD_MODEL,
    EXIT_CODES,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NO_DATA,
    EXIT_OK,
    EXIT_USAGE,
    CLIError,
    damaged_corpus,
    first_line,
    missing_data,
    n_jobs_error,
)
