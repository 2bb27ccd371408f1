"""One module per `kvscope` subcommand (NAME, HELP, add_arguments, run); cli.py finds them."""
