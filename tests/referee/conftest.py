from tests.referee.build import c_first  # noqa: F401
