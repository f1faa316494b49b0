"""One module per ``sfb`` subcommand (see ``sfb_env.cli``)."""
