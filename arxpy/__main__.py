import sys

from arxpy.cli import main

sys.exit(main())
