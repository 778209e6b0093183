"""bidref: referee and toolkit for Spectacular Bid."""

__version__ = "0.1.0"
