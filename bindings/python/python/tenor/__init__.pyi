"""Type stubs of the tenor package (docs/python.md)."""

import os
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union

import pandas

from ._tenor import BackendError as BackendError
from ._tenor import Bar as Bar
from ._tenor import Context as Context
from ._tenor import Fill as Fill
from ._tenor import InputError as InputError
from ._tenor import Order as Order
from ._tenor import ParameterError as ParameterError
from ._tenor import StrategyError as StrategyError
from ._tenor import TenorError as TenorError

from . import alloc as alloc

PathLike = Union[str, "os.PathLike[str]"]
PRICE_COLUMNS: List[str]

def backends() -> pandas.DataFrame: ...
def strategies() -> List[dict[str, Any]]: ...
def open(name: str = "cpu") -> Device: ...

class Device:
    @property
    def backend(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def fp64(self) -> bool: ...
    def price(self, book: Union[PathLike, Mapping[str, Sequence[Any]], pandas.DataFrame, Any], *, paths: int = 100000,
              seed: int = 42, engine: str = "auto", steps: int = 64, streams: int = 1, greeks: bool = True,
              strict: bool = True, output: str = "pandas", out: Optional[PathLike] = None) -> Any: ...
    def surface(self, chain: PathLike, *, as_of: Optional[str] = None) -> Surface: ...

class Surface:
    quotes: pandas.DataFrame
    slices: pandas.DataFrame
    warnings: List[str]
    source: str
    spot: Optional[float]

class BacktestResult:
    strategy: str
    equity: pandas.DataFrame
    fills: pandas.DataFrame
    dividends: float
    metrics: dict

class HestonCalibration:
    params: dict
    fit: pandas.DataFrame
    notes: List[str]

BASKET_COLUMNS: List[str]

def basket(job: PathLike, *, backend: Union[str, Device] = "cpu", paths: Optional[int] = None,
           steps: Optional[int] = None, seed: Optional[int] = None, greeks: bool = True) -> pandas.DataFrame: ...

def calibrate_heston(chain: PathLike, *, backend: Union[str, Device] = "cpu", min_days: float = 7.0,
                     max_years: float = 2.0, max_sd: float = 2.0, per_slice: int = 10, slices: int = 12,
                     max_iterations: int = 100, pricer: str = "port", nodes: int = 256) -> HestonCalibration: ...
def treasury_curve(file: PathLike, date: Optional[str] = None,
                   maturities: Optional[Iterable[float]] = None) -> pandas.DataFrame: ...
BAR_COLUMNS: List[str]
#: Market data: a file, bars in memory (a DataFrame, pyarrow Table or mapping of BAR_COLUMNS), or a list of these.
Data = Any

def read_bars(path: PathLike) -> pandas.DataFrame: ...
def backtest(strategy: Any, data: Data, *, params: Optional[Mapping[str, float]] = None,
             device: Optional[Device] = None, cash: float = 1000000.0, per_share: float = 0.0,
             commission_bps: float = 1.0, min_commission: float = 0.0, slippage_bps: float = 1.0,
             periods_per_year: float = 252.0, insufficient_cash: str = "refuse") -> BacktestResult: ...
def sweep(strategy: str, data: Data, grid: Mapping[str, Iterable[float]], *,
          params: Optional[Mapping[str, float]] = None, device: Optional[Device] = None, cash: float = 1000000.0,
          per_share: float = 0.0, commission_bps: float = 1.0, min_commission: float = 0.0,
          slippage_bps: float = 1.0, periods_per_year: float = 252.0,
          insufficient_cash: str = "refuse") -> pandas.DataFrame: ...
