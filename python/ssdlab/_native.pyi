"""Type stubs of the Rust extension module (crates/ssdlab-py).

Every function that takes parameters takes them as ONE JSON object (text),
and every result that is more than a plain value is JSON text too; the
``ssdlab`` package builds the requests (python/ssdlab) and reads the
answers. Bad input raises ``SsdlabError`` with the CLI's message."""

from typing import List, Tuple

class SsdlabError(ValueError):
    """Bad input; the message is the CLI's (file:line: field: message)."""

#: The largest input file read whole, as the CLI reads it (bytes).
MAX_INPUT_BYTES: int

def version() -> str:
    """The package's version."""

def presets() -> List[Tuple[str, str]]:
    """The built-in presets as (name, description) pairs."""

def schedulers() -> str:
    """The I/O schedulers and their tunables: a JSON list of
    ``{name, help, tunables: [{name, kind, min, max, default, unit, help}]}``."""

def run_job(request_json: str) -> Tuple[str, str, str]:
    """Runs a job file. Request: ``{"params": <point parameters>,
    "job_path": str | null, "ignore_unknown": bool}`` (the job's text in
    ``params.job`` when ``job_path`` is null). Returns the fio JSON report,
    fio's text report and the figures (JSON)."""

def replay(request_json: str) -> Tuple[str, str, str]:
    """Replays a block trace. Request: ``{"params": <point parameters>,
    "trace": str, "format", "qd", "time_scale", "loop_write",
    "skip_bad_lines", "trace_device"}``. Returns what ``run_job`` does."""

def rtflash_run(request_json: str) -> str:
    """Allocates and simulates a real-time task set. Request: ``{"tasks":
    str, "approach", "nrt", "chip_order", "model", "duration", "seed"}``.
    Returns the object ``ssdlab rtflash run --json`` prints (JSON)."""

def resolve(params_json: str) -> Tuple[str, str]:
    """Checks a point's parameters (JSON) and returns its key and its
    configuration (canonical JSON)."""

def run_configs(request_json: str) -> List[str]:
    """Runs a batch of points. Request: ``{"configs": [<configuration JSON
    text>, ...]}``. Returns each point's result (JSON), in order: a K2
    point's figures, or a GC, STB or real-time flash point's rows."""

def study_grid(request_json: str) -> str:
    """A GC, STB or real-time flash study's grid as sweep points (a JSON
    list of ``{"labels", "study_config", "key"}``). Request: ``{"study",
    "plan", "seed", "overrides": {"sets", "check_sets", "seconds"}}``."""

def k2_points(request_json: str) -> str:
    """The K2 study's grid as sweep points (a JSON list). Request: ``{"paper",
    "partial_runtime", "full_runtime", "reps", "ops", "occupancies",
    "device", "seed", "full_precondition"}``."""
