"""A fake GitHub REST API server for tests: `from tests.fakegithub import FakeGitHub`."""

from tests.fakegithub.server import (
    ACTIONS_LOGIN,
    APP_TOKEN,
    FakeGitHub,
    RecordedRequest,
)

__all__ = ["ACTIONS_LOGIN", "APP_TOKEN", "FakeGitHub", "RecordedRequest"]
