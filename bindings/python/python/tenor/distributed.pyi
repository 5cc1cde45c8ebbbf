"""Type stubs of tenor.distributed (docs/distributed.md)."""

from typing import Any, Callable, Iterable, Mapping, Optional, Union

import pandas
from distributed import Client, Future, WorkerPlugin

from . import Device

Progress = Union[None, bool, Callable[[int, int], Any]]

class Backend(WorkerPlugin):
    backend: str
    device: Optional[str]
    error: Optional[str]
    def __init__(self, backend: str) -> None: ...

def setup(client: Optional[Client] = None, backend: str = "cpu") -> pandas.DataFrame: ...
def workers(client: Optional[Client] = None, backend: str = "cpu") -> pandas.DataFrame: ...
def price(book: Any, *, client: Optional[Client] = None, backend: str = "cpu", paths: int = 100000, seed: int = 42,
          engine: str = "auto", steps: int = 64, streams: int = 1, greeks: bool = True, strict: bool = True,
          output: str = "pandas", out: Any = None, chunks: Optional[int] = None, compute: bool = True,
          progress: Progress = None) -> Union[pandas.DataFrame, Any, Future]: ...
def sweep(strategy: str, data: Any, grid: Mapping[str, Iterable[float]], *, client: Optional[Client] = None,
          backend: str = "cpu", params: Optional[Mapping[str, float]] = None, cash: float = 1000000.0,
          per_share: float = 0.0, commission_bps: float = 1.0, min_commission: float = 0.0,
          slippage_bps: float = 1.0, periods_per_year: float = 252.0, insufficient_cash: str = "refuse",
          chunks: Optional[int] = None, compute: bool = True,
          progress: Progress = None) -> Union[pandas.DataFrame, Future]: ...
