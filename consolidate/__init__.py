"""consolidate: consolidated editions of tax treaties and the instruments that amend them."""

__version__ = "0.1.0"
