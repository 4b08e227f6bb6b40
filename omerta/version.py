"""This installation's version, from the package metadata (pyproject.toml)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version


def version() -> str:
    try:
        return installed_version("omerta")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"
