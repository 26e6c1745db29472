"""ssdlab from Python: the deterministic NVMe SSD and Linux blk-mq simulator.

    >>> import ssdlab
    >>> r = ssdlab.run("examples/k2/randread.fio", scheduler="k2:max_inflight=8", occupancy=50)
    >>> r.jobs[["job", "clat_p999_us", "bw_mbs"]]

``run`` and ``replay`` simulate one job file or trace and return a ``Result``
(the fio-compatible report as a dict, the per-job figures as a DataFrame).
``rtflash_run`` allocates and simulates a real-time task set and returns an
``RtflashResult``, a ``Result`` of the same shape.
``sweep`` runs a grid of points on a Dask cluster (the ``dask`` extra:
``pip install 'ssdlab[dask]'``); given a ``store``, into a content-addressed
results store that ``load`` reads back, and an interrupted sweep resumes
(without one, nothing is written to disk). Bad input
raises ``SsdlabError`` with the CLI's message (``file:line: field: message``).
"""

from ._native import SsdlabError
from ._native import version as _version
from ._api import Result, presets, replay, run, schedulers
from ._rtflash import RtflashResult, rtflash_run
from ._store import Store, load
from ._sweep import expand, sweep
from . import k2, studies

__version__: str = _version()

__all__ = [
    "Result",
    "RtflashResult",
    "SsdlabError",
    "Store",
    "expand",
    "k2",
    "load",
    "presets",
    "replay",
    "rtflash_run",
    "run",
    "schedulers",
    "studies",
    "sweep",
    "__version__",
]
