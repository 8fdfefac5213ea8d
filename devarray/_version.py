# The one place the version is written; pyproject.toml reads it without
# importing the package (setuptools parses this file statically).
__version__ = "0.1.0"
