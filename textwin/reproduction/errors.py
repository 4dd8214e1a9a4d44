"""What stops a reproduction, each in one line that says what to do; `textwin reproduce`
gives each kind its exit code."""


class ReproductionError(Exception):
    """The reproduction cannot run, or cannot write what it measured."""


class DestinationError(ReproductionError):
    """``output`` or ``figures`` cannot, or may not, be written."""


class DataError(ReproductionError):
    """The Reuters-21578 corpus is missing, or cannot be read."""
