"""kael.nn: modules as PyTorch spells them, written in Python over kael's operations.

A Module registers the Parameters and Modules assigned to its attributes, so a model is a
plain Python class; the C++ half (kael._kael.nn) provides the initialisers, which draw
from the same generator in the same order as the C++ modules do, and the losses.
"""
from . import functional, init, utils
from .layers import (GELU, Dropout, Embedding, LayerNorm, Linear, ModuleList, ReLU, Sequential, Sigmoid, SiLU,
                     Tanh, CrossEntropyLoss, MSELoss)
from .module import Module, Parameter
#> stage 12
from .._kael.nn import GPT  # noqa: F401  (the C++ model of chapter 11)
#< stage 12
#> stage 13
from .._kael.nn import generate, load_gpt2  # noqa: F401  (GPT-2 and generation, chapter 12)
#< stage 13

__all__ = ["functional", "init", "utils", "Module", "Parameter", "Linear", "Embedding", "LayerNorm", "Dropout",
           "ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Sequential", "ModuleList", "CrossEntropyLoss", "MSELoss"]
