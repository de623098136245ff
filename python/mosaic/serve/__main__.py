"""python -m mosaic.serve CONFIG: the same as mosaic-serve CONFIG."""
from mosaic.serve.cli import main

raise SystemExit(main())
