"""bluffcam: the application that wires hardware -> vision -> engine -> web together."""

__version__ = "0.1.0"
