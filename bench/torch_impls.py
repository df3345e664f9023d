"""The benchmark's torch and torch.compile columns: the slots' stock paths (megac.stock), so that what is timed
is what a slot falls back to."""
from megac.stock import EAGER  # noqa: F401
