"""The ``textwin`` console script. It loads the command line inside a ``try``, so
that a Ctrl-C while its modules load is one line, as it is once the command runs
(``textwin.cli.main`` catches it there), not Python's traceback."""
import sys

#: textwin.cli.EXIT_INTERRUPTED, not imported: importing it is what may be interrupted
EXIT_INTERRUPTED = 130


def main():
    try:
        from textwin.cli import main as run_command_line
    except KeyboardInterrupt:
        print("textwin: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return run_command_line()
