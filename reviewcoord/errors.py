"""One error hierarchy, chosen by what the user must do about it.

    ReviewCoordError            base; cli maps every subclass to an exit code
    ├── UsageError              bad command line / action input (exit 2)
    ├── ConfigError             bad config file or input value (exit 2; status `error`)
    ├── EventError              event payload we cannot turn into a PR (exit 2)
    ├── SnapshotError           replay snapshot missing, not JSON, wrong shape (exit 2)
    └── GatewayError            GitHub could not be read/written completely (exit 1; fail closed)
        └── WriteForbidden      403 "Resource not accessible by integration" (read-only token)

A single bot comment that fails to parse is *data* (a note in the verdict), never an exception.
"""


class ReviewCoordError(Exception):
    exit_code = 1


class UsageError(ReviewCoordError):
    exit_code = 2


class ConfigError(ReviewCoordError):
    exit_code = 2


class EventError(ReviewCoordError):
    exit_code = 2


class SnapshotError(ReviewCoordError):
    exit_code = 2


class GatewayError(ReviewCoordError):
    """An endpoint could not be read (or written) completely, after retries."""

    exit_code = 1

    def __init__(self, message: str, *, endpoint: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.endpoint = endpoint
        self.status = status


class WriteForbidden(GatewayError):
    """The token may read but not write (fork PRs get a read-only GITHUB_TOKEN)."""
