"""One module per `bluffcam` subcommand; each has `add_arguments(parser)` and `run(args) -> int`."""
