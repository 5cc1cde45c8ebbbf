"""Type stubs of the native module tenor._tenor (bindings/python/src)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

Problem = Tuple[Optional[str], Optional[int], Optional[str], str]
Costs = Tuple[float, float, float, float, float, float]

class TenorError(Exception):
    """Base class of every Tenor error."""

class InputError(TenorError):
    """Bad input: a file, row or cell."""
    file: Optional[str]
    line: Optional[int]
    column: Optional[str]
    errors: List[Problem]

class ParameterError(TenorError):
    """A setting out of range."""
    parameter: str

class BackendError(TenorError):
    """A backend that cannot be opened or that failed while working."""

class StrategyError(TenorError):
    """A strategy stopped the backtest."""
    strategy: str
    bar: int

class Device:
    @property
    def backend(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def fp64(self) -> bool: ...
    def price_csv(self, file: str, text: Optional[str] = None, paths: int = 100000, seed: int = 42,
                  engine: str = "auto", steps: int = 64, streams: int = 1,
                  greeks: bool = True) -> Tuple[Dict[str, List[Any]], List[Problem], int]: ...

class Bar:
    time: int
    open: float
    high: float
    low: float
    close: float
    volume: float
    dividend: float

class Fill:
    order: int
    time: int
    symbol: str
    quantity: float
    price: float
    commission: float

class Order:
    id: int
    symbol: int
    quantity: float
    kind: str
    price: Optional[float]
    placed: int

class Context:
    def index(self) -> int: ...
    def time(self) -> int: ...
    def symbols(self) -> List[str]: ...
    def bar(self, s: int = 0) -> Optional[Bar]: ...
    def history(self, s: int = 0, n: Optional[int] = None) -> List[Bar]: ...
    def closes(self, s: int = 0, n: Optional[int] = None) -> List[float]: ...
    def cash(self) -> float: ...
    def position(self, s: int = 0) -> float: ...
    def last_close(self, s: int = 0) -> Optional[float]: ...
    def equity(self) -> float: ...
    def order(self, s: int, quantity: float, kind: str = "market", price: Optional[float] = None) -> int: ...
    def cancel(self, id: int) -> None: ...
    def open_orders(self) -> List[Order]: ...
    def book_cash(self, amount: float) -> None: ...
    def set_mark(self, name: str, value: Optional[float] = None) -> None: ...

def backends() -> List[Tuple[str, bool, str, str]]: ...
def open(name: str) -> Device: ...
def run_backtest(strategy: Any, data: Sequence[str], params: Optional[Dict[str, float]] = None,
                 device: Optional[Device] = None, costs: Costs = ...,
                 insufficient_cash: str = "refuse") -> Dict[str, Any]: ...
def run_sweep(name: str, data: Sequence[str], axes: Sequence[Tuple[str, Sequence[float]]],
              params: Optional[Dict[str, float]] = None, device: Optional[Device] = None,
              costs: Costs = ..., insufficient_cash: str = "refuse") -> List[Tuple[Dict[str, float], Any]]: ...
def surface(device: Device, chain: str, as_of: Optional[str] = None) -> Dict[str, Any]: ...
def treasury_curve(file: str, date: Optional[str] = None,
                   maturities: Optional[Sequence[float]] = None) -> Tuple[str, List[float], List[float], List[float]]: ...
def calibrate_heston(device: Device, chain: str, min_days: float, max_years: float, max_sd: float,
                     per_slice: int, slices: int, max_iterations: int, pricer: str,
                     nodes: int) -> Tuple[str, Dict[str, List[Any]], List[str]]: ...
def alloc_profile(trace: str) -> Dict[str, Any]: ...
def alloc_replay(trace: str, opportunistic: bool = False, sync_every: int = 16) -> Dict[str, List[Any]]: ...
def alloc_advise(trace: str) -> Dict[str, Any]: ...
def pilot_run(backends: Sequence[str], suite: str = "quick", max_mib: int = 1024) -> str: ...
