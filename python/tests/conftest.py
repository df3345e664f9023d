import os
import sys

# The pure-Python parts are tested from the source tree. To test the extension too, point
# MEGAC_PYTHON_BUILD at <build>/python (where _runtime is built next to links to these sources).
_build = os.environ.get("MEGAC_PYTHON_BUILD")
sys.path.insert(0, _build if _build else os.path.join(os.path.dirname(__file__), ".."))
