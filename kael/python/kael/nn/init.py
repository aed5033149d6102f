"""kael.nn.init: PyTorch's initialisers, in place (the C++ kael::nn::init)."""
from .._kael.nn.init import (calculate_gain, constant_, kaiming_normal_, kaiming_uniform_, normal_,  # noqa: F401
                             ones_, uniform_, xavier_normal_, xavier_uniform_, zeros_)
