"""Shared by the training tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def settled() -> Callable[[Any, Any], Any]:
    """A function that runs a network once in training mode on an example batch (so its batch
    norm holds statistics, as after training) and leaves it in eval mode."""

    def settle(net: Any, example: Any) -> Any:
        import torch

        net.train()
        with torch.no_grad():
            net(example)
        net.eval()
        return net

    return settle
