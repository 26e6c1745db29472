"""Type stubs of the Rust extension module (crates/ssdlab-py)."""

from os import PathLike
from typing import List, Optional, Tuple, Union

_Path = Union[str, PathLike[str]]

class SsdlabError(ValueError):
    """Bad input; the message is the CLI's (file:line: field: message)."""

MAX_INPUT_BYTES: int

def version() -> str: ...
def presets() -> List[Tuple[str, str]]: ...
def schedulers() -> str: ...
def run_job(params_json: str, job_path: Optional[_Path] = None, ignore_unknown: bool = False) -> Tuple[str, str, str]: ...
def replay(
    params_json: str,
    trace: _Path,
    format: Optional[str] = None,
    qd: Optional[int] = None,
    time_scale: float = 1.0,
    loop_write: Optional[str] = None,
    skip_bad_lines: bool = False,
    trace_device: Optional[str] = None,
) -> Tuple[str, str, str]: ...
def rtflash_run(
    tasks: _Path,
    approach: str = "clustering",
    nrt: str = "tbs",
    chip_order: str = "edf",
    model: str = "chips",
    duration: float = 10.0,
    seed: int = 1,
) -> str: ...
def resolve(params_json: str) -> Tuple[str, str]: ...
def run_configs(configs: List[str]) -> List[str]: ...
def k2_points(
    paper: bool = False,
    partial_runtime: Optional[int] = None,
    full_runtime: Optional[int] = None,
    reps: Optional[int] = None,
    ops: List[str] = ...,
    occupancies: List[str] = ...,
    device: str = "consumer-tlc-250g",
    seed: int = 1,
    full_precondition: str = "fill",
) -> str: ...
