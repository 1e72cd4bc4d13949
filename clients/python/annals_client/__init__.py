"""annals-client: the annals HTTP API from Python, standard library only (docs/CLIENTS.md)."""

from .aio import AsyncClient, AsyncRecorder
from .capture import BestEffort, CaptureSink, Recorder
from .client import ROUTES, Client
from .errors import API_VERSION, API_VERSION_HEADER, AnnalsError

__version__ = "1.0.0"

__all__ = [
    "API_VERSION", "API_VERSION_HEADER", "AnnalsError", "AsyncClient", "AsyncRecorder", "BestEffort",
    "CaptureSink", "Client", "ROUTES", "Recorder", "__version__",
]
