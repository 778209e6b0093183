from tests.match.build import c_first  # noqa: F401
