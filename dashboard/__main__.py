"""`python -m dashboard` is the `kvscope` command."""

from dashboard.cli import main

raise SystemExit(main())
