"""Shared helpers of the Python tests (chapter 10). They import kael from the build tree:
ctest runs them with PYTHONPATH pointing at <build>/python."""
import pytest

import kael


@pytest.fixture(autouse=True)
def fixed_seed():
    """Every test starts from the same generator state."""
    kael.manual_seed(0)
