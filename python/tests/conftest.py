import os
import sys

# Tests import the package from the source tree; no build needed for the pure-Python parts.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
