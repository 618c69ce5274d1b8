from bluffcam.cli import main

raise SystemExit(main())
