"""kael.nn: modules as PyTorch spells them, written in Python over kael's operations.

A Module registers the Parameters and Modules assigned to its attributes, so a model is a
plain Python class; the C++ half (kael._kael.nn) provides the initialisers, which draw
from the same generator in the same order as the C++ modules do, and the losses.
"""
from . import functional, init, parallel, utils
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .layers import (GELU, CrossEntropyLoss, Dropout, Embedding, Identity, LayerNorm, Linear, MSELoss, ReLU, Sigmoid,
                     SiLU, Softmax, Tanh)
from .module import Module, Parameter
#> stage 12
from .._kael.nn import GPT  # noqa: F401  (the C++ model of chapter 11)
#< stage 12
#> stage 13
from .._kael.nn import generate, load_gpt2  # noqa: F401  (GPT-2 and generation, chapter 12)
#< stage 13

__all__ = ["functional", "init", "parallel", "utils", "Module", "Parameter", "Linear", "Embedding", "LayerNorm",
           "Dropout", "Identity", "ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "Sequential", "ModuleList",
           "ModuleDict", "ParameterList", "ParameterDict", "CrossEntropyLoss", "MSELoss"]
